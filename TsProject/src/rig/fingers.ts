/**
 * Humanoid finger muscle model: 15 finger bones per hand (HumanBodyBones Thumb/Index/Middle/Ring/Little
 * x Proximal/Intermediate/Distal) driven by 4 muscles per finger (three curls, one spread), in the
 * style of Unity's humanoid finger muscles. Engine-free; `apply`, `measure` and `update` allocate nothing.
 *
 * Muscles, ranges, presets and value checks: see fingersTable.ts. In short, each value in [-1, 1] is an
 * angle about an axis, `v >= 0 ? v * max : -v * min` (degrees), from the canonical T-pose
 * (src/retarget/referencePose.ts: 0 = the reference-pose finger).
 *
 * Axes (computed once, from the skeleton's reference pose: world rotations and positions, canonical frame:
 * Y up, the character faces +Z, its left is +X):
 * - Hand frame. `forward` f: hand joint -> mean of the four finger roots (a finger's root is its first
 *   mapped bone); without any of the four, LowerArm -> Hand, else +X (left) / -X (right), the T-pose
 *   hand direction. `radial` r (toward the thumb side, perpendicular to f): index-most root minus
 *   little-most root of the mapped four fingers when two or more are mapped; else the thumb root's offset
 *   from the hand axis; else (one finger, no thumb) the palm is taken to face down (-Y, the usual T-pose)
 *   and r follows from it. Palm normal (pointing out of the palm) `n = side * normalize(f x r)`, side
 *   +1 left, -1 right: anatomy fixes the thumb side, so this gives the palm side whatever way the palm
 *   faces in the reference pose, mirrored between the hands.
 * - Bone direction d: reference position of the next mapped bone of the finger minus the bone's; for the
 *   last bone, its child joint farthest away (e.g. an end joint `LeftHandIndex4`); without one, the
 *   previous bone's direction.
 * - Bend (curl) axis: `c = normalize(d x n)` (perpendicular to the bone and to the palm normal); a
 *   positive rotation about it moves the bone toward the palm side on either hand. Where d is within
 *   about 11 degrees of the palm normal, `c = normalize(f x n)`.
 * - Spread axis: the palm normal, signed `s = sigma * n` so that +spread moves thumb, index and middle
 *   toward the thumb side and ring and little toward the little-finger side: sigma = side for thumb,
 *   index, middle, -side for ring, little.
 * - Thumb (our choice; Unity's thumb muscles use internal, undocumented frames): the same construction
 *   from the thumb chain's own direction, except that a thumb curl moves the bone toward
 *   `w = normalize(n - r)`, the palm side and across the palm toward the little finger at 45 degrees
 *   (opposition, as in a fist), instead of straight toward n: `c = normalize(d x w)`. Curling about the
 *   palm normal's direction alone sent a Mixamo thumb (rest already turned into the palm) 10 cm below
 *   the palm in a fist; 45 degrees lays it over the curled fingers. Its spread axis is the palm normal
 *   made perpendicular to that bend axis (`s = sigma * normalize(n - c (c . n))`), so +spread still
 *   swings the thumb away from the index finger, about (nearly) the palm normal.
 *
 * Rotation written (local, parent frame): `local = refLocal * C * S`, with `C` the rotation by the curl
 * angle about c and `S` by the spread angle about s (spread only on a finger's proximal bone), both axes
 * expressed in the bone's reference frame. Only rotations of mapped finger bones change: translations,
 * bone lengths and every other bone stay as they are.
 *
 * Measurement (MuscleData copy) inverts it: `D = inverse(refLocal) * local` is decomposed as
 * `Rc(curl) * Rs(spread) * Rt(twist)` about the orthonormal axes (c, s, t = c x s) (Euler angles in
 * that frame, curl in (-180, 180], spread in [-90, 90]); twist, and spread on intermediate/distal bones,
 * are dropped. Angles become values by the same piecewise-linear map (not clamped: a source finger bent
 * past the range reads past +-1). Exact inverse of `apply` for values whose spread angle is under 90 degrees.
 */
import {
  childrenOf,
  forwardKinematics,
  HumanBodyBones as H,
  type NumArray,
  qcopy,
  qmul,
  qmulConj,
  type Skeleton,
  vrotate,
  vrotateConj,
} from '../core';
import {
  checkCopyMode,
  checkMuscleValue,
  FINGER_MUSCLE_COUNT,
  FINGER_MUSCLE_RANGES_DEG,
  FINGER_MUSCLES,
  FINGER_NAMES,
  type FingerCopyMode,
  type FingerHand,
  type FingerMuscleName,
  type FingerName,
  FingerRigError,
  fingerIndex,
  HAND_MUSCLE_COUNT,
  handIndex,
  muscleField,
  muscleIndex,
  muscleSlot,
  presetValues,
} from './fingersTable';

