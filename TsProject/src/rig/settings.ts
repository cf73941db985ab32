/**
 * Per-avatar settings, saved and loaded as JSON with a schema version.
 *
 * File format (schema version 1), as {@link serializeSettings} writes it (stable: the same settings
 * always give the same text; two-space indent, number arrays on one line, rotation offsets sorted by
 * bone name, numbers in the shortest form that reads back to the same double):
 *
 * ```json
 * {
 *   "schemaVersion": 1,
 *   "avatarScale": 1,
 *   "headScale": 1,
 *   "headRotationOffset": [0, 0, 0],
 *   "floorHeight": 0,
 *   "initialHipsHeight": null,
 *   "chairSeatOffset": 0,
 *   "footOffsets": {
 *     "left": { "frontBack": 0, "inOut": 0 },
 *     "right": { "frontBack": 0, "inOut": 0 }
 *   },
 *   "rotationOffsets": {
 *     "LeftArm": [0, 0, 0, 1]
 *   },
 *   "sourceFilter": {
 *     "body": { "minCutoff": 4, "beta": 8, "dCutoff": 1 },
 *     "hands": { "minCutoff": 4, "beta": 8, "dCutoff": 1 },
 *     "feet": { "minCutoff": 2, "beta": 8, "dCutoff": 2 }
 *   }
 * }
 * ```
 *
 * Fields, units and accepted ranges (every field is required; unknown fields are errors, so a typo
 * never silently drops a setting; the ranges catch centimetres written as metres):
 * - `avatarScale`: uniform avatar scale, 0.1..3.
 * - `headScale`: uniform head scale, 0.1..3.
 * - `headRotationOffset`: degrees `[x, y, z]`, each -180..180, as Unity's `Quaternion.Euler` about the
 *   head's reference axes (see RetargetOptions.headRotationOffset).
 * - `floorHeight`: metres, -10..10, added to the hips and foot IK targets.
 * - `initialHipsHeight`: metres, > 0 and <= 10, the hips height measured at calibration; `null` before
 *   the first calibration.
 * - `chairSeatOffset`: metres, -1..1, added to the hips height when seated.
 * - `footOffsets.left|right.frontBack|inOut`: metres, -0.5..0.5, in the foot's own axes: `frontBack`
 *   positive toward the toes, `inOut` positive outward (away from the body's midline, so mirrored
 *   left/right).
 * - `rotationOffsets`: the calibrated world-rotation offsets (`inverse(sourceWorld) * targetWorld`,
 *   retargeter.ts) keyed by TARGET bone name exactly as in the avatar file, each a unit quaternion
 *   `[x, y, z, w]` (length within 1e-3 of 1; stored as given, not renormalised, so a round trip is exact).
 * - `sourceFilter.body|hands|feet.minCutoff|beta|dCutoff`: the live source stage's One-Euro filter
 *   (src/core/oneEuro.ts, src/rig/sourceStage.ts) per bone group: `hands` = hands and fingers, `feet` =
 *   feet and toes, `body` = every other bone. `minCutoff` Hz 0..60 (0 = off: the raw stream passes
 *   through bit for bit), `beta` 0..100 (Hz per m/s for positions, per rad/s for rotations), `dCutoff`
 *   Hz 0.01..60. The one optional field: a file without it (written before the filter existed) reads
 *   with {@link DEFAULT_SOURCE_FILTER}; {@link serializeSettings} always writes it.
 *
 * Errors ({@link SettingsError}) name the file, the line and column, and the field's path
 * (`avatar.json:4:27: headRotationOffset[1]: 200 is out of range -180..180 degrees`). Unknown schema
 * versions and malformed JSON are errors too. The JSON is read by a small strict parser here (RFC 8259,
 * https://www.rfc-editor.org/rfc/rfc8259) rather than `JSON.parse`, so positions are exact in every JS
 * engine (V8 and QuickJS word their `JSON.parse` errors differently) and a duplicated key is an error
 * rather than silently taking the last value.
 *
 * Saving atomically (temp file, then rename) is the host's job (Node: src/io/node/settingsFile.ts, which
 * also reads the original KindRetargeting's files and moves an unreadable file aside; Unity:
 * Runtime/Bridge/KindSettingsFile.cs);
 * {@link SettingsStore} keeps the previous settings in force when a load fails.
 */
