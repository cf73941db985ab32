/**
 * Limb weights: how much IK each limb gets this frame (left arm, right arm, left leg, right leg) and how
 * much of the hips-height correction applies, from the situation the performer is in.
 *
 * A live rig wants IK only where it buys something: a retargeted arm (world-rotation offsets, FK) keeps
 * the performer's arm shape, but on an avatar with other proportions the hands no longer meet when the
 * performer's hands meet, and no longer reach the prop the performer touches; a retargeted leg keeps
 * the knee shape but slides and sinks on the floor. So each limb gets IK when its contact situation
 * calls for it and FK otherwise, with a smooth blend between.
 *
 * Layers. Each condition maps a distance d (metres) to a target weight in [0, 1] through a linear ramp
 * between `near` and `far` ({@link closeness}: 1 at `d <= near`, 0 at `d >= far`, linear between; a
 * NaN distance counts as far). A condition either uses that closeness or `1 - closeness`:
 *
 * | limb | condition | distance | weight | default near..far |
 * |---|---|---|---|---|
 * | arms | hand to hand | left hand to right hand | closeness | 0.12..0.30 m |
 * | arms | nearest prop | this hand to the nearest Object or Hand prop | closeness | 0.12..0.30 m |
 * | legs | seated foot | foot to hips, horizontal (x, z) | 1 - seat * closeness | 0.15..0.35 m |
 * | legs | foot height | foot (ankle) height above the floor | closeness | 0.20..0.45 m |
 * | hips | chair | hips to the nearest free Chair prop | 1 - closeness (= 1 - seat) | 0.20..0.60 m |
 * | hips | hips height | hips height above the floor | 1 - closeness | 0.40..0.75 m |
 *
 * - Arms combine by MAXIMUM: any contact turns IK on. Hands together (clapping, praying, holding a
 *   two-handed object) need the avatar's hands to meet although its arms differ; a hand at a prop (a
 *   registered object, or another avatar's hand for a high five or a handshake) needs the hand on the
 *   prop. Props attached to this same hand are skipped (they follow the hand, so they are always "near");
 *   a prop held in the other hand or on the head counts.
 * - Legs combine by MINIMUM: IK only when every condition agrees. A planted foot (ankle within 20 cm of
 *   the floor: a standing ankle sits 7 to 13 cm up in the real takes) gets IK so it stays on the floor
 *   with the avatar's leg length; a walking foot stays mostly in IK (its ankle swings up to about 25 cm:
 *   weight 0.8); a lifted foot (a kick, a knee raise, a foot on a box: 45 cm and up) keeps the
 *   performer's leg shape. Seated (a chair near the hips), a foot out in front of the hips (about 35 cm or more,
 *   horizontally) stands on the floor before the chair and keeps its IK, while a foot tucked under the
 *   seat or drawn up onto it (within 15 cm of the hips) goes to FK: an avatar with other proportions
 *   cannot reach there without its knee going through the seat. `seat` is the chair closeness, so away
 *   from chairs the seated condition is 1 and has no effect.
 * - Hips combine by MINIMUM. The hips weight is the fraction of the hips-height correction (the
 *   leg-length lift of room mode, or the floor alignment) the hub applies: full when standing, none
 *   when sitting on a chair (the seat, not the legs, holds the hips; the seat offset applies instead) or
 *   low on the floor (sitting, crawling, a deep crouch: the correction for longer or shorter legs would
 *   lift the avatar off the floor or sink it in).
 * - The chair also gives the seat offset: `seatOffset = seat * chairSeatOffset` (metres, added to the
 *   hips height by the hub), with `seat` smoothed like the weights.
 *
 * Smoothing: every frame each weight moves toward its target by at most `smoothingSpeed * dt`
 * (`w += clamp(target - w, -speed*dt, speed*dt)`, speed in weight units per second; default 4, a full
 * switch in 0.25 s), so no weight ever jumps by more than `speed * dt` in one frame, and a weight whose
 * target holds still reaches it exactly. Forcing an arm's IK off sets its target to 0 whatever the
 * conditions; its weight then falls at the smoothing speed (no pop). {@link LimbWeights.snap} sets the
 * weights to their targets at once (first frame, after a calibration or a teleport).
 *
 * Inputs are world positions in the hub's frame (Y up, metres): the performer-driven pose (source
 * joints scaled to the avatar, or the avatar's FK pose before IK); the hand positions can be the hand
 * bones or the hand prop points (PropSystem.pointPositions, in the palm). The defaults are for hand
 * and ankle joints of an adult performer. An avatar of another size gives its body scale
 * ({@link LimbWeightsInput.scale}, avatar metres per performer metre; the hub uses its hips-height
 * ratio): every distance above is divided by it before the ramps, so a child-sized avatar standing
 * (hips 0.6 m up) reads as standing, not as half crouched, and its planted feet as planted.
 */
