/**
 * What the arm and leg solvers share: limbs, goals, validation, calibration, and blending the end
 * bone's rotation.
 *
 * Pose representation (the live hub's): a {@link Skeleton} and its current WORLD pose as flat arrays,
 * `W` (`Float64Array(4n)`, world rotations `[x, y, z, w]`) and `P` (`Float64Array(3n)`, world
 * positions, metres), in the project frame (right-handed, Y up, the character faces +Z, its left is
 * +X). A solver reads its limb's current (forward-kinematics) pose from `W`/`P` and writes the world
 * rotations of `upper`, `lower` and `end` and the world positions of `lower` and `end`; the caller
 * recomputes every other bone below `upper` afterwards (helper bones between the limb bones keep their
 * local transforms, so they move rigidly with their parent: the positions written here are exactly
 * where that recomputation puts `lower` and `end`).
 *
 * Writing (both solvers): with the solved (full-weight) joint positions, the upper bone turns by the
 * shortest-arc rotation `q1` taking its FK segment `lower - upper` to the solved one, the lower bone by
 * `q2` taking `end - lower` to the solved one (so each keeps its twist about its segment), each scaled
 * to `slerp(identity, q, wp)` (FK -> IK, shortest path, `wp` the position weight clamped to 1):
 * `W[upper] = q1 W[upper]`, `W[lower] = q2 W[lower]`, `P[lower] = P[upper] + q1 (lower - upper)`,
 * `P[end] = P[lower] + q2 (end - lower)` (FK segments). The end bone's world rotation is then blended
 * FK -> target by the rotation weight ({@link TwoBoneIK.blendEndRotation}).
 *
 * Interpreter cost: the live hub must also run without a JIT (PuerTS on phones, `node --jitless`),
 * where each function call, array access and property load costs more than the arithmetic it serves
 * and every arithmetic result is a new heap number. So each `solve` is one function with its values in
 * local variables (a few temporaries reused, to keep the interpreter's register file small), reading
 * each input once and writing each output once; the scratch array and the kernels of kernels.ts serve
 * calibration and the rare degenerate cases only (opposite vectors, T-pose direction along the limb).
 * Under a JIT the same code is also faster (bench/ikBench.ts).
 *
 * Shortest rotation as two reflections: for unit f and u (not opposite) the shortest rotation R taking
 * f to u is the reflection in the plane normal to f followed by the one in the plane normal to
 * p = f + u (two reflections compose to the rotation about the planes' common line by twice the angle
 * between them: https://en.wikipedia.org/wiki/Cartan%E2%80%93Dieudonn%C3%A9_theorem; reflection
 * H_m x = x - 2 (m . x)/(m . m) m, https://en.wikipedia.org/wiki/Householder_transformation). Since
 * H_p f = -u: R x = H_p H_f x = H_p x + 2 (f . x) u, and R e = H_p e for e perpendicular to f. The
 * solvers carry vectors with it instead of building the quaternion (fewer operations, as accurate:
 * the error grows as 1/|p| near opposite f and u, as the quaternion's does); exactly opposite
 * (|p|^2 <= 2e-14) they use the kernels' half turn (`fromToVec`).
 */
import { HumanBodyBones as H, isAncestor, type Skeleton } from '../core';
import { copy3, sub3 } from './kernels';

const { atan2: m_atan2, sin: m_sin, sqrt: m_sqrt } = Math;

/** Thrown for a limb or goal that cannot be solved as given; the message names the bone or field. */
export class IKError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IKError';
  }
}

/** A two-bone limb: bone indices into the skeleton. */
export interface Limb {
  /** Upper arm or thigh. */
  upper: number;
  /** Forearm or shin; a descendant of `upper` (helper bones may lie between). */
  lower: number;
  /** Hand or foot; a descendant of `lower`. */
  end: number;
}

/** The four IK limbs. */
export type LimbName = 'LeftArm' | 'RightArm' | 'LeftLeg' | 'RightLeg';

const LIMB_BONES: Record<LimbName, [number, number, number]> = {
  LeftArm: [H.LeftUpperArm, H.LeftLowerArm, H.LeftHand],
  RightArm: [H.RightUpperArm, H.RightLowerArm, H.RightHand],
  LeftLeg: [H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot],
  RightLeg: [H.RightUpperLeg, H.RightLowerLeg, H.RightFoot],
};

/**
 * The limb's bones from the skeleton's humanoid map (e.g. `LeftArm`: LeftUpperArm, LeftLowerArm,
 * LeftHand). Set-up time.
 * @throws IKError naming the limb and the missing HumanBodyBones name.
 */