import { type JNode, JsonFieldError, JsonReader, lineColumn, MAX_DEPTH } from '../core/json';
import type { OneEuroParams } from '../core/oneEuro';

/** The settings file's schema version this code writes; a newer file is refused with an error naming it. */
export const SETTINGS_SCHEMA_VERSION = 1;

/** A foot's IK target offset, metres in the foot's frame. */
export interface FootOffset {
  /** Metres along the foot, positive toward the toes. */
  frontBack: number;
  /** Metres across the foot, positive outward (away from the midline). */
  inOut: number;
}

/**
 * An avatar's hub settings (the versioned settings file's content): scales, head offset (degrees), floor
 * height and hips height (metres), seat and foot offsets, calibrated rotation offsets, the source filter.
 */
export interface Settings {
  avatarScale: number;
  headScale: number;
  headRotationOffset: [number, number, number];
  floorHeight: number;
  initialHipsHeight: number | null;
  chairSeatOffset: number;
  footOffsets: { left: FootOffset; right: FootOffset };
  rotationOffsets: Record<string, [number, number, number, number]>;
  /** The live source stage's One-Euro filter per bone group (see the module docs). */
  sourceFilter: SourceFilterSettings;
}

/** Bone groups of the source stage's filter: hands and fingers, feet and toes, every other bone. */
export type SourceFilterGroup = 'body' | 'hands' | 'feet';
/** The source filter's bone groups, in order. */
export const SOURCE_FILTER_GROUPS: readonly SourceFilterGroup[] = Object.freeze(['body', 'hands', 'feet']);

/** One-Euro parameters per bone group (src/core/oneEuro.ts). */
export type SourceFilterSettings = Record<SourceFilterGroup, OneEuroParams>;

/**
 * The filter's defaults, chosen from data (docs/live.md "Source filter": noisy copies of the real takes,
 * jitter of the avatar's hands and feet against lag, `npm run bench -- filter-sweep`,
 * bench/filterSweep.ts): the least jitter within 10 ms of added lag, hands (and body) 4 / 8 / 1, feet
 * 2 / 8 / 2 (minCutoff Hz / beta / dCutoff Hz).
 */
export const DEFAULT_SOURCE_FILTER: Readonly<SourceFilterSettings> = Object.freeze({
  body: Object.freeze({ minCutoff: 4, beta: 8, dCutoff: 1 }),
  hands: Object.freeze({ minCutoff: 4, beta: 8, dCutoff: 1 }),
  feet: Object.freeze({ minCutoff: 2, beta: 8, dCutoff: 2 }),
});

/** The filter off in every group: the raw stream passes through. */
export function sourceFilterOff(): SourceFilterSettings {
  const off = () => ({ minCutoff: 0, beta: 0, dCutoff: 1 });
  return { body: off(), hands: off(), feet: off() };
}

/** A copy of the default filter settings. */
export function defaultSourceFilter(): SourceFilterSettings {
  const d = DEFAULT_SOURCE_FILTER;
  return { body: { ...d.body }, hands: { ...d.hands }, feet: { ...d.feet } };
}

/** Accepted ranges, inclusive (see the module docs). */
export const SETTINGS_LIMITS = Object.freeze({
  avatarScale: [0.1, 3],
  headScale: [0.1, 3],
  headRotationOffset: [-180, 180],
  floorHeight: [-10, 10],
  initialHipsHeight: [0, 10],
  chairSeatOffset: [-1, 1],
  footOffset: [-0.5, 0.5],
  rotationLengthTolerance: 1e-3,
  filterMinCutoff: [0, 60],
  filterBeta: [0, 100],
  filterDCutoff: [0.01, 60],
} as const);

/** The defaults: scale 1, no offsets, floor at 0, not calibrated. */
export function defaultSettings(): Settings {
  return {
    avatarScale: 1,
    headScale: 1,
    headRotationOffset: [0, 0, 0],
    floorHeight: 0,
    initialHipsHeight: null,
    chairSeatOffset: 0,
    footOffsets: { left: { frontBack: 0, inOut: 0 }, right: { frontBack: 0, inOut: 0 } },
    rotationOffsets: Object.create(null),
    sourceFilter: defaultSourceFilter(),
  };
}