export * from './fingersTable';

const { atan2: m_atan2, cos: m_cos, sin: m_sin, sqrt: m_sqrt } = Math;
const DEG = Math.PI / 180;

/**
 * What the rig needs from the skeleton's reference pose (a `ReferencePose` from
 * src/retarget/referencePose.ts fits): local rotations `4n`, world rotations `4n` and world positions `3n`
 * (metres, canonical frame) of the same pose.
 */
export interface FingerReference {
  localRotations: ArrayLike<number>;
  world: { rotations: ArrayLike<number>; positions: ArrayLike<number> };
}

/** Options of a {@link FingerRig}: the muscles' ranges (degrees) and the copy mode. */
export interface FingerRigOptions {
  /**
   * Replace default ranges (degrees), per finger and muscle, both hands: e.g.
   * `{ index: { curl1: [-30, 90] } }`. Each range needs `min < 0 < max`, finite.
   */
  rangesDeg?: Partial<Record<FingerName, Partial<Record<FingerMuscleName, readonly [number, number]>>>>;
  /** Initial copy mode (default 'none'). */
  mode?: FingerCopyMode;
}

/** Hand frame found at set-up (world, canonical frame, unit vectors), for inspection and tests. */
export interface FingerHandFrame {
  /** Hand joint -> finger roots. */
  forward: [number, number, number];
  /** Toward the thumb side, perpendicular to forward. */
  radial: [number, number, number];
  /** Out of the palm. */
  palmNormal: [number, number, number];
  /** How the radial direction was found. */
  radialFrom: 'fingers' | 'thumb' | 'palm-down fallback';
  /** Mapped finger bones on this hand (0..15). */
  boneCount: number;
}

/** The HumanBodyBones value of finger bone `k` (0 proximal, 1 intermediate, 2 distal) of a finger of a hand. */
export function fingerHumanBone(hand: FingerHand, finger: FingerName, k: number): number {
  const side = hand === 'left' ? 'Left' : 'Right';
  const f = finger[0].toUpperCase() + finger.slice(1);
  const part = ['Proximal', 'Intermediate', 'Distal'][k];
  return H[`${side}${f}${part}` as keyof typeof H];
}

// Per-frame scratch (module level; the rig is single-threaded like the rest of the runtime).
const Q = new Float64Array(4);
const D = new Float64Array(4);

/** Slots: 30 finger bones, `slot = (hand * 5 + finger) * 3 + k`. */
const SLOTS = 30;

/** What {@link FingerRig.exportState} gives. */
export interface FingerRigState {
  mode: FingerCopyMode;
  /** Left, right. */
  enabled: [boolean, boolean];
  /** 40 muscle values, storage order (fingersTable.ts). */
  muscles: number[];
}

/**
 * The finger muscle rig of one skeleton.
 *
 * Typical per-frame use by a hub: `rig.update(targetLocalRotations, sourceRig, sourceLocalRotations)`
 * after the pose copy; `update` measures the source in 'muscleData' mode and writes the enabled hands'
 * finger bones (not in 'rotation' mode). Controls (`setMuscle`, `setCurl`, `setSpread`, `applyPreset`,
 * `setHandMuscles`, `setEnabled`, `setMode`) validate their input and throw {@link FingerRigError}
 * naming the field; they are for control time, not per frame (they may allocate on error only).
 */
export class FingerRig {
  readonly skeleton: Skeleton;
  /**
   * Current muscle values, `Float64Array(40)` in storage order (fingersTable.ts). Read freely; write
   * through the setters (they validate). In 'muscleData' mode `update` overwrites the enabled hands.
   */
  readonly muscles = new Float64Array(FINGER_MUSCLE_COUNT);
  /** Muscle ranges in radians, `min` and `max` per muscle (40 each). */
  private readonly minRad = new Float64Array(FINGER_MUSCLE_COUNT);
  private readonly maxRad = new Float64Array(FINGER_MUSCLE_COUNT);
  /** Bone index per slot, -1 where unmapped. */
  private readonly bone = new Int32Array(SLOTS).fill(-1);
  /** Reference local rotation per slot (`4 * SLOTS`). */
  private readonly refLocal = new Float64Array(4 * SLOTS);
  /** Axes per slot in the bone's reference frame: c (bend), s (spread), t = c x s; 9 values per slot. */
  private readonly axes = new Float64Array(9 * SLOTS);
  private readonly enabled = new Uint8Array([1, 1]);
  private readonly fingered = new Uint8Array(2);
  private readonly frames: FingerHandFrame[] = [];
  private readonly scratchMuscles = new Float64Array(FINGER_MUSCLE_COUNT);
  /**
   * The local rotation `refLocal * C * S` last written per slot (`4 * SLOTS`) and the muscle values it
   * was computed from (NaN: none yet). Ranges, axes and reference are fixed at construction, so a
   * finger whose four muscles are unchanged gets its cached rotations copied: no trigonometry per frame
   * while the controls hold still (and without a JIT that is most of the finger cost).
   */
  private readonly cachedLocal = new Float64Array(4 * SLOTS);
  private readonly cachedMuscles = new Float64Array(FINGER_MUSCLE_COUNT).fill(Number.NaN);
  private copyMode: FingerCopyMode = 'none';
  private serial = 0;