export function humanoidLimb(skeleton: Skeleton, limb: LimbName): Limb {
  const names = ['upper', 'lower', 'end'] as const;
  const out = { upper: -1, lower: -1, end: -1 };
  LIMB_BONES[limb].forEach((h, k) => {
    const b = skeleton.humanoid[h];
    if (b < 0) {
      const name = Object.keys(H).find((n) => H[n as keyof typeof H] === h);
      throw new IKError(`${limb}: the skeleton has no ${name} in its humanoid map`);
    }
    out[names[k]] = b;
  });
  return out;
}

/**
 * Goal of one limb for one frame. All arrays are owned by the goal; the hub writes into them each frame
 * (no allocation).
 */
export class LimbGoal {
  /** World position the end bone (hand/foot joint) should reach, metres. `Float64Array(3)`. */
  readonly targetPosition = new Float64Array(3);
  /** World rotation the end bone should take, unit quaternion `[x, y, z, w]`. `Float64Array(4)`. */
  readonly targetRotation = new Float64Array([0, 0, 0, 1]);
  /**
   * World position the elbow/knee should bend toward (a "pole"), metres. Only its component
   * perpendicular to the limb root -> target line counts. `Float64Array(3)`.
   */
  readonly bendGoal = new Float64Array(3);
  /**
   * `[position, rotation, bendGoal]` weights in [0, 1] (values outside are clamped, NaN counts as 0):
   * position 0 leaves the limb's bones as they are (bit for bit); rotation blends the end bone's world
   * rotation from its FK value to `targetRotation`; bendGoal blends the bend direction from the FK
   * (or source) bend to the bend goal's side. `Float64Array(3)`.
   */
  readonly weights = new Float64Array([1, 1, 0]);
}

// Scratch layout shared by the solvers (offsets into `TwoBoneIK.v`).
/** Calibration: FK positions of upper, lower, end. */
export const S = 0;
export const E0 = 3;
export const H0 = 6;
/** Unit direction root -> target (rare paths). */
export const U = 15;
/** Temporaries. */
export const T1 = 21;
export const T2 = 24;
export const T3 = 27;
/** State: last frame's root -> target direction and bend direction. */
export const PREV_DIR = 33;
export const PREV_BEND = 36;
/** State (legs): last frame's source hip -> ankle direction. */
export const PREV_SRC = 39;
/** Quaternion (rare paths). */
export const Q1 = 44;
/** Scalars: interpolation factor (rare paths), the arm's T-pose fallback radius 0.25. */
export const K_T = 53;
export const K_UNIT_FALLOFF = 54;
/** Arms: the calibrated bend direction in the frame bone's frame. */
export const BEND_LOCAL = 58;
export const SCRATCH_SIZE = 64;

/** Per-solve figures, overwritten by each `solve` (read them after the call; nothing is allocated). */
export interface SolveReport {
  /** True when the position solve ran this frame (position weight > 0 and finite inputs). */
  solved: boolean;
  /** True when an input of the position solve was not finite, so the limb was left as it was. */
  skippedNonFinite: boolean;
  /** True when the target was at the limb root, so last frame's direction and bend were kept. */
  targetAtRoot: boolean;
}

/**
 * A solver's memory between frames (for hot reload: `exportState` / `importState`): last frame's
 * root -> target direction, bend direction and (legs) source hip -> ankle direction, unit vectors in
 * the world frame; `fresh` (arms) true until the first solve after `calibrate`. Plain numbers (JSON-able
 * when finite; the hub's state encodes non-finite values).
 */
export interface TwoBoneIKState {
  prevDirection: [number, number, number];
  prevBend: [number, number, number];
  prevSource: [number, number, number];
  fresh: boolean;
}

/**
 * Base of {@link ArmIK} and {@link LegIK}: the limb, its calibration, the per-solver state and scratch,
 * and the final step that turns solved joint positions into bone rotations.
 */
export abstract class TwoBoneIK {
  readonly skeleton: Skeleton;
  readonly upper: number;
  readonly lower: number;
  readonly end: number;
  /** Upper bone length (upper -> lower joint distance) in the calibration pose, metres. */
  upperLength = 0;
  /** Lower bone length (lower -> end joint distance) in the calibration pose, metres. */
  lowerLength = 0;
  /** What the last `solve` did. */
  readonly report: SolveReport = { solved: false, skippedNonFinite: false, targetAtRoot: false };
  protected calibrated = false;
  /** Scratch and state (layout: the offset constants above). */
  protected readonly v = new Float64Array(SCRATCH_SIZE);
  /** Expected `W.length` (4n) and `P.length` (3n). */
  protected readonly rotationsLength: number;
  protected readonly positionsLength: number;