import { PropPoint, PropType, type PropWorld } from './props';

/** Limb indices into {@link LimbWeights.weights}. */
export const Limb = { LeftArm: 0, RightArm: 1, LeftLeg: 2, RightLeg: 3, Hips: 4 } as const;
/** The weighted limbs in {@link Limb} order (the hips' weight is the hips-height correction). */
export const LIMB_NAMES = ['leftArm', 'rightArm', 'leftLeg', 'rightLeg', 'hips'] as const;
/** Number of weighted limbs ({@link LIMB_NAMES}). */
export const LIMB_COUNT = 5;

/** Offsets of each joint's x in {@link LimbWeightsInput.joints} (y and z follow). */
export const WeightJoint = { LeftHand: 0, RightHand: 3, LeftFoot: 6, RightFoot: 9, Hips: 12 } as const;

/** Indices into {@link LimbWeights.conditions}: each condition's target weight this frame. */
export const LimbCondition = {
  HandToHand: 0,
  LeftProp: 1,
  RightProp: 2,
  LeftSeatedFoot: 3,
  RightSeatedFoot: 4,
  LeftFootHeight: 5,
  RightFootHeight: 6,
  Chair: 7,
  HipsHeight: 8,
} as const;
/** Number of conditions in {@link LimbCondition}. */
export const LIMB_CONDITION_COUNT = 9;

/** Indices into {@link LimbWeights.hips}. */
export const HipsOutput = { Correction: 0, Seat: 1, SeatOffset: 2 } as const;

/** A linear ramp: closeness 1 at a distance `<= near`, 0 at `>= far` (metres, `0 <= near <= far`). */
export interface Ramp {
  near: number;
  far: number;
}

/**
 * The limb-weight rules: the smoothing speed and the distance ramps (metres, an adult performer's) that turn
 * each condition's weight on and off.
 */
export interface LimbWeightSettings {
  /** Weight units per second a weight may move toward its target (> 0; Infinity: no smoothing). */
  smoothingSpeed: number;
  /** Hand-to-hand distance (arms). */
  handToHand: Ramp;
  /** Hand to nearest Object/Hand prop (arms). */
  propDistance: Ramp;
  /** Seated: horizontal foot-to-hips distance (legs; IK when far). */
  seatedFootDistance: Ramp;
  /** Foot (ankle) height above the floor (legs; IK when near). */
  footHeight: Ramp;
  /** Hips to the nearest free Chair prop (seat amount; hips correction off when near). */
  chairDistance: Ramp;
  /** Hips height above the floor (hips correction off when near the floor). */
  hipsHeight: Ramp;
  /** Seat height offset applied when seated, metres (added to the hips height; may be negative). */
  chairSeatOffset: number;
  /** Force the left arm's IK off (target 0 whatever the conditions). */
  leftArmForcedOff: boolean;
  /** Force the right arm's IK off. */
  rightArmForcedOff: boolean;
}