  /**
   * @param skeleton the skeleton whose finger bones are driven (its humanoid map names them).
   * @param reference its reference pose (`ReferencePose`), with `localRotations` `4n`, `world.rotations`
   * `4n`, `world.positions` `3n`.
   * @throws FingerRigError on wrong array lengths, non-finite reference data, or a bad range option.
   */
  constructor(skeleton: Skeleton, reference: FingerReference, options: FingerRigOptions = {}) {
    const n = skeleton.boneCount;
    const lr = reference?.localRotations;
    const wr = reference?.world?.rotations;
    const wp = reference?.world?.positions;
    for (const [field, arr, want] of [
      ['localRotations', lr, 4 * n],
      ['world.rotations', wr, 4 * n],
      ['world.positions', wp, 3 * n],
    ] as const) {
      if (!arr || arr.length !== want)
        throw new FingerRigError(
          `fingers: reference ${field} has length ${arr?.length ?? 'none'}, expected ${want} for ${n} bones`,
        );
    }
    this.skeleton = skeleton;
    this.setRanges(options.rangesDeg);
    if (options.mode !== undefined) this.copyMode = checkCopyMode(options.mode);
    const kids = childrenOf(skeleton);
    for (let h = 0; h < 2; h++) this.frames.push(this.buildHand(h, lr, wr, wp, kids));
  }

  private setRanges(over: FingerRigOptions['rangesDeg']): void {
    for (let m = 0; m < FINGER_MUSCLE_COUNT; m++) {
      const finger = FINGER_NAMES[Math.floor(m / 4) % 5];
      const muscle = FINGER_MUSCLES[m % 4];
      const given = over?.[finger]?.[muscle];
      const r = given ?? FINGER_MUSCLE_RANGES_DEG[m];
      if (given !== undefined) {
        if (given.length !== 2 || !Number.isFinite(given[0]) || !Number.isFinite(given[1]))
          throw new FingerRigError(
            `fingers: rangesDeg.${finger}.${muscle} must be [min, max], finite degrees`,
          );
        if (!(given[0] < 0 && given[1] > 0))
          throw new FingerRigError(
            `fingers: rangesDeg.${finger}.${muscle} [${given[0]}, ${given[1]}] needs min < 0 < max`,
          );
      }
      this.minRad[m] = r[0] * DEG;
      this.maxRad[m] = r[1] * DEG;
    }
  }

