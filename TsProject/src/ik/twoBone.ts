/**
 * What the arm and leg solvers share: limbs, goals, validation, and applying a solved limb to a world
 * pose (bone swings blended by the position weight, end rotation blended by the rotation weight).
 *
 * Pose representation (the live hub's): a {@link Skeleton} and its current WORLD pose as flat arrays,
 * `W` (`Float64Array(4n)`, world rotations `[x, y, z, w]`) and `P` (`Float64Array(3n)`, world
 * positions, metres), in the project frame (right-handed, Y up, the character faces +Z, its left is
 * +X). A solver reads its limb's current (forward-kinematics) pose from `W`/`P` and writes the world
 * rotations of `upper`, `lower` and `end` and the world positions of `lower` and `end`; the caller
 * recomputes every other bone below `upper` afterwards (helper bones between the limb bones keep their
 * local transforms, so they move rigidly with their parent: the positions written here are exactly
 * where that recomputation puts `lower` and `end`).
 */
import { HumanBodyBones as H, isAncestor, qmul, type Skeleton, vrotate } from '../core';
import { copy3, fromToVec, scaleRotation, slerpTo, sub3 } from './kernels';

const m_sqrt = Math.sqrt;

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
/** FK positions of upper, lower, end. */
export const S = 0;
export const E0 = 3;
export const H0 = 6;
/** Solved (full-weight) positions of lower and end. */
export const EN = 9;
export const HN = 12;
/** Unit direction root -> target. */
export const U = 15;
/** Unit bend direction (perpendicular to U). */
export const N = 18;
/** Temporaries. */
export const T1 = 21;
export const T2 = 24;
export const T3 = 27;
export const T4 = 30;
/** State: last frame's root -> target direction and bend direction. */
export const PREV_DIR = 33;
export const PREV_BEND = 36;
/** State (legs): last frame's source hip -> ankle direction. */
export const PREV_SRC = 39;
/** Quaternions. */
export const Q1 = 44;
export const Q2 = 48;
/** Scalars: bend fallback distance (metres), interpolation factor, two fixed fallback radii. */
export const K_FALLOFF = 52;
export const K_T = 53;
export const K_UNIT_FALLOFF = 54;
export const K_HALF = 55;
/** Scalars: chain length L1 + L2 this frame, distance root -> target this frame (metres). */
export const K_CHAIN = 56;
export const K_DIST = 57;
/** Arms: the calibrated bend direction in the frame bone's frame. */
export const BEND_LOCAL = 58;
/** Scalar: bend-goal weight (legs). */
export const K_WB = 61;
/** Scalar: length below which a vector counts as zero this frame (1e-12 of the chain length). */
export const K_EPS = 62;
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
    this.v[PREV_DIR + 1] = -1;
    this.v[PREV_SRC + 1] = -1;
    this.v[PREV_BEND + 2] = 1;
    this.v[K_UNIT_FALLOFF] = 0.25;
    this.v[K_HALF] = 0.5;
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
   * Write the solved limb: the upper bone is turned by the shortest-arc rotation `q1` taking its FK
   * segment direction `E0 - S` to the solved one `EN - S`, the lower bone by `q2` taking `H0 - E0` to
   * `HN - EN` (so each keeps its twist about its segment), each scaled to `slerp(identity, q, wp)`
   * (FK -> IK slerp, shortest path); `W[upper] = q1 W[upper]`, `W[lower] = q2 W[lower]`,
   * `P[lower] = S + q1 (E0 - S)`, `P[end] = P[lower] + q2 (H0 - E0)`. The end bone's world rotation is
   * left for {@link blendEndRotation}. Expects `v[K_T] = wp`.
   */
  protected applyPositions(W: Float64Array, P: Float64Array): void {
    const v = this.v;
    const wp = v[K_T];
    // upper
    sub3(v, T1, E0, S);
    sub3(v, T2, EN, S);
    fromToVec(v, Q1, T1, T2);
    if (wp < 1) scaleRotation(v, Q1, K_T);
    const ou = 4 * this.upper;
    qmul(W, ou, v, Q1, W, ou);
    vrotate(v, T3, v, Q1, v, T1);
    const ol = 3 * this.lower;
    P[ol] = v[S] + v[T3];
    P[ol + 1] = v[S + 1] + v[T3 + 1];
    P[ol + 2] = v[S + 2] + v[T3 + 2];
    // lower
    sub3(v, T1, H0, E0);
    sub3(v, T2, HN, EN);
    fromToVec(v, Q2, T1, T2);
    if (wp < 1) scaleRotation(v, Q2, K_T);
    const oq = 4 * this.lower;
    qmul(W, oq, v, Q2, W, oq);
    vrotate(v, T3, v, Q2, v, T1);
    const oe = 3 * this.end;
    P[oe] = P[ol] + v[T3];
    P[oe + 1] = P[ol + 1] + v[T3 + 1];
    P[oe + 2] = P[ol + 2] + v[T3 + 2];
  }

  /**
   * End bone world rotation: `W[end] = slerp(W[end], targetRotation, wr)` (shortest path); weight 0
   * leaves it as is, weight 1 copies `targetRotation` exactly. A non-finite target rotation is ignored.
   */
  protected blendEndRotation(W: Float64Array, goal: LimbGoal): void {
    const v = this.v;
    let wr = goal.weights[1];
    if (!(wr > 0)) return;
    const r = goal.targetRotation;
    if (!(r[0] - r[0] === 0 && r[1] - r[1] === 0 && r[2] - r[2] === 0 && r[3] - r[3] === 0)) return;
    if (wr > 1) wr = 1;
    v[K_T] = wr;
    slerpTo(W, 4 * this.end, W, 4 * this.end, r, 0, v, K_T);
  }

  /** Remember this frame's direction and bend for the next frame. */
  protected keepState(): void {
    const v = this.v;
    copy3(v, PREV_DIR, v, U);
    copy3(v, PREV_BEND, v, N);
  }

  /**
   * Unit direction from the limb root `v[S]` to `target` into `v[U]`; when the target is at the root
   * (closer than 1e-9 of the chain length) the last frame's direction is kept and `report.targetAtRoot`
   * set. Robust for any finite target (components are scaled by their largest magnitude first, so
   * 1e200 m does not overflow). Reads the chain length from `v[K_CHAIN]`, writes the distance to
   * `v[K_DIST]`.
   */
  protected targetDirection(target: Float64Array): void {
    const v = this.v;
    const dx = target[0] - v[S];
    const dy = target[1] - v[S + 1];
    const dz = target[2] - v[S + 2];
    let m = dx < 0 ? -dx : dx;
    const ay = dy < 0 ? -dy : dy;
    const az = dz < 0 ? -dz : dz;
    if (ay > m) m = ay;
    if (az > m) m = az;
    if (m > 0) {
      const x = dx / m;
      const y = dy / m;
      const z = dz / m;
      const n = m_sqrt(x * x + y * y + z * z);
      const d = m * n;
      v[K_DIST] = d;
      if (d > 1e-9 * v[K_CHAIN]) {
        v[U] = x / n;
        v[U + 1] = y / n;
        v[U + 2] = z / n;
        this.report.targetAtRoot = false;
        return;
      }
    } else {
      v[K_DIST] = 0;
    }
    copy3(v, U, v, PREV_DIR);
    this.report.targetAtRoot = true;
  }
}

/** True when all three values at `a[0..2]` are finite. */
export function finite3(a: Float64Array): boolean {
  return a[0] - a[0] === 0 && a[1] - a[1] === 0 && a[2] - a[2] === 0;
}

/** True when the three values at `v[o..o+2]` are finite. */
export function finite3v(v: Float64Array, o: number): boolean {
  return v[o] - v[o] === 0 && v[o + 1] - v[o + 1] === 0 && v[o + 2] - v[o + 2] === 0;
}