/** The defaults (metres, weight units per second); see the module table. */
export function defaultLimbWeightSettings(): LimbWeightSettings {
  return {
    smoothingSpeed: 4,
    handToHand: { near: 0.12, far: 0.3 },
    propDistance: { near: 0.12, far: 0.3 },
    seatedFootDistance: { near: 0.15, far: 0.35 },
    footHeight: { near: 0.2, far: 0.45 },
    chairDistance: { near: 0.2, far: 0.6 },
    hipsHeight: { near: 0.4, far: 0.75 },
    chairSeatOffset: 0,
    leftArmForcedOff: false,
    rightArmForcedOff: false,
  };
}

/** What the hub fills each frame. */
export interface LimbWeightsInput {
  /**
   * World positions, metres, `Float64Array(15)`: left hand, right hand, left foot (ankle), right foot,
   * hips, x y z each (offsets in {@link WeightJoint}).
   */
  readonly joints: Float64Array;
  /** `floor[0]`: the floor's height (world y, metres). */
  readonly floor: Float64Array;
  /**
   * `scale[0]`: the body scale, avatar metres per performer metre (finite, > 0): every distance is
   * divided by it before the ramps, which are in an adult performer's metres. Absent: 1.
   */
  readonly scale?: Float64Array;
  /** Registered props (a PropSystem), or null when there are none. */
  props: PropWorld | null;
}

/** A zeroed input (set-up time). */
export function createLimbWeightsInput(props: PropWorld | null = null): LimbWeightsInput {
  return { joints: new Float64Array(15), floor: new Float64Array(1), scale: new Float64Array([1]), props };
}

/** What {@link LimbWeights.exportState} gives (arrays as in the class's fields). */
export interface LimbWeightsState {
  settings: LimbWeightSettings;
  weights: number[];
  targets: number[];
  conditions: number[];
  hips: number[];
  nearestDistance: number[];
  nearestSlot: number[];
  seatTarget: number;
}

/** Thrown for bad settings or a bad update call; the message names the field. */
export class LimbWeightsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LimbWeightsError';
  }
}

const RAMPS = [
  'handToHand',
  'propDistance',
  'seatedFootDistance',
  'footHeight',
  'chairDistance',
  'hipsHeight',
] as const;

/**
 * Check settings, naming the first bad field (`settings.footHeight.near: ...`).
 * @throws LimbWeightsError
 */
export function validateLimbWeightSettings(s: LimbWeightSettings): void {
  const bad = (field: string, v: unknown, need: string) => {
    throw new LimbWeightsError(
      `limb weight settings${field ? `.${field}` : ''}: ${String(v)} (${typeof v}); need ${need}`,
    );
  };
  if (s === null || typeof s !== 'object') bad('', s, 'an object');
  if (typeof s.smoothingSpeed !== 'number' || !(s.smoothingSpeed > 0)) {
    bad('smoothingSpeed', s.smoothingSpeed, 'a number > 0 (weight units per second; Infinity: no smoothing)');
  }
  for (const r of RAMPS) {
    const ramp = s[r];
    if (ramp === null || typeof ramp !== 'object') bad(r, ramp, '{ near, far } in metres');
    if (typeof ramp.near !== 'number' || !Number.isFinite(ramp.near) || ramp.near < 0) {
      bad(`${r}.near`, ramp.near, 'a finite number of metres >= 0');
    }
    if (typeof ramp.far !== 'number' || !Number.isFinite(ramp.far) || ramp.far < ramp.near) {
      bad(`${r}.far`, ramp.far, `a finite number of metres >= near (${ramp.near})`);
    }
  }
  if (typeof s.chairSeatOffset !== 'number' || !Number.isFinite(s.chairSeatOffset)) {
    bad('chairSeatOffset', s.chairSeatOffset, 'a finite number of metres');
  }
  for (const f of ['leftArmForcedOff', 'rightArmForcedOff'] as const) {
    if (typeof s[f] !== 'boolean') bad(f, s[f], 'true or false');
  }
}

/**
 * Closeness of a distance on a ramp: 1 at `d <= near`, 0 at `d >= far` (and for NaN), linear between.
 */