  /** Set up one hand: bones, hand frame, per-bone axes in bone frames. */
  private buildHand(
    h: number,
    lr: ArrayLike<number>,
    wr: ArrayLike<number>,
    wp: ArrayLike<number>,
    kids: number[][],
  ): FingerHandFrame {
    const sk = this.skeleton;
    const m = sk.humanoid;
    const hand: FingerHand = h === 0 ? 'left' : 'right';
    const side = h === 0 ? 1 : -1;
    const prefix = h === 0 ? 'Left' : 'Right';
    const handBone = m[H[`${prefix}Hand`]];
    const pos = (b: number): number[] => [wp[3 * b], wp[3 * b + 1], wp[3 * b + 2]];
    for (let i = 0; i < wp.length; i++)
      if (!Number.isFinite(wp[i]))
        throw new FingerRigError(
          `fingers: reference world.positions[${i}] (bone '${sk.names[Math.floor(i / 3)]}') is not finite`,
        );
    let count = 0;
    const roots: (number[] | null)[] = [];
    for (let f = 0; f < 5; f++) {
      let root: number[] | null = null;
      for (let k = 0; k < 3; k++) {
        const b = handBone >= 0 ? m[fingerHumanBone(hand, FINGER_NAMES[f], k)] : -1;
        this.bone[(h * 5 + f) * 3 + k] = b;
        if (b >= 0) {
          count++;
          if (!root) root = pos(b);
        }
      }
      roots.push(root);
    }
    const frame: FingerHandFrame = {
      forward: [side, 0, 0],
      radial: [0, 0, 1],
      palmNormal: [0, -1, 0],
      radialFrom: 'palm-down fallback',
      boneCount: count,
    };
    this.fingered[h] = count > 0 ? 1 : 0;
    if (count === 0) return frame;

    const hp = pos(handBone);
    // forward
    let fwd = [0, 0, 0];
    let nRoots = 0;
    for (let f = 1; f < 5; f++) {
      const r = roots[f];
      if (r) {
        fwd = add(fwd, sub(r, hp));
        nRoots++;
      }
    }
    const lowerArm = m[H[`${prefix}LowerArm`]];
    if (nRoots === 0 || norm(fwd) < 1e-9) fwd = lowerArm >= 0 ? sub(hp, pos(lowerArm)) : [side, 0, 0];
    if (norm(fwd) < 1e-9) fwd = [side, 0, 0];
    fwd = unit(fwd);
    // radial
    let radial: number[] | null = null;
    const present = [1, 2, 3, 4].filter((f) => roots[f]);
    // size scale for "degenerate" tests: hand joint to the farthest finger root
    let handSize = 1e-9;
    for (const r of roots) if (r) handSize = Math.max(handSize, norm(sub(r, hp)));
    if (present.length >= 2) {
      const across = perp(sub(roots[present[0]]!, roots[present[present.length - 1]]!), fwd);
      if (norm(across) > 0.05 * handSize) {
        radial = unit(across);
        frame.radialFrom = 'fingers';
      }
    }
    if (!radial && roots[0]) {
      const across = perp(sub(roots[0], hp), fwd);
      if (norm(across) > 0.02 * handSize) {
        radial = unit(across);
        frame.radialFrom = 'thumb';
      }
    }
    let normal: number[];
    if (radial) {
      normal = unit(scale(cross(fwd, radial), side));
    } else {
      normal = perp([0, -1, 0], fwd);
      if (norm(normal) < 1e-6) normal = perp([0, 0, -1], fwd);
      normal = unit(normal);
      radial = unit(scale(cross(normal, fwd), side));
    }
    frame.forward = fwd as [number, number, number];
    frame.radial = radial as [number, number, number];
    frame.palmNormal = normal as [number, number, number];

    // per-bone axes
    for (let f = 0; f < 5; f++) {
      const sigma = f <= 2 ? side : -side;
      let prevDir: number[] = fwd;
      for (let k = 0; k < 3; k++) {
        const slot = (h * 5 + f) * 3 + k;
        const b = this.bone[slot];
        if (b < 0) continue;
        const bp = pos(b);
        let dir: number[] | null = null;
        for (let j = k + 1; j < 3 && !dir; j++) {
          const nb = this.bone[(h * 5 + f) * 3 + j];
          if (nb >= 0 && norm(sub(pos(nb), bp)) > 1e-9) dir = unit(sub(pos(nb), bp));
        }
        if (!dir) {
          let best = 1e-9;
          for (const c of kids[b]) {
            const l = norm(sub(pos(c), bp));
            if (l > best) {
              best = l;
              dir = unit(sub(pos(c), bp));
            }
          }
        }
        if (!dir) dir = prevDir;
        prevDir = dir;
        // direction a curl moves the bone toward: the palm side; for the thumb, the palm side and across
        // the palm toward the little finger at 45 degrees (opposition)
        const flex = f === 0 ? unit(sub(normal, radial)) : normal;
        let c = cross(dir, flex);
        if (norm(c) < 0.2) c = cross(fwd, flex);
        c = unit(c);
        const sp = unit(scale(perp(normal, c), sigma));
        const t = cross(c, sp);
        // world -> bone frame: v_local = inverse(refWorld_b) * v_world
        const o = 9 * slot;
        this.axes.set(c, o);
        this.axes.set(sp, o + 3);
        this.axes.set(t, o + 6);
        for (let a = 0; a < 3; a++) vrotateConj(this.axes, o + 3 * a, wr, 4 * b, this.axes, o + 3 * a);
        // kept as given (unit quaternions expected), so muscles of 0 give back the reference exactly
        for (let q = 0; q < 4; q++) this.refLocal[4 * slot + q] = lr[4 * b + q];
        for (let q = 0; q < 4; q++)
          if (!Number.isFinite(this.refLocal[4 * slot + q]) || !Number.isFinite(wr[4 * b + q]))
            throw new FingerRigError(`fingers: reference rotation of bone '${sk.names[b]}' is not finite`);
      }
    }
    return frame;
  }

  // -------------------------------------------------------------------------------------------
  // Controls (validated; control time)

  /** The current copy mode. */
  get mode(): FingerCopyMode {
    return this.copyMode;
  }