/** Thrown for a bad settings file or object; `message` names the file, line:column and field path. */
export class SettingsError extends JsonFieldError {
  constructor(fileName: string, path: string, detail: string, line = 0, column = 0) {
    super(fileName, path, detail, line, column);
    this.name = 'SettingsError';
  }
}

/** A plain JS value as a JNode (positions -1), for validating objects not read from text. */
function toNode(v: unknown, depth = 0): JNode {
  if (depth > MAX_DEPTH) return { kind: 'null', at: -1 };
  if (v === null) return { kind: 'null', at: -1 };
  if (typeof v === 'boolean') return { kind: 'boolean', value: v, at: -1 };
  if (typeof v === 'number') return { kind: 'number', value: v, at: -1 };
  if (typeof v === 'string') return { kind: 'string', value: v, at: -1 };
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const a = v as ArrayLike<unknown>;
    const items: JNode[] = [];
    for (let i = 0; i < a.length; i++) items.push(toNode(a[i], depth + 1));
    return { kind: 'array', items, at: -1 };
  }
  if (typeof v === 'object') {
    const keys: string[] = [];
    const values: JNode[] = [];
    for (const k of Object.keys(v as object)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      keys.push(k);
      values.push(toNode(x, depth + 1));
    }
    return { kind: 'object', keys, values, at: -1 };
  }
  // undefined, functions, symbols, bigints: an unreadable value the validator rejects by kind
  return { kind: 'string', value: `<${typeof v}>`, at: -2 };
}

// ---------------------------------------------------------------------------------------------
// Validation.

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (IDENT.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0];
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j];
      d[j] = Math.min(
        d[j] + 1,
        d[j - 1] + 1,
        prev + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
      prev = cur;
    }
  }
  return d[b.length];
}

class Validator {
  constructor(
    private readonly text: string | null,
    private readonly fileName: string,
  ) {}

  fail(node: JNode | null, path: string, detail: string): never {
    if (this.text !== null && node !== null && node.at >= 0) {
      const { line, column } = lineColumn(this.text, node.at);
      throw new SettingsError(this.fileName, path, detail, line, column);
    }
    throw new SettingsError(this.fileName, path, detail);
  }

  describe(n: JNode): string {
    switch (n.kind) {
      case 'null':
        return 'null';
      case 'boolean':
        return String(n.value);
      case 'number':
        return String(n.value);
      case 'string':
        return n.at === -2 ? n.value.slice(1, -1) : `the string ${JSON.stringify(n.value)}`;
      case 'array':
        return `an array of ${n.items.length}`;
      case 'object':
        return 'an object';
    }
  }

  /** The fields of an object node; unknown keys are errors (with the nearest known key suggested). */
  fields(
    n: JNode,
    path: string,
    known: readonly string[],
    optional: readonly string[] = [],
  ): Map<string, JNode> {
    if (n.kind !== 'object') this.fail(n, path, `need an object, got ${this.describe(n)}`);
    const out = new Map<string, JNode>();
    for (let i = 0; i < n.keys.length; i++) {
      const k = n.keys[i];
      if (!known.includes(k)) {
        let best = '';
        let bestD = Number.POSITIVE_INFINITY;
        for (const c of known) {
          const d = editDistance(k, c);
          if (d < bestD) {
            bestD = d;
            best = c;
          }
        }
        const hint = bestD <= Math.max(2, k.length / 3) ? `; did you mean '${best}'?` : '';
        this.fail(n.values[i], joinPath(path, k), `unknown field (known: ${known.join(', ')})${hint}`);
      }
      out.set(k, n.values[i]);
    }
    for (const k of known) {
      if (!out.has(k) && !optional.includes(k)) this.fail(n, joinPath(path, k), 'missing');
    }
    return out;
  }