export function closeness(d: number, near: number, far: number): number {
  if (d <= near) return 1;
  if (d < far) return (far - d) / (far - near);
  return 0;
}

/** One step of the smoother: `w + clamp(target - w, -step, step)`. */
function approach(w: number, target: number, step: number): number {
  const d = target - w;
  if (d > step) return w + step;
  if (d < -step) return w - step;
  return target;
}

/**
 * Layered, smoothed IK weights of one avatar. `update` and `snap` allocate nothing.
 */
export class LimbWeights {
  private current: Readonly<LimbWeightSettings>;
  /** Smoothed weights in [0, 1]: left arm, right arm, left leg, right leg, hips ({@link Limb}). */
  readonly weights = new Float64Array(LIMB_COUNT);
  /** This frame's target weights (before smoothing). */
  readonly targets = new Float64Array(LIMB_COUNT);
  /** Each condition's target weight this frame ({@link LimbCondition}). */
  readonly conditions = new Float64Array(LIMB_CONDITION_COUNT);
  /**
   * Hips outputs ({@link HipsOutput}): [0] the hips-height correction fraction (= weights[Hips]),
   * [1] the smoothed seat amount in [0, 1], [2] the seat offset in metres (`seat * chairSeatOffset`).
   */
  readonly hips = new Float64Array(3);
  /** Distances found this frame, metres: nearest prop to the left hand, to the right hand, nearest chair to the hips (Infinity: none). */
  readonly nearestDistance = new Float64Array(3);
  /** Slots of those props in the prop registry, -1 for none. */
  readonly nearestSlot = new Int32Array(3).fill(-1);

  /** Index 0: this frame's seat target (chair closeness); an array, not a field, so writing it never boxes. */
  private readonly seatTarget = new Float64Array(1);

  /** @throws LimbWeightsError for bad settings (merged over the defaults). */
  constructor(settings: Partial<LimbWeightSettings> = {}) {
    this.current = Object.freeze(defaultLimbWeightSettings());
    this.configure(settings);
    this.nearestDistance.fill(Number.POSITIVE_INFINITY);
  }

  /**
   * Change settings (merged; ramps replace whole). Validated first: on error nothing changes.
   * @throws LimbWeightsError naming the bad field.
   */
  configure(changes: Partial<LimbWeightSettings>): void {
    const next = { ...this.current, ...changes };
    validateLimbWeightSettings(next);
    for (const r of RAMPS) next[r] = Object.freeze({ near: next[r].near, far: next[r].far });
    this.current = Object.freeze(next);
  }

  /** The settings in force (frozen; change them with {@link LimbWeights.configure}, which validates). */
  get settings(): Readonly<LimbWeightSettings> {
    return this.current;
  }

  /**
   * Compute this frame's targets from `input` and move each weight toward its target by at most
   * `smoothingSpeed * dt`. `dt` in seconds (0 allowed: targets update, weights hold).
   * @throws LimbWeightsError for a negative, NaN or infinite `dt` or too-short input arrays.
   */
  update(input: LimbWeightsInput, dt: number): void {
    if (!(dt >= 0 && dt < Number.POSITIVE_INFINITY)) {
      throw new LimbWeightsError(`update: dt ${dt}: need a finite number of seconds >= 0`);
    }
    this.computeTargets(input);
    const step = this.current.smoothingSpeed * dt;
    const w = this.weights;
    const t = this.targets;
    for (let k = 0; k < LIMB_COUNT; k++) w[k] = approach(w[k], t[k], step);
    const h = this.hips;
    h[HipsOutput.Seat] = approach(h[HipsOutput.Seat], this.seatTarget[0], step);
    this.finishHips();
  }

  /** Compute the targets and set every weight (and the seat) to its target at once. */
  snap(input: LimbWeightsInput): void {
    this.computeTargets(input);
    this.weights.set(this.targets);
    this.hips[HipsOutput.Seat] = this.seatTarget[0];
    this.finishHips();
  }