  /**
   * Set the copy mode ('none' | 'muscleData' | 'rotation'). Leaving 'muscleData' clamps the muscles it
   * measured (unclamped) to the controls' range -1..1, as they become the controls again.
   * @throws FingerRigError on another value.
   */
  setMode(mode: FingerCopyMode): void {
    this.copyMode = checkCopyMode(mode);
    if (mode !== 'muscleData') {
      const m = this.muscles;
      for (let i = 0; i < m.length; i++) m[i] = m[i] > 1 ? 1 : m[i] < -1 ? -1 : m[i];
    }
    this.serial++;
  }

  /**
   * Incremented whenever the set of bones `apply` writes may have changed (mode, enabled hands): a
   * caller that restores bones `apply` stopped writing compares it.
   */
  get writeSerial(): number {
    return this.serial;
  }

  /** Enable or disable finger control of one hand (a disabled hand's bones are never written). */
  setEnabled(hand: FingerHand, on: boolean): void {
    const h = handIndex(hand);
    if (typeof on !== 'boolean')
      throw new FingerRigError(`fingers.${hand}.enabled: ${String(on)} is not a boolean`);
    this.enabled[h] = on ? 1 : 0;
    this.serial++;
  }

  /** Whether the fingers of that hand are driven (`setEnabled`); a disabled hand's bones are never written. */
  isEnabled(hand: FingerHand): boolean {
    return this.enabled[handIndex(hand)] === 1;
  }

  /** True when the skeleton maps at least one finger bone on that hand (otherwise control is a no-op). */
  hasFingers(hand: FingerHand): boolean {
    return this.fingered[handIndex(hand)] === 1;
  }

  /** The hand frame found at set-up (copies). */
  handFrame(hand: FingerHand): FingerHandFrame {
    const f = this.frames[handIndex(hand)];
    return {
      ...f,
      forward: [...f.forward],
      radial: [...f.radial],
      palmNormal: [...f.palmNormal],
    };
  }

  /**
   * Axes of finger bone `k` (0 proximal, 1 intermediate, 2 distal) in world space at the reference pose:
   * `bend` (curl axis), `spread`, `twist` (= bend x spread); null where the bone is unmapped.
   */
  boneAxes(
    hand: FingerHand,
    finger: FingerName,
    k: number,
    reference: FingerReference,
  ): { bend: number[]; spread: number[]; twist: number[] } | null {
    const slot = (handIndex(hand) * 5 + fingerIndex(finger)) * 3 + k;
    if (!(k === 0 || k === 1 || k === 2) || this.bone[slot] < 0) return null;
    const b = this.bone[slot];
    const out = new Float64Array(9);
    for (let a = 0; a < 3; a++)
      vrotate(out, 3 * a, reference.world.rotations, 4 * b, this.axes, 9 * slot + 3 * a);
    return { bend: [...out.subarray(0, 3)], spread: [...out.subarray(3, 6)], twist: [...out.subarray(6, 9)] };
  }

  /** Range of a muscle in degrees `[min, max]`. */
  rangeDeg(hand: FingerHand, finger: FingerName, muscle: FingerMuscleName): [number, number] {
    const m = muscleSlot(handIndex(hand), fingerIndex(finger), muscleIndex(muscle));
    return [this.minRad[m] / DEG, this.maxRad[m] / DEG];
  }

  /**
   * Set one muscle. @throws FingerRigError on an unknown hand/finger/muscle name, or a value that is not
   * a finite number in [-1, 1] (the message names the field, e.g. `fingers.left.index.curl1`).
   */
  setMuscle(hand: FingerHand, finger: FingerName, muscle: FingerMuscleName, value: number): void {
    const m = muscleSlot(handIndex(hand), fingerIndex(finger), muscleIndex(muscle));
    this.muscles[m] = checkMuscleValue(muscleField(m), value);
  }

  /** One muscle's current value in [-1, 1] (Unity's muscle convention: -1 and 1 the ends of its range). */
  getMuscle(hand: FingerHand, finger: FingerName, muscle: FingerMuscleName): number {
    return this.muscles[muscleSlot(handIndex(hand), fingerIndex(finger), muscleIndex(muscle))];
  }

  /** Set the three curl muscles of a finger to one value. @throws FingerRigError as {@link setMuscle}. */
  setCurl(hand: FingerHand, finger: FingerName, value: number): void {
    const base = muscleSlot(handIndex(hand), fingerIndex(finger), 0);
    const v = checkMuscleValue(`${hand}.${finger}.curl`, value);
    this.muscles[base] = v;
    this.muscles[base + 1] = v;
    this.muscles[base + 2] = v;
  }