  number(n: JNode, path: string, lo: number, hi: number, unit: string, loOpen = false): number {
    if (n.kind !== 'number' || !Number.isFinite(n.value)) {
      this.fail(n, path, `need a number (${unit}), got ${this.describe(n)}`);
    }
    const v = n.value;
    if (v > hi || (loOpen ? v <= lo : v < lo)) {
      this.fail(
        n,
        path,
        `${v} is out of range ${loOpen ? `above ${lo} up to ${hi}` : `${lo}..${hi}`}${/^(degrees|metres)/.test(unit) ? ` ${unit}` : ` (${unit})`}`,
      );
    }
    return v;
  }

  tuple(n: JNode, path: string, len: number, what: string): JNode[] {
    if (n.kind !== 'array' || n.items.length !== len) {
      this.fail(n, path, `need an array of ${len} numbers (${what}), got ${this.describe(n)}`);
    }
    return n.items;
  }
}

/** The top-level fields of a settings file, in the order they are written. */
export const TOP_FIELDS = [
  'schemaVersion',
  'avatarScale',
  'headScale',
  'headRotationOffset',
  'floorHeight',
  'initialHipsHeight',
  'chairSeatOffset',
  'footOffsets',
  'rotationOffsets',
  'sourceFilter',
] as const;

function validate(root: JNode, v: Validator, requireVersion: boolean): Settings {
  if (root.kind !== 'object') v.fail(root, '', `need a JSON object of settings, got ${v.describe(root)}`);
  // The version first: another version's fields may differ, so say that rather than what looks wrong.
  const vi = root.keys.indexOf('schemaVersion');
  if (vi < 0) {
    if (requireVersion) {
      v.fail(
        root,
        'schemaVersion',
        `missing: not a settings file of a known version (this build reads ${SETTINGS_SCHEMA_VERSION})`,
      );
    }
  } else {
    const node = root.values[vi];
    if (node.kind !== 'number' || !Number.isInteger(node.value)) {
      v.fail(node, 'schemaVersion', `need an integer, got ${v.describe(node)}`);
    }
    if (node.value > SETTINGS_SCHEMA_VERSION) {
      v.fail(
        node,
        'schemaVersion',
        `version ${node.value} is newer than this build reads (${SETTINGS_SCHEMA_VERSION}); update KindRetargeting`,
      );
    }
    if (node.value !== SETTINGS_SCHEMA_VERSION) {
      v.fail(
        node,
        'schemaVersion',
        `unknown version ${node.value} (this build reads ${SETTINGS_SCHEMA_VERSION})`,
      );
    }
  }
  const known: readonly string[] = requireVersion || vi >= 0 ? TOP_FIELDS : TOP_FIELDS.slice(1);
  const f = v.fields(root, '', known, ['sourceFilter']);
  const L = SETTINGS_LIMITS;
  const head = v.tuple(f.get('headRotationOffset')!, 'headRotationOffset', 3, 'degrees [x, y, z]');
  const hips = f.get('initialHipsHeight')!;
  const feet = v.fields(f.get('footOffsets')!, 'footOffsets', ['left', 'right']);
  const foot = (side: 'left' | 'right'): FootOffset => {
    const p = joinPath('footOffsets', side);
    const g = v.fields(feet.get(side)!, p, ['frontBack', 'inOut']);
    const [lo, hi] = L.footOffset;
    return {
      frontBack: v.number(g.get('frontBack')!, joinPath(p, 'frontBack'), lo, hi, 'metres'),
      inOut: v.number(g.get('inOut')!, joinPath(p, 'inOut'), lo, hi, 'metres'),
    };
  };
  const ro = f.get('rotationOffsets')!;
  if (ro.kind !== 'object') {
    v.fail(ro, 'rotationOffsets', `need an object of bone name -> [x, y, z, w], got ${v.describe(ro)}`);
  }
  const rotationOffsets: Settings['rotationOffsets'] = Object.create(null);
  for (let i = 0; i < ro.keys.length; i++) {
    const bone = ro.keys[i];
    const p = joinPath('rotationOffsets', bone);
    if (bone.length === 0) v.fail(ro.values[i], p, 'empty bone name');
    const items = v.tuple(ro.values[i], p, 4, 'quaternion [x, y, z, w]');
    const q = items.map((it, k) => v.number(it, `${p}[${k}]`, -1.01, 1.01, 'quaternion component')) as [
      number,
      number,
      number,
      number,
    ];
    const len = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (Math.abs(len - 1) > L.rotationLengthTolerance) {
      v.fail(
        ro.values[i],
        p,
        `not a unit quaternion (length ${len}; need 1 within ${L.rotationLengthTolerance})`,
      );
    }
    rotationOffsets[bone] = q;
  }
  return {
    avatarScale: v.number(f.get('avatarScale')!, 'avatarScale', L.avatarScale[0], L.avatarScale[1], 'scale'),
    headScale: v.number(f.get('headScale')!, 'headScale', L.headScale[0], L.headScale[1], 'scale'),
    headRotationOffset: head.map((n, k) =>
      v.number(n, `headRotationOffset[${k}]`, L.headRotationOffset[0], L.headRotationOffset[1], 'degrees'),
    ) as [number, number, number],
    floorHeight: v.number(f.get('floorHeight')!, 'floorHeight', L.floorHeight[0], L.floorHeight[1], 'metres'),
    initialHipsHeight:
      hips.kind === 'null'
        ? null
        : v.number(
            hips,
            'initialHipsHeight',
            L.initialHipsHeight[0],
            L.initialHipsHeight[1],
            'metres (or null)',
            true,
          ),
    chairSeatOffset: v.number(
      f.get('chairSeatOffset')!,
      'chairSeatOffset',
      L.chairSeatOffset[0],
      L.chairSeatOffset[1],
      'metres',
    ),
    footOffsets: { left: foot('left'), right: foot('right') },
    rotationOffsets,
    sourceFilter: f.has('sourceFilter') ? sourceFilter(v, f.get('sourceFilter')!) : defaultSourceFilter(),
  };
}