  /** Every weight, target, condition and the seat back to 0 (as constructed). */
  reset(): void {
    this.weights.fill(0);
    this.targets.fill(0);
    this.conditions.fill(0);
    this.hips.fill(0);
    this.seatTarget[0] = 0;
  }

  /**
   * Everything `update` carries from the past (for hot reload): the settings, the smoothed weights and
   * seat, and this frame's targets, conditions and nearest props (the hub reads the nearest chair slot
   * before the next update). Plain numbers, possibly Infinity (no prop near): the hub's state encodes them.
   */
  exportState(): LimbWeightsState {
    const s = this.current;
    const ramp = (r: Ramp) => ({ near: r.near, far: r.far });
    return {
      settings: {
        ...s,
        handToHand: ramp(s.handToHand),
        propDistance: ramp(s.propDistance),
        seatedFootDistance: ramp(s.seatedFootDistance),
        footHeight: ramp(s.footHeight),
        chairDistance: ramp(s.chairDistance),
        hipsHeight: ramp(s.hipsHeight),
      },
      weights: Array.from(this.weights),
      targets: Array.from(this.targets),
      conditions: Array.from(this.conditions),
      hips: Array.from(this.hips),
      nearestDistance: Array.from(this.nearestDistance),
      nearestSlot: Array.from(this.nearestSlot),
      seatTarget: this.seatTarget[0],
    };
  }

  /**
   * Put back a state from {@link LimbWeights.exportState}. The settings are validated and every array
   * length checked before anything changes.
   * @throws LimbWeightsError naming the bad field.
   */
  importState(state: LimbWeightsState): void {
    if (state === null || typeof state !== 'object')
      throw new LimbWeightsError('limb weights state: need an object');
    const arrays = [
      ['weights', this.weights],
      ['targets', this.targets],
      ['conditions', this.conditions],
      ['hips', this.hips],
      ['nearestDistance', this.nearestDistance],
      ['nearestSlot', this.nearestSlot],
    ] as const;
    for (const [f, a] of arrays) {
      const v = state[f];
      if (!Array.isArray(v) || v.length !== a.length || v.some((x) => typeof x !== 'number'))
        throw new LimbWeightsError(`limb weights state.${f}: need ${a.length} numbers`);
    }
    if (typeof state.seatTarget !== 'number')
      throw new LimbWeightsError('limb weights state.seatTarget: need a number');
    const next = { ...defaultLimbWeightSettings(), ...state.settings };
    validateLimbWeightSettings(next);
    this.configure(next);
    for (const [f, a] of arrays) a.set(state[f]);
    this.seatTarget[0] = state.seatTarget;
  }

  private finishHips(): void {
    const h = this.hips;
    h[HipsOutput.Correction] = this.weights[Limb.Hips];
    h[HipsOutput.SeatOffset] = h[HipsOutput.Seat] * this.current.chairSeatOffset;
  }

