/**
 * The declared table of live parameters the remote control reads and writes. Engine-free.
 *
 * Every parameter is a row here with its name (the protocol's `property`), label, group, type and
 * range, and a `get(hub)` / `set(hub, value)` pair going through {@link RetargetHub}'s public API:
 * nothing is set by reflection on fields. Ranges are the existing validation's:
 * - scales, head rotation offset (degrees), floor height, foot offsets, chair seat offset (metres):
 *   `SETTINGS_LIMITS` (src/rig/settings.ts), which the hub setters enforce;
 * - finger curl and spread: muscle values in [-1, 1] (`checkMuscleValue`, src/rig/fingersTable.ts);
 * - weight smoothing speed: `LimbWeights` needs `> 0` weight units per second (Infinity: no
 *   smoothing); JSON has no Infinity, so the remote range is 0.01..1000 (1000/s switches a weight in
 *   one millisecond, unsmoothed at any frame rate).
 *
 * `step` is a hint for sliders; any value inside `[min, max]` is accepted.
 *
 * Setters without a hub method (said so in their rows): the per-arm IK switches and the smoothing speed
 * go to `hub.weights.configure`, `ikMode` is the hub's public field, finger curl/spread/enable go to
 * `hub.fingers` (FingerRig setters).
 */
import {
  FINGER_COPY_MODES,
  FINGER_HANDS,
  FINGER_NAMES,
  type FingerCopyMode,
  type FingerHand,
  type FingerName,
} from '../../rig/fingersTable';
import type { IKWeightMode, RetargetHub } from '../../rig/hub';
import { SETTINGS_LIMITS, type SourceFilterGroup } from '../../rig/settings';

/** The value types the protocol carries. */
export type ParameterType = 'number' | 'boolean' | 'enum';
export type ParameterValue = number | boolean | string;

interface ParameterBase {
  /** The protocol name (`property` of updateValueRealtime). */
  readonly name: string;
  /** Human label for a panel. */
  readonly label: string;
  /** Panel group. */
  readonly group: string;
  /** Unit of a number, for labels ('m', 'deg', '' for none). */
  readonly unit?: string;
}

export interface NumberParameter extends ParameterBase {
  readonly type: 'number';
  /** Inclusive range. */
  readonly min: number;
  readonly max: number;
  /** Slider step (a hint: any value in range is accepted). */
  readonly step: number;
  get(hub: RetargetHub): number;
  /** Set a value already checked against the range. May throw (the hub's own validation). */
  set(hub: RetargetHub, value: number): void;
}

export interface BooleanParameter extends ParameterBase {
  readonly type: 'boolean';
  get(hub: RetargetHub): boolean;
  set(hub: RetargetHub, value: boolean): void;
}

export interface EnumParameter extends ParameterBase {
  readonly type: 'enum';
  readonly options: readonly string[];
  get(hub: RetargetHub): string;
  set(hub: RetargetHub, value: string): void;
}

export type Parameter = NumberParameter | BooleanParameter | EnumParameter;

/** The IK weight modes of the hub (`ikMode`). */
export const IK_MODES: readonly IKWeightMode[] = ['auto', 'on', 'off'];

function num(
  name: string,
  label: string,
  group: string,
  range: readonly [number, number],
  step: number,
  unit: string,
  get: (hub: RetargetHub) => number,
  set: (hub: RetargetHub, value: number) => void,
): NumberParameter {
  return { name, label, group, type: 'number', min: range[0], max: range[1], step, unit, get, set };
}

function headOffset(axis: 0 | 1 | 2): NumberParameter {
  const letter = 'XYZ'[axis];
  return num(
    `headRotationOffset${letter}`,
    `Head rotation offset ${letter}`,
    'Head',
    SETTINGS_LIMITS.headRotationOffset,
    1,
    'deg',
    (hub) => hub.settings.headRotationOffset[axis],
    (hub, v) => {
      const o = hub.settings.headRotationOffset;
      o[axis] = v;
      hub.setHeadRotationOffset(o[0], o[1], o[2]);
    },
  );
}

function footOffset(side: FingerHand, field: 'frontBack' | 'inOut'): NumberParameter {
  const Side = side === 'left' ? 'Left' : 'Right';
  const Field = field === 'frontBack' ? 'FrontBack' : 'InOut';
  return num(
    `${side}Foot${Field}`,
    `${Side} foot ${field === 'frontBack' ? 'front/back' : 'in/out'}`,
    'Floor and feet',
    SETTINGS_LIMITS.footOffset,
    0.005,
    'm',
    (hub) => hub.settings.footOffsets[side][field],
    (hub, v) => {
      const o = hub.settings.footOffsets[side];
      o[field] = v;
      hub.setFootOffset(side, o.frontBack, o.inOut);
    },
  );
}