function sourceFilter(v: Validator, n: JNode): SourceFilterSettings {
  const L = SETTINGS_LIMITS;
  const groups = v.fields(n, 'sourceFilter', SOURCE_FILTER_GROUPS);
  const group = (g: SourceFilterGroup): OneEuroParams => {
    const p = joinPath('sourceFilter', g);
    const x = v.fields(groups.get(g)!, p, ['minCutoff', 'beta', 'dCutoff']);
    const [c0, c1] = L.filterMinCutoff;
    const [b0, b1] = L.filterBeta;
    const [d0, d1] = L.filterDCutoff;
    return {
      minCutoff: v.number(x.get('minCutoff')!, joinPath(p, 'minCutoff'), c0, c1, 'Hz, 0 = off'),
      beta: v.number(x.get('beta')!, joinPath(p, 'beta'), b0, b1, 'Hz per m/s or rad/s'),
      dCutoff: v.number(x.get('dCutoff')!, joinPath(p, 'dCutoff'), d0, d1, 'Hz'),
    };
  };
  return { body: group('body'), hands: group('hands'), feet: group('feet') };
}

/**
 * Read settings from JSON text. `fileName` names the file in errors.
 * @returns new settings (a fresh object; `rotationOffsets` has no prototype, so any bone name is safe).
 * @throws SettingsError (`file:line:column: path: problem`) for malformed JSON, a missing, unknown or
 * newer schema version, a missing or unknown field, a wrong type, or a value out of range.
 */
export function parseSettings(text: string, fileName: string): Settings {
  if (typeof text !== 'string') {
    throw new SettingsError(String(fileName), '', `need the file's text as a string, got ${typeof text}`);
  }
  const fail = (at: number, detail: string): never => {
    const { line, column } = lineColumn(text, at);
    throw new SettingsError(fileName, '', `not valid JSON: ${detail}`, line, column);
  };
  const root = new JsonReader(text, fail).document();
  return validate(root, new Validator(text, fileName), true);
}

/**
 * Check an in-memory settings object (e.g. from a host's saved state) and return a validated copy.
 * `schemaVersion` may be present (must then be the current one) or absent. `source` names it in errors.
 * @throws SettingsError naming the field path.
 */
export function validateSettings(value: unknown, source = 'settings'): Settings {
  return validate(toNode(value), new Validator(null, source), false);
}