  private computeTargets(input: LimbWeightsInput): void {
    const j = input.joints;
    if (!j || j.length < 15) {
      throw new LimbWeightsError(`update: input.joints: need a Float64Array(15), got length ${j?.length}`);
    }
    if (!input.floor || input.floor.length < 1) {
      throw new LimbWeightsError('update: input.floor: need a Float64Array(1) holding the floor height');
    }
    const scale = input.scale ? input.scale[0] : 1;
    if (!(scale > 0 && scale < Number.POSITIVE_INFINITY)) {
      throw new LimbWeightsError(
        `update: input.scale[0] is ${scale}: need the body scale, a finite number > 0 (avatar metres per performer metre)`,
      );
    }
    const inv = 1 / scale;
    const s = this.current;
    const c = this.conditions;
    const floor = input.floor[0];
    const props = input.props;

    // Arms: hand to hand, nearest prop; maximum.
    const hx = j[0] - j[3];
    const hy = j[1] - j[4];
    const hz = j[2] - j[5];
    c[LimbCondition.HandToHand] = closeness(
      Math.sqrt(hx * hx + hy * hy + hz * hz) * inv,
      s.handToHand.near,
      s.handToHand.far,
    );
    this.nearestProp(props, 0, j);
    this.nearestProp(props, 1, j);
    const nd = this.nearestDistance;
    c[LimbCondition.LeftProp] = closeness(nd[0] * inv, s.propDistance.near, s.propDistance.far);
    c[LimbCondition.RightProp] = closeness(nd[1] * inv, s.propDistance.near, s.propDistance.far);
    const t = this.targets;
    t[Limb.LeftArm] = s.leftArmForcedOff
      ? 0
      : Math.max(c[LimbCondition.HandToHand], c[LimbCondition.LeftProp]);
    t[Limb.RightArm] = s.rightArmForcedOff
      ? 0
      : Math.max(c[LimbCondition.HandToHand], c[LimbCondition.RightProp]);

    // Chair near the hips: the seat amount.
    this.nearestChair(props, j);
    const seat = closeness(nd[2] * inv, s.chairDistance.near, s.chairDistance.far);
    this.seatTarget[0] = seat;

    // Legs: seated foot distance, foot height; minimum.
    const sf = s.seatedFootDistance;
    const fh = s.footHeight;
    for (let side = 0; side < 2; side++) {
      const o = side === 0 ? WeightJoint.LeftFoot : WeightJoint.RightFoot;
      const dx = j[o] - j[12];
      const dz = j[o + 2] - j[14];
      const seated = 1 - seat * closeness(Math.sqrt(dx * dx + dz * dz) * inv, sf.near, sf.far);
      const height = closeness((j[o + 1] - floor) * inv, fh.near, fh.far);
      c[LimbCondition.LeftSeatedFoot + side] = seated;
      c[LimbCondition.LeftFootHeight + side] = height;
      t[Limb.LeftLeg + side] = Math.min(seated, height);
    }

    // Hips: chair, hips height; minimum.
    c[LimbCondition.Chair] = 1 - seat;
    c[LimbCondition.HipsHeight] = 1 - closeness((j[13] - floor) * inv, s.hipsHeight.near, s.hipsHeight.far);
    t[Limb.Hips] = Math.min(c[LimbCondition.Chair], c[LimbCondition.HipsHeight]);
  }

  /** Nearest Object/Hand prop not attached to this hand (`side` 0 left, 1 right) -> nearestDistance/Slot[side]. */
  private nearestProp(props: PropWorld | null, side: number, j: Float64Array): void {
    let best = Number.POSITIVE_INFINITY;
    let slot = -1;
    if (props !== null) {
      const o = 3 * side;
      const own = side === 0 ? PropPoint.LeftHand : PropPoint.RightHand;
      const types = props.types;
      const pos = props.positions;
      const att = props.attachedPoint;
      for (let i = 0; i < props.count; i++) {
        const ty = types[i];
        if ((ty !== PropType.Object && ty !== PropType.Hand) || att[i] === own) continue;
        const dx = pos[3 * i] - j[o];
        const dy = pos[3 * i + 1] - j[o + 1];
        const dz = pos[3 * i + 2] - j[o + 2];
        const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (d < best) {
          best = d;
          slot = i;
        }
      }
    }
    this.nearestDistance[side] = best;
    this.nearestSlot[side] = slot;
  }

  /** Nearest free (not attached: a carried chair is no seat) Chair prop to the hips -> index 2. */
  private nearestChair(props: PropWorld | null, j: Float64Array): void {
    let best = Number.POSITIVE_INFINITY;
    let slot = -1;
    if (props !== null) {
      const pos = props.positions;
      for (let i = 0; i < props.count; i++) {
        if (props.types[i] !== PropType.Chair || props.attachedPoint[i] >= 0) continue;
        const dx = pos[3 * i] - j[12];
        const dy = pos[3 * i + 1] - j[13];
        const dz = pos[3 * i + 2] - j[14];
        const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (d < best) {
          best = d;
          slot = i;
        }
      }
    }
    this.nearestDistance[2] = best;
    this.nearestSlot[2] = slot;
  }
}