function capital(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

function fingerParams(hand: FingerHand): Parameter[] {
  const out: Parameter[] = [];
  const group = `${capital(hand)} hand`;
  for (const finger of FINGER_NAMES as readonly FingerName[]) {
    out.push(
      num(
        `${hand}${capital(finger)}Curl`,
        `${capital(finger)} curl`,
        group,
        [-1, 1],
        0.01,
        '',
        // the three curl muscles are set together; the proximal one stands for them
        (hub) => hub.fingers.getMuscle(hand, finger, 'curl1'),
        (hub, v) => hub.fingers.setCurl(hand, finger, v),
      ),
      num(
        `${hand}${capital(finger)}Spread`,
        `${capital(finger)} spread`,
        group,
        [-1, 1],
        0.01,
        '',
        (hub) => hub.fingers.getMuscle(hand, finger, 'spread'),
        (hub, v) => hub.fingers.setSpread(hand, finger, v),
      ),
    );
  }
  return out;
}

function armForcedOff(side: FingerHand): BooleanParameter {
  const field = side === 'left' ? 'leftArmForcedOff' : 'rightArmForcedOff';
  return {
    name: `${side}ArmIKForcedOff`,
    label: `${capital(side)} arm IK forced off`,
    group: 'IK',
    type: 'boolean',
    get: (hub) => hub.weights.settings[field],
    set: (hub, v) => hub.weights.configure({ [field]: v }),
  };
}

function fingersEnabled(hand: FingerHand): BooleanParameter {
  return {
    name: `${hand}FingersEnabled`,
    label: `${capital(hand)} fingers enabled`,
    group: 'Fingers',
    type: 'boolean',
    get: (hub) => hub.fingers.isEnabled(hand),
    set: (hub, v) => hub.fingers.setEnabled(hand, v),
  };
}

/**
 * The source filter's parameters of one group (`sourceFilterBodyMinCutoff`, `...Beta`, `...DCutoff`;
 * `Hands`, `Feet`), ranges `SETTINGS_LIMITS.filter*`, set through `hub.setSourceFilter`; minCutoff 0 =
 * off (raw pass-through).
 */
function sourceFilterParams(group: SourceFilterGroup): NumberParameter[] {
  const G = capital(group);
  const label = group === 'hands' ? 'Hands and fingers' : group === 'feet' ? 'Feet' : 'Body';
  const field = (
    name: 'minCutoff' | 'beta' | 'dCutoff',
    text: string,
    range: readonly [number, number],
    step: number,
    unit: string,
  ) =>
    num(
      `sourceFilter${G}${capital(name)}`,
      `${label} filter ${text}`,
      'Source filter',
      range,
      step,
      unit,
      (hub) => hub.settings.sourceFilter[group][name],
      (hub, v) => {
        const p = hub.settings.sourceFilter[group];
        p[name] = v;
        hub.setSourceFilter(group, p.minCutoff, p.beta, p.dCutoff);
      },
    );
  return [
    field('minCutoff', 'min cutoff (0 = off)', SETTINGS_LIMITS.filterMinCutoff, 0.1, 'Hz'),
    field('beta', 'beta', SETTINGS_LIMITS.filterBeta, 0.1, ''),
    field('dCutoff', 'derivative cutoff', SETTINGS_LIMITS.filterDCutoff, 0.1, 'Hz'),
  ];
}

/**
 * The parameters, in panel order (47 rows: scales, head, floor and feet, seat, IK, finger mode and
 * enables, per hand 5 curls and 5 spreads; then the source filter, 3 per group).
 */
export const PARAMETERS: readonly Parameter[] = Object.freeze([
  num(
    'avatarScale',
    'Avatar scale',
    'Scale',
    SETTINGS_LIMITS.avatarScale,
    0.01,
    '',
    (hub) => hub.settings.avatarScale,
    (hub, v) => hub.setAvatarScale(v),
  ),
  num(
    'headScale',
    'Head scale',
    'Scale',
    SETTINGS_LIMITS.headScale,
    0.01,
    '',
    (hub) => hub.settings.headScale,
    (hub, v) => hub.setHeadScale(v),
  ),
  headOffset(0),
  headOffset(1),
  headOffset(2),
  num(
    'floorHeight',
    'Floor height',
    'Floor and feet',
    SETTINGS_LIMITS.floorHeight,
    0.01,
    'm',
    (hub) => hub.settings.floorHeight,
    (hub, v) => hub.setFloorHeight(v),
  ),
  footOffset('left', 'frontBack'),
  footOffset('left', 'inOut'),
  footOffset('right', 'frontBack'),
  footOffset('right', 'inOut'),
  num(
    'chairSeatOffset',
    'Chair seat offset',
    'Seat',
    SETTINGS_LIMITS.chairSeatOffset,
    0.01,
    'm',
    (hub) => hub.settings.chairSeatOffset,
    (hub, v) => hub.setChairSeatOffset(v),
  ),
  {
    name: 'ikMode',
    label: 'IK mode',
    group: 'IK',
    type: 'enum',
    options: IK_MODES,
    get: (hub) => hub.ikMode,
    set: (hub, v) => {
      hub.ikMode = v as IKWeightMode;
    },
  },
  armForcedOff('left'),
  armForcedOff('right'),
  num(
    'weightSmoothingSpeed',
    'Weight smoothing speed',
    'IK',
    [0.01, 1000],
    0.1,
    '1/s',
    (hub) => hub.weights.settings.smoothingSpeed,
    (hub, v) => hub.weights.configure({ smoothingSpeed: v }),
  ),
  {
    name: 'fingerCopyMode',
    label: 'Finger copy mode',
    group: 'Fingers',
    type: 'enum',
    options: FINGER_COPY_MODES,
    get: (hub) => hub.fingers.mode,
    set: (hub, v) => hub.setFingerMode(v as FingerCopyMode),
  },
  fingersEnabled('left'),
  fingersEnabled('right'),
  ...FINGER_HANDS.flatMap((h) => fingerParams(h)),
  // --- the live source stage's One-Euro filter (issue 13): three per group ---
  ...(['body', 'hands', 'feet'] as const).flatMap((g) => sourceFilterParams(g)),
] as Parameter[]);

/** An alias: a parameter under the original KindRetargeting's name, acting on {@link aliasOf}. */
export type ParameterAlias = Parameter & {
  /** The parameters of {@link PARAMETERS} it reads and writes. */
  readonly aliasOf: readonly string[];
};

function both(
  name: string,
  label: string,
  group: string,
  a: NumberParameter,
  b: NumberParameter,
): ParameterAlias {
  return {
    ...num(
      name,
      label,
      group,
      [a.min, a.max],
      a.step,
      a.unit ?? '',
      (hub) => a.get(hub),
      (hub, v) => {
        a.set(hub, v);
        b.set(hub, v);
      },
    ),
    aliasOf: [a.name, b.name],
  };
}

function renamed(name: string, of: Parameter): ParameterAlias {
  return { ...of, name, aliasOf: [of.name] };
}

function inverted(name: string, label: string, of: BooleanParameter): ParameterAlias {
  return {
    name,
    label,
    group: of.group,
    type: 'boolean',
    get: (hub) => !of.get(hub),
    set: (hub, v) => of.set(hub, !v),
    aliasOf: [of.name],
  };
}

function spreadAll(hand: FingerHand): ParameterAlias {
  const rows = FINGER_NAMES.map((f) => BY_NAME.get(`${hand}${capital(f)}Spread`) as NumberParameter);
  return {
    ...num(
      `${hand}SpreadFingers`,
      `${capital(hand)} spread (all fingers)`,
      `${capital(hand)} hand`,
      [-1, 1],
      0.01,
      '',
      // the mean of the five spreads: the value set when they were set together
      (hub) => rows.reduce((sum, r) => sum + r.get(hub), 0) / rows.length,
      (hub, v) => {
        for (const r of rows) r.set(hub, v);
      },
    ),
    aliasOf: rows.map((r) => r.name),
  };
}

const BY_NAME: ReadonlyMap<string, Parameter> = new Map(PARAMETERS.map((p) => [p.name, p]));

function row<T extends Parameter>(name: string): T {
  return BY_NAME.get(name) as T;
}

/**
 * The original KindRetargeting's parameter names (its C# members: CustomRetargetingScript,
 * LimbWeightController, FingerShapedController), accepted by `updateValueRealtime` and listed by
 * `getCharacterData` under `aliases`, so a controller written for the original keeps working. Names
 * that are the same in both (avatarScale, headScale, headRotationOffsetX/Y/Z, floorHeight,
 * left/right Thumb/Index/Middle/Ring Curl) are the parameters themselves. Each alias:
 * - `footFrontBackOffset`, `footInOutOffset`: one value for both feet (reads the left foot's);
 *   in/out is positive outward on both sides, i.e. mirrored left/right;
 * - `chairSeatHeightOffset` = `chairSeatOffset`; `weightSmoothSpeed` = `weightSmoothingSpeed`;
 * - `enableLeftArmIK` / `enableRightArmIK` = not `left/rightArmIKForcedOff`;
 * - `leftHandEnabled` / `rightHandEnabled` = `left/rightFingersEnabled`;
 * - `leftPinkyCurl` / `rightPinkyCurl` = `left/rightLittleCurl`;
 * - `leftSpreadFingers` / `rightSpreadFingers`: the five spreads of the hand set together (reads
 *   their mean).
 */
export const PARAMETER_ALIASES: readonly ParameterAlias[] = Object.freeze([
  both(
    'footFrontBackOffset',
    'Feet front/back',
    'Floor and feet',
    row('leftFootFrontBack'),
    row('rightFootFrontBack'),
  ),
  both('footInOutOffset', 'Feet in/out', 'Floor and feet', row('leftFootInOut'), row('rightFootInOut')),
  renamed('chairSeatHeightOffset', row('chairSeatOffset')),
  inverted('enableLeftArmIK', 'Left arm IK enabled', row('leftArmIKForcedOff')),
  inverted('enableRightArmIK', 'Right arm IK enabled', row('rightArmIKForcedOff')),
  renamed('weightSmoothSpeed', row('weightSmoothingSpeed')),
  renamed('leftHandEnabled', row('leftFingersEnabled')),
  renamed('rightHandEnabled', row('rightFingersEnabled')),
  renamed('leftPinkyCurl', row('leftLittleCurl')),
  renamed('rightPinkyCurl', row('rightLittleCurl')),
  spreadAll('left'),
  spreadAll('right'),
]);

const ALIAS_BY_NAME: ReadonlyMap<string, ParameterAlias> = new Map(PARAMETER_ALIASES.map((a) => [a.name, a]));

/** The parameter of a name (a parameter of {@link PARAMETERS} or an alias of {@link PARAMETER_ALIASES}), or undefined. */
export function findParameter(name: string): Parameter | undefined {
  return BY_NAME.get(name) ?? ALIAS_BY_NAME.get(name);
}

/** The alias of an original name, or undefined (a parameter's own name is not an alias). */
export function findAlias(name: string): ParameterAlias | undefined {
  return ALIAS_BY_NAME.get(name);
}

/** A short description of a value for messages (never the whole of a big value). */
export function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string')
    return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v)}`;
  return String(v);
}

/** The allowed values of a parameter, for messages: `a number in 0.1..3`, `true or false`, `one of 'a', 'b'`. */
export function allowedValues(p: Parameter): string {
  if (p.type === 'number') return `a number in ${p.min}..${p.max}${p.unit ? ` ${p.unit}` : ''}`;
  if (p.type === 'boolean') return 'true or false';
  return `one of ${p.options.map((o) => `'${o}'`).join(', ')}`;
}

/**
 * Check a value for a parameter: the value itself (typed) when it fits, otherwise a one-line message
 * naming the allowed values. Never throws.
 */
export function checkParameterValue(
  p: Parameter,
  v: unknown,
): { ok: true; value: ParameterValue } | { ok: false; message: string } {
  let fits = false;
  if (p.type === 'number') fits = typeof v === 'number' && Number.isFinite(v) && v >= p.min && v <= p.max;
  else if (p.type === 'boolean') fits = typeof v === 'boolean';
  else fits = typeof v === 'string' && p.options.includes(v);
  if (fits) return { ok: true, value: v as ParameterValue };
  return { ok: false, message: `${describeValue(v)} is not valid for ${p.name}: need ${allowedValues(p)}` };
}

/** The parameter's description as the protocol sends it (getCharacterData), with its current value. */
export function describeParameter(p: Parameter, hub: RetargetHub): Record<string, unknown> {
  const out: Record<string, unknown> = { name: p.name, label: p.label, group: p.group, type: p.type };
  out.value = p.get(hub);
  if (p.type === 'number') {
    out.min = p.min;
    out.max = p.max;
    out.step = p.step;
    if (p.unit) out.unit = p.unit;
  } else if (p.type === 'enum') {
    out.options = [...p.options];
  }
  return out;
}

/** Set a parameter on a hub (value checked by {@link checkParameterValue} first). */
export function setParameter(p: Parameter, hub: RetargetHub, value: ParameterValue): void {
  if (p.type === 'number') p.set(hub, value as number);
  else if (p.type === 'boolean') p.set(hub, value as boolean);
  else p.set(hub, value as string);
}