  /** Set a finger's spread muscle. @throws FingerRigError as {@link setMuscle}. */
  setSpread(hand: FingerHand, finger: FingerName, value: number): void {
    this.setMuscle(hand, finger, 'spread', value);
  }

  /**
   * Set the 20 muscles of a hand (storage order: thumb..little, each curl1, curl2, curl3, spread). All
   * are checked before any is written. @throws FingerRigError on a wrong length or a bad value (named).
   */
  setHandMuscles(hand: FingerHand, values: ArrayLike<number>): void {
    const h = handIndex(hand);
    if (!values || values.length !== HAND_MUSCLE_COUNT)
      throw new FingerRigError(
        `fingers.${hand}: expected ${HAND_MUSCLE_COUNT} muscle values, got ${values?.length}`,
      );
    for (let i = 0; i < HAND_MUSCLE_COUNT; i++) checkMuscleValue(muscleField(h * 20 + i), values[i]);
    for (let i = 0; i < HAND_MUSCLE_COUNT; i++) this.muscles[h * 20 + i] = values[i];
  }

  /** Set a hand's muscles to a preset (fingersTable.ts). @throws FingerRigError on an unknown name. */
  applyPreset(hand: FingerHand, name: string): void {
    this.setHandMuscles(hand, presetValues(name));
  }

  /** The controls `update` reads (for hot reload): copy mode, enabled hands, the 40 muscle values. */
  exportState(): FingerRigState {
    return {
      mode: this.copyMode,
      enabled: [this.enabled[0] === 1, this.enabled[1] === 1],
      muscles: Array.from(this.muscles),
    };
  }

  /**
   * Put back a state from {@link FingerRig.exportState}; all checked before anything changes.
   * @throws FingerRigError naming the bad field.
   */
  importState(state: FingerRigState): void {
    if (state === null || typeof state !== 'object')
      throw new FingerRigError('fingers state: need an object');
    const mode = checkCopyMode(state.mode);
    const en = state.enabled;
    if (!Array.isArray(en) || en.length !== 2 || en.some((x) => typeof x !== 'boolean'))
      throw new FingerRigError('fingers state.enabled: need [left, right] booleans');
    const m = state.muscles;
    if (!Array.isArray(m) || m.length !== FINGER_MUSCLE_COUNT || m.some((x) => typeof x !== 'number'))
      throw new FingerRigError(`fingers state.muscles: need ${FINGER_MUSCLE_COUNT} numbers`);
    this.setMode(mode);
    this.setEnabled('left', en[0]);
    this.setEnabled('right', en[1]);
    this.muscles.set(m);
  }

  // -------------------------------------------------------------------------------------------
  // Per frame (allocation-free)

  private checkPose(field: string, arr: NumArray): void {
    if (!arr || arr.length !== 4 * this.skeleton.boneCount)
      throw new FingerRigError(
        `fingers: ${field} has length ${arr?.length}, expected ${4 * this.skeleton.boneCount} (4 per bone)`,
      );
  }