  /**
   * @param label names the limb in error messages (e.g. 'left arm').
   * @throws IKError when a bone index is out of range, or `lower` is not a descendant of `upper`, or
   * `end` not of `lower`.
   */
  protected constructor(skeleton: Skeleton, limb: Limb, label: string) {
    const n = skeleton.boneCount;
    for (const k of ['upper', 'lower', 'end'] as const) {
      const b = limb[k];
      if (!Number.isInteger(b) || b < 0 || b >= n) {
        throw new IKError(`${label}: ${k} bone ${b} is not a bone index (skeleton has ${n} bones)`);
      }
    }
    const nm = (b: number) => `'${skeleton.names[b]}'`;
    if (limb.lower === limb.upper || !isAncestor(skeleton, limb.upper, limb.lower)) {
      throw new IKError(
        `${label}: lower bone ${nm(limb.lower)} is not a descendant of upper bone ${nm(limb.upper)}`,
      );
    }
    if (limb.end === limb.lower || !isAncestor(skeleton, limb.lower, limb.end)) {
      throw new IKError(
        `${label}: end bone ${nm(limb.end)} is not a descendant of lower bone ${nm(limb.lower)}`,
      );
    }
    this.skeleton = skeleton;
    this.upper = limb.upper;
    this.lower = limb.lower;
    this.end = limb.end;
    this.rotationsLength = 4 * n;
    this.positionsLength = 3 * n;
    this.v[PREV_DIR + 1] = -1;
    this.v[PREV_SRC + 1] = -1;
    this.v[PREV_BEND + 2] = 1;
    this.v[K_UNIT_FALLOFF] = 0.25;
  }

  /**
   * Bone lengths and the limb's starting state from a reference pose `W` (`Float64Array(4n)`), `P`
   * (`Float64Array(3n)`, metres). The lengths are reported; `solve` measures them again each frame from
   * `P` (so an avatar scale applied after calibration needs no recalibration).
   * @throws IKError when a bone of the limb has zero length, the pose holds a non-finite value or a
   * buffer has the wrong length.
   */
  protected calibrateLimb(W: Float64Array, P: Float64Array, label: string): void {
    this.checkPose(W, P, label);
    const v = this.v;
    const nm = (b: number) => `'${this.skeleton.names[b]}'`;
    for (const b of [this.upper, this.lower, this.end]) {
      for (let k = 0; k < 3; k++) {
        if (!Number.isFinite(P[3 * b + k])) throw new IKError(`${label}: position of ${nm(b)} is not finite`);
      }
      for (let k = 0; k < 4; k++) {
        if (!Number.isFinite(W[4 * b + k])) throw new IKError(`${label}: rotation of ${nm(b)} is not finite`);
      }
    }
    this.readLimb(P);
    sub3(v, T1, E0, S);
    sub3(v, T2, H0, E0);
    this.upperLength = Math.hypot(v[T1], v[T1 + 1], v[T1 + 2]);
    this.lowerLength = Math.hypot(v[T2], v[T2 + 1], v[T2 + 2]);
    if (!(this.upperLength > 1e-9)) throw new IKError(`${label}: ${nm(this.upper)} has zero length`);
    if (!(this.lowerLength > 1e-9)) throw new IKError(`${label}: ${nm(this.lower)} has zero length`);
    sub3(v, T3, H0, S);
    const l = Math.hypot(v[T3], v[T3 + 1], v[T3 + 2]);
    if (l > 1e-9) for (let k = 0; k < 3; k++) v[PREV_DIR + k] = v[T3 + k] / l;
    this.calibrated = true;
  }

  /**
   * The memory `solve` carries from frame to frame ({@link TwoBoneIKState}); calibration data (bone
   * lengths, the arm's T-pose bend) is not included: `calibrate` recomputes it.
   */
  exportState(): TwoBoneIKState {
    const v = this.v;
    return {
      prevDirection: [v[PREV_DIR], v[PREV_DIR + 1], v[PREV_DIR + 2]],
      prevBend: [v[PREV_BEND], v[PREV_BEND + 1], v[PREV_BEND + 2]],
      prevSource: [v[PREV_SRC], v[PREV_SRC + 1], v[PREV_SRC + 2]],
      fresh: this.isFresh(),
    };
  }