function num(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

function numbers(a: readonly number[]): string {
  return `[${a.map(num).join(', ')}]`;
}

/**
 * Settings as stable, pretty JSON with `schemaVersion` (see the module docs). Validates first, so a
 * bad value is never written.
 * @throws SettingsError naming the bad field (source 'serializeSettings').
 */
export function serializeSettings(s: Settings): string {
  const v = validateSettings(s, 'serializeSettings');
  const foot = (f: FootOffset) => `{ "frontBack": ${num(f.frontBack)}, "inOut": ${num(f.inOut)} }`;
  const bones = Object.keys(v.rotationOffsets).sort();
  const ro =
    bones.length === 0
      ? '{}'
      : `{\n${bones.map((b) => `    ${JSON.stringify(b)}: ${numbers(v.rotationOffsets[b])}`).join(',\n')}\n  }`;
  return [
    '{',
    `  "schemaVersion": ${SETTINGS_SCHEMA_VERSION},`,
    `  "avatarScale": ${num(v.avatarScale)},`,
    `  "headScale": ${num(v.headScale)},`,
    `  "headRotationOffset": ${numbers(v.headRotationOffset)},`,
    `  "floorHeight": ${num(v.floorHeight)},`,
    `  "initialHipsHeight": ${v.initialHipsHeight === null ? 'null' : num(v.initialHipsHeight)},`,
    `  "chairSeatOffset": ${num(v.chairSeatOffset)},`,
    '  "footOffsets": {',
    `    "left": ${foot(v.footOffsets.left)},`,
    `    "right": ${foot(v.footOffsets.right)}`,
    '  },',
    `  "rotationOffsets": ${ro},`,
    '  "sourceFilter": {',
    ...SOURCE_FILTER_GROUPS.map((g, i) => {
      const p = v.sourceFilter[g];
      const end = i === SOURCE_FILTER_GROUPS.length - 1 ? '' : ',';
      return `    "${g}": { "minCutoff": ${num(p.minCutoff)}, "beta": ${num(p.beta)}, "dCutoff": ${num(p.dCutoff)} }${end}`;
    }),
    '  }',
    '}',
    '',
  ].join('\n');
}

function deepFreeze<T>(o: T): T {
  if (o !== null && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const k of Object.keys(o)) deepFreeze((o as Record<string, unknown>)[k]);
  }
  return o;
}

/**
 * The settings in force for one avatar. A load or change that fails validation throws (or, with
 * {@link SettingsStore.tryLoad}, returns the error) and leaves the previous settings in force.
 * `current` is deeply frozen: change it with `set`/`update`/`load`.
 */
export class SettingsStore {
  private value: Settings;
  /** The last failed load's error, or null (cleared by a successful load or set). */
  lastError: SettingsError | null = null;

  /** @throws SettingsError when `initial` is not valid settings. */
  constructor(initial: Settings = defaultSettings()) {
    this.value = deepFreeze(validateSettings(initial, 'initial settings'));
  }

  /** The settings in force (read-only; change them through the store's methods). */
  get current(): Readonly<Settings> {
    return this.value;
  }

  /**
   * Parse and, only if valid, put in force. @returns the new settings.
   * @throws SettingsError (the previous settings stay in force).
   */
  load(text: string, fileName: string): Readonly<Settings> {
    try {
      this.value = deepFreeze(parseSettings(text, fileName));
    } catch (e) {
      if (e instanceof SettingsError) this.lastError = e;
      throw e;
    }
    this.lastError = null;
    return this.value;
  }

  /** As {@link SettingsStore.load}, returning the error instead of throwing it (null on success). */
  tryLoad(text: string, fileName: string): SettingsError | null {
    try {
      this.load(text, fileName);
      return null;
    } catch (e) {
      if (e instanceof SettingsError) return e;
      throw e;
    }
  }

  /** Replace the settings (validated). @throws SettingsError, leaving the previous ones in force. */
  set(next: Settings): Readonly<Settings> {
    this.value = deepFreeze(validateSettings(next, 'settings'));
    this.lastError = null;
    return this.value;
  }

  /** Change some fields (merged over the current ones, validated). @throws SettingsError. */
  update(changes: Partial<Settings>): Readonly<Settings> {
    return this.set({ ...this.value, ...changes });
  }

  /** The current settings as the file text ({@link serializeSettings}). */
  serialize(): string {
    return serializeSettings(this.value);
  }
}