  /**
   * Write the current muscles into the enabled hands' finger bones of `localRotations` (`4n` local
   * rotations of this rig's skeleton, written in place; nothing else is touched). Does nothing in
   * 'rotation' mode, for disabled hands and for hands without finger bones. With `keptSinceLast`
   * the caller promises that `localRotations` still holds what the previous `apply` wrote into the
   * finger bones (nothing else writes them): fingers whose muscles did not change are then skipped
   * instead of copied. Allocation-free.
   * @throws FingerRigError on a wrong array length.
   */
  apply(localRotations: NumArray, keptSinceLast = false): void {
    this.checkPose('localRotations', localRotations);
    if (this.copyMode === 'rotation') return;
    for (let h = 0; h < 2; h++) {
      if (this.enabled[h] === 0 || this.fingered[h] === 0) continue;
      for (let f = 0; f < 5; f++) {
        const m0 = (h * 5 + f) * 4;
        const M = this.muscles;
        const CM = this.cachedMuscles;
        const C = this.cachedLocal;
        if (
          M[m0] === CM[m0] &&
          M[m0 + 1] === CM[m0 + 1] &&
          M[m0 + 2] === CM[m0 + 2] &&
          M[m0 + 3] === CM[m0 + 3]
        ) {
          // unchanged muscles: copy the cached rotations (or nothing, when they are still there)
          if (keptSinceLast) continue;
          for (let k = 0; k < 3; k++) {
            const slot = (h * 5 + f) * 3 + k;
            const b = this.bone[slot];
            if (b < 0) continue;
            const o4 = 4 * b;
            const s4 = 4 * slot;
            localRotations[o4] = C[s4];
            localRotations[o4 + 1] = C[s4 + 1];
            localRotations[o4 + 2] = C[s4 + 2];
            localRotations[o4 + 3] = C[s4 + 3];
          }
          continue;
        }
        CM[m0] = M[m0];
        CM[m0 + 1] = M[m0 + 1];
        CM[m0 + 2] = M[m0 + 2];
        CM[m0 + 3] = M[m0 + 3];
        for (let k = 0; k < 3; k++) {
          const slot = (h * 5 + f) * 3 + k;
          const b = this.bone[slot];
          if (b < 0) continue;
          const mc = (h * 5 + f) * 4 + k;
          const vc = this.muscles[mc];
          const curl = vc >= 0 ? vc * this.maxRad[mc] : -vc * this.minRad[mc];
          let spread = 0;
          if (k === 0) {
            const ms = mc + 3 - k;
            const vs = this.muscles[ms];
            spread = vs >= 0 ? vs * this.maxRad[ms] : -vs * this.minRad[ms];
          }
          const o = 9 * slot;
          const ax = this.axes;
          const sc = m_sin(curl / 2);
          const cw = m_cos(curl / 2);
          const cx = ax[o] * sc;
          const cy = ax[o + 1] * sc;
          const cz = ax[o + 2] * sc;
          const ss = m_sin(spread / 2);
          const sw = m_cos(spread / 2);
          const sx = ax[o + 3] * ss;
          const sy = ax[o + 4] * ss;
          const sz = ax[o + 5] * ss;
          // Q = C * S (Hamilton product)
          Q[0] = cw * sx + cx * sw + cy * sz - cz * sy;
          Q[1] = cw * sy + cy * sw + cz * sx - cx * sz;
          Q[2] = cw * sz + cz * sw + cx * sy - cy * sx;
          Q[3] = cw * sw - cx * sx - cy * sy - cz * sz;
          qmul(C, 4 * slot, this.refLocal, 4 * slot, Q, 0);
          localRotations[4 * b] = C[4 * slot];
          localRotations[4 * b + 1] = C[4 * slot + 1];
          localRotations[4 * b + 2] = C[4 * slot + 2];
          localRotations[4 * b + 3] = C[4 * slot + 3];
        }
      }
    }
  }

  /**
   * Measure this skeleton's finger muscles from a pose: `localRotations` `4n` (local rotations of this
   * rig's skeleton) -> `out` (length >= 40, storage order; Float32Array or Float64Array). Muscles of
   * unmapped bones read 0. Values are not clamped. Ignores the enable flags and the mode.
   * Allocation-free. @throws FingerRigError on wrong array lengths.
   */
  measure(localRotations: NumArray, out: NumArray): void {
    this.checkPose('localRotations', localRotations);
    if (!out || out.length < FINGER_MUSCLE_COUNT)
      throw new FingerRigError(
        `fingers: measure output has length ${out?.length}, expected >= ${FINGER_MUSCLE_COUNT}`,
      );
    for (let m = 0; m < FINGER_MUSCLE_COUNT; m++) out[m] = 0;
    const ax = this.axes;
    for (let slot = 0; slot < SLOTS; slot++) {
      const b = this.bone[slot];
      if (b < 0) continue;
      qmulConj(D, 0, this.refLocal, 4 * slot, localRotations, 4 * b);
      const o = 9 * slot;
      // vector part in the (c, s, t) basis
      const x = D[0] * ax[o] + D[1] * ax[o + 1] + D[2] * ax[o + 2];
      const y = D[0] * ax[o + 3] + D[1] * ax[o + 4] + D[2] * ax[o + 5];
      const z = D[0] * ax[o + 6] + D[1] * ax[o + 7] + D[2] * ax[o + 8];
      const w = D[3];
      const nn = x * x + y * y + z * z + w * w;
      const s2 = nn > 0 ? 2 / nn : 0;
      // R = Rx(curl) Ry(spread) Rz(twist): curl = atan2(-R12, R22), spread = atan2(R02, hypot(R00, R01))
      const r00 = 1 - s2 * (y * y + z * z);
      const r01 = s2 * (x * y - z * w);
      const r02 = s2 * (x * z + y * w);
      const r12 = s2 * (y * z - x * w);
      const r22 = 1 - s2 * (x * x + y * y);
      const curl = m_atan2(-r12, r22);
      const f5 = (slot / 3) | 0; // hand * 5 + finger
      const k = slot - 3 * f5;
      const mc = f5 * 4 + k;
      out[mc] = curl >= 0 ? curl / this.maxRad[mc] : -curl / this.minRad[mc];
      if (k === 0) {
        const spread = m_atan2(r02, m_sqrt(r00 * r00 + r01 * r01));
        const ms = f5 * 4 + 3;
        out[ms] = spread >= 0 ? spread / this.maxRad[ms] : -spread / this.minRad[ms];
      }
    }
  }