  /**
   * Put back memory from {@link TwoBoneIK.exportState} (after `calibrate`, which resets it).
   * @throws IKError when a field is not three numbers or `fresh` not a boolean.
   */
  importState(state: TwoBoneIKState): void {
    const fields = [
      ['prevDirection', PREV_DIR],
      ['prevBend', PREV_BEND],
      ['prevSource', PREV_SRC],
    ] as const;
    if (state === null || typeof state !== 'object') throw new IKError('IK state: need an object');
    for (const [f] of fields) {
      const a = state[f];
      if (!Array.isArray(a) || a.length !== 3 || a.some((x) => typeof x !== 'number'))
        throw new IKError(`IK state.${f}: need 3 numbers`);
    }
    if (typeof state.fresh !== 'boolean') throw new IKError('IK state.fresh: need true or false');
    for (const [f, o] of fields) for (let k = 0; k < 3; k++) this.v[o + k] = state[f][k];
    this.setFresh(state.fresh);
  }

  /** Arms: true until the first solve after calibrate (legs: always false). */
  protected isFresh(): boolean {
    return false;
  }

  protected setFresh(_fresh: boolean): void {}

  /**
   * @throws IKError when `W` is not `4n` long or `P` not `3n` (n = the skeleton's bone count).
   */
  protected checkPose(W: Float64Array, P: Float64Array, label: string): void {
    const n = this.skeleton.boneCount;
    if (W.length !== 4 * n)
      throw new IKError(`${label}: W has length ${W.length}, expected ${4 * n} (4 x ${n} bones)`);
    if (P.length !== 3 * n)
      throw new IKError(`${label}: P has length ${P.length}, expected ${3 * n} (3 x ${n} bones)`);
  }

  /** Copy the FK positions of upper, lower and end from `P` into the scratch. */
  protected readLimb(P: Float64Array): void {
    copy3(this.v, S, P, 3 * this.upper);
    copy3(this.v, E0, P, 3 * this.lower);
    copy3(this.v, H0, P, 3 * this.end);
  }

  /**
   * End bone world rotation: `W[end] = slerp(W[end], targetRotation, wr)` (shortest path); weight 0
   * leaves it as is, weight 1 copies `targetRotation` exactly. A non-finite target rotation is ignored.
   * Slerp `(sin((1-t)θ) a + sin(tθ) b') / sin θ` with `b' = ±b` on a's side (`a . b' >= 0`) and
   * `θ = 2 atan2(|b' - a|, |b' + a|)` (accurate at all angles), normalised (Shoemake, "Animating
   * rotation with quaternion curves", SIGGRAPH 1985); normalised linear interpolation when
   * `a . b' > 1 - 5e-13`. Written out (no kernel call: "Interpreter cost" above).
   */
  protected blendEndRotation(W: Float64Array, goal: LimbGoal): void {
    const t = goal.weights[1];
    if (!(t > 0)) return;
    const r = goal.targetRotation;
    let bx = r[0];
    let by = r[1];
    let bz = r[2];
    let bw = r[3];
    if (bx - bx + (by - by) + (bz - bz) + (bw - bw) !== 0) return;
    const o = 4 * this.end;
    if (t >= 1) {
      W[o] = bx;
      W[o + 1] = by;
      W[o + 2] = bz;
      W[o + 3] = bw;
      return;
    }
    const ax = W[o];
    const ay = W[o + 1];
    const az = W[o + 2];
    const aw = W[o + 3];
    let d = ax * bx + ay * by + az * bz + aw * bw;
    if (d < 0) {
      d = -d;
      bx = -bx;
      by = -by;
      bz = -bz;
      bw = -bw;
    }
    let k0: number;
    let k1: number;
    if (d > 1 - 5e-13) {
      k0 = 1 - t;
      k1 = t;
    } else {
      const ex = bx - ax;
      const ey = by - ay;
      const ez = bz - az;
      const ew = bw - aw;
      const fx = bx + ax;
      const fy = by + ay;
      const fz = bz + az;
      const fw = bw + aw;
      // θ from the half-chord lengths
      const th =
        2 *
        m_atan2(m_sqrt(ex * ex + ey * ey + ez * ez + ew * ew), m_sqrt(fx * fx + fy * fy + fz * fz + fw * fw));
      const s = m_sin(th);
      k0 = m_sin((1 - t) * th) / s;
      k1 = m_sin(t * th) / s;
    }
    const x = k0 * ax + k1 * bx;
    const y = k0 * ay + k1 * by;
    const z = k0 * az + k1 * bz;
    const w = k0 * aw + k1 * bw;
    const n = m_sqrt(x * x + y * y + z * z + w * w);
    W[o] = x / n;
    W[o + 1] = y / n;
    W[o + 2] = z / n;
    W[o + 3] = w / n;
  }
}

/** True when the three values at `a[o..o+2]` are finite (rare paths: a solver tests a sum first). */
export function finite3(a: Float64Array, o: number): boolean {
  return a[o] - a[o] === 0 && a[o + 1] - a[o + 1] === 0 && a[o + 2] - a[o + 2] === 0;
}