  /**
   * One frame of finger control on `localRotations` (`4n`, this skeleton, written in place), by mode:
   * 'none' writes the controls; 'muscleData' first measures `source` (another rig, on the source skeleton)
   * from `sourceLocalRotations` and takes those muscles for the enabled hands (a source without fingers
   * on a hand gives 0, the T-pose; values are copied unclamped, so the target bends by the source's angles),
   * then writes them; 'rotation' leaves the pose alone (the retargeter's
   * world-rotation copy already placed the fingers). Allocation-free.
   * @throws FingerRigError on wrong array lengths.
   */
  update(
    localRotations: NumArray,
    source?: FingerRig | null,
    sourceLocalRotations?: NumArray | null,
    keptSinceLast = false,
  ): void {
    if (this.copyMode === 'muscleData' && source && sourceLocalRotations) {
      source.measure(sourceLocalRotations, this.scratchMuscles);
      for (let h = 0; h < 2; h++) {
        if (this.enabled[h] === 0) continue;
        for (let i = h * HAND_MUSCLE_COUNT; i < (h + 1) * HAND_MUSCLE_COUNT; i++)
          this.muscles[i] = this.scratchMuscles[i];
      }
    }
    this.apply(localRotations, keptSinceLast);
  }
}

/**
 * A copy of `reference` whose bones below each Hand (fingers, and anything else parented under the
 * hands) take the skeleton's rest local rotations, with world rotations and positions recomputed (bone
 * offsets kept from the reference). For sources calibrated on a frame (a BVH whose rest is not a
 * standing pose, such as Rokoko's, is straightened from its first frame): that frame's fingers may be
 * bent, while its rest fingers are straight, and MuscleData measures from the rig's reference.
 * Set-up time (allocates).
 */
export function withRestFingers(skeleton: Skeleton, reference: FingerReference): FingerReference {
  const n = skeleton.boneCount;
  const local = Float64Array.from(reference.localRotations);
  const rot = Float64Array.from(reference.world.rotations);
  const posIn = Float64Array.from(reference.world.positions);
  const pos = Float64Array.from(posIn);
  const below = new Uint8Array(n);
  for (const hb of [skeleton.humanoid[H.LeftHand], skeleton.humanoid[H.RightHand]]) {
    if (hb < 0) continue;
    for (let i = hb + 1; i < n; i++)
      if (below[skeleton.parents[i]] || skeleton.parents[i] === hb) below[i] = 1;
  }
  const t = new Float64Array(3);
  for (let i = 0; i < n; i++) {
    if (!below[i]) continue;
    const p = skeleton.parents[i];
    // offset in the parent's frame, from the reference
    for (let k = 0; k < 3; k++) t[k] = posIn[3 * i + k] - posIn[3 * p + k];
    vrotateConj(t, 0, reference.world.rotations, 4 * p, t, 0);
    qcopy(local, 4 * i, skeleton.restRotations, 4 * i);
    qmul(rot, 4 * i, rot, 4 * p, local, 4 * i);
    vrotate(t, 0, rot, 4 * p, t, 0);
    for (let k = 0; k < 3; k++) pos[3 * i + k] = pos[3 * p + k] + t[k];
  }
  return { localRotations: local, world: { rotations: rot, positions: pos } };
}

/**
 * World rotations `4n` and positions `3n` of a pose given as local rotations `4n` and translations `3n`
 * (a convenience for callers measuring geometry). Allocates.
 */
export function fingerPoseWorld(
  skeleton: Skeleton,
  localRotations: NumArray,
  localTranslations: NumArray,
): { rotations: Float64Array; positions: Float64Array } {
  const rotations = new Float64Array(4 * skeleton.boneCount);
  const positions = new Float64Array(3 * skeleton.boneCount);
  forwardKinematics(skeleton, localRotations, localTranslations, rotations, positions);
  return { rotations, positions };
}

// ---------------------------------------------------------------------------------------------
// Small vector helpers for set-up (plain arrays; not per frame).

function sub(a: number[], b: number[]): number[] {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function add(a: number[], b: number[]): number[] {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}
function scale(a: number[], s: number): number[] {
  return [a[0] * s, a[1] * s, a[2] * s];
}
function dot(a: number[], b: number[]): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
function cross(a: number[], b: number[]): number[] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function norm(a: number[]): number {
  return Math.sqrt(dot(a, a));
}
function unit(a: number[]): number[] {
  const l = norm(a);
  return l > 0 ? scale(a, 1 / l) : a;
}
/** Component of `a` perpendicular to unit `u`. */
function perp(a: number[], u: number[]): number[] {
  return sub(a, scale(u, dot(a, u)));
}
