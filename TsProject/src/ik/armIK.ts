/**
 * Two-bone arm IK: shoulder (upper arm), elbow (forearm), wrist (hand), solved in closed form with the
 * law of cosines; the elbow's side comes from the bend goal, the FK elbow, and a calibrated T-pose
 * bend direction that turns with the chest. Allocation-free per solve.
 */
import { HumanBodyBones as H, type Skeleton, vrotate, vrotateConj } from '../core';
import { copy3, fallbackDir, fromToVec, normalizeOrPerp, perp3, sub3, sub3x, unitOr } from './kernels';
import {
  BEND_LOCAL,
  E0,
  EN,
  finite3,
  finite3v,
  H0,
  HN,
  IKError,
  K_CHAIN,
  K_DIST,
  K_EPS,
  K_FALLOFF,
  K_HALF,
  K_T,
  K_UNIT_FALLOFF,
  type Limb,
  type LimbGoal,
  N,
  PREV_BEND,
  PREV_DIR,
  Q1,
  S,
  T1,
  T2,
  T3,
  T4,
  TwoBoneIK,
  U,
} from './twoBone';

const m_sqrt = Math.sqrt;

export interface ArmIKOptions {
  /**
   * Bone whose frame holds the calibrated T-pose bend direction (so it turns with the body), or -1 for
   * the world frame. Default: the upper arm's parent, or that bone's parent when the parent is the
   * humanoid LeftShoulder/RightShoulder (the chest: a shoulder shrug should not turn the elbow).
   */
  frameBone?: number;
  /**
   * Distance, as a fraction of the arm's length (upper + lower), below which a bend direction (the
   * bend goal's offset from the shoulder -> target line, or the FK elbow's from the FK shoulder -> hand
   * line) starts handing over
   * smoothly to the T-pose bend direction; it is fully replaced at distance 0. Default 0.1.
   */
  bendFalloff?: number;
}

/**
 * Default T-pose bend direction for arms, world frame of a calibration pose facing +Z: back and down,
 * `normalize(0, -1, -1)`. Elbows point back when the hand reaches forward or up, and down when it
 * reaches backward; the direction is only used where the bend goal and the FK elbow give none.
 */
export const DEFAULT_ARM_BEND: readonly number[] = [0, -Math.SQRT1_2, -Math.SQRT1_2];

/**
 * Two-bone IK for an arm. `calibrate` once on a reference pose, then `solve` each frame.
 *
 * Elbow: with `L1`, `L2` the upper/lower bone lengths (measured from `P` each frame), `S` the shoulder
 * (upper joint), `u` the unit direction S -> target and `D` the distance clamped to the reachable
 * range `[|L1 - L2|, L1 + L2]`, the law of cosines
 * (`L2^2 = L1^2 + D^2 - 2 L1 D cos(alpha)`, https://en.wikipedia.org/wiki/Law_of_cosines) gives the
 * elbow's distance along `u`, `x = L1 cos(alpha) = (L1^2 - L2^2 + D^2) / (2 D)`, and off the line,
 * `h = sqrt(L1^2 - x^2)`: elbow `E = S + x u + h n`, hand `S + D u`. A target out of reach (farther than
 * `L1 + L2`, or closer than `|L1 - L2|`) gives the nearest reachable point on the ray S -> target: a
 * straight arm pointing at it, or the arm folded; never NaN.
 *
 * Bend direction `n` (unit, perpendicular to `u`):
 * - `goalDir`: the bend goal's component perpendicular to the S -> target line, `g - (g.u) u` with
 *   `g = bendGoal - S`; `fkDir`: the FK pose's own bend, the FK elbow's offset from the FK shoulder ->
 *   hand line, `e - (e.f) f` with `e = E_fk - S`, `f = (H_fk - S)/|H_fk - S|`, carried to the new line
 *   by the shortest rotation taking `f` to `u`;
 * - each hands over smoothly to the T-pose direction `c` (the calibrated bend direction carried by the
 *   frame bone, made perpendicular to `u`) as its length `l` falls below `r = bendFalloff (L1 + L2)`:
 *   `dir = normalize(a p/|p| + (1 - a) c)` with `a = smoothstep(l / r)` (C1, no switch);
 * - `n = normalize(w goalDir + (1 - w) fkDir)` with `w` the bend-goal weight (where the two nearly
 *   cancel, `|sum| < 0.5`, this hands over in the same smooth way to the T-pose direction);
 * - where `c` itself is (nearly) parallel or opposite to `u` (within about 14 degrees: `|c_perp| < 0.25`),
 *   it hands over in the same way to last frame's bend direction carried along by the shortest
 *   rotation from last frame's `u` to this one's (on the first solve after `calibrate`: `c`'s own
 *   perpendicular part), so the elbow does not flip between frames there; it turns toward `c`'s side
 *   over the following frames at a rate that grows as `u` leaves that cone. Every fixed direction has
 *   two such poles (no continuous choice of a perpendicular exists for every `u`: the hairy-ball
 *   theorem), so some memory is needed; for the default `c` they are reaching back-down and
 *   forward-up at 45 degrees, where the bend goal or the FK elbow normally decide;
 * - a target exactly at the shoulder keeps last frame's `u` and `n`.
 *
 * Writing: see {@link TwoBoneIK}: each bone turns by the shortest rotation from its FK segment to the
 * solved one (twist kept), blended FK -> IK by the position weight; the hand's world rotation is
 * blended FK -> target by the rotation weight. Position weight 0 skips the position solve (W/P are
 * left bit for bit). Non-finite targets skip the position solve for the frame (`report.skippedNonFinite`).
 */
export class ArmIK extends TwoBoneIK {
  readonly side: 'left' | 'right';
  /** See {@link ArmIKOptions.frameBone}. */
  readonly frameBone: number;
  /** See {@link ArmIKOptions.bendFalloff}. */
  bendFalloff: number;
  private readonly label: string;
  /** True until the first position solve after `calibrate`. */
  private fresh = true;

  /**
   * @param skeleton the avatar's skeleton.
   * @param limb upper arm, forearm and hand bone indices (see `humanoidLimb`).
   * @param side which arm (used in messages).
   * @throws IKError for bone indices that do not form a limb, or a bad option.
   */
  constructor(skeleton: Skeleton, limb: Limb, side: 'left' | 'right', options: ArmIKOptions = {}) {
    const label = `${side} arm`;
    super(skeleton, limb, label);
    this.side = side;
    this.label = label;
    let frame = skeleton.parents[limb.upper];
    if (
      frame >= 0 &&
      (frame === skeleton.humanoid[H.LeftShoulder] || frame === skeleton.humanoid[H.RightShoulder]) &&
      skeleton.parents[frame] >= 0
    ) {
      frame = skeleton.parents[frame];
    }
    if (options.frameBone !== undefined) {
      const f = options.frameBone;
      if (!Number.isInteger(f) || f < -1 || f >= skeleton.boneCount) {
        throw new IKError(`${label}: frameBone ${f} is not a bone index or -1`);
      }
      frame = f;
    }
    this.frameBone = frame;
    const falloff = options.bendFalloff ?? 0.1;
    if (!(falloff > 0) || !Number.isFinite(falloff)) {
      throw new IKError(`${label}: bendFalloff ${falloff}: need a positive number`);
    }
    this.bendFalloff = falloff;
  }

  /**
   * Calibrate on a reference pose (normally the T-pose): bone lengths, and the T-pose bend direction
   * stored in the frame bone's frame. `W` `Float64Array(4n)`, `P` `Float64Array(3n)` (world).
   * @param bendDirection world direction the elbow bends toward in this pose (need not be
   * perpendicular to the arm); default {@link DEFAULT_ARM_BEND} (back and down, for a pose facing +Z).
   * @throws IKError for a zero-length bone, a non-finite pose value or a zero/non-finite bendDirection.
   */
  calibrate(W: Float64Array, P: Float64Array, bendDirection: ArrayLike<number> = DEFAULT_ARM_BEND): void {
    const dl = Math.hypot(bendDirection[0], bendDirection[1], bendDirection[2]);
    if (!(dl > 1e-12) || !Number.isFinite(dl)) {
      throw new IKError(`${this.label}: bendDirection must be a finite non-zero vector`);
    }
    this.calibrateLimb(W, P, this.label);
    const v = this.v;
    for (let k = 0; k < 3; k++) v[T1 + k] = bendDirection[k] / dl;
    if (this.frameBone >= 0) vrotateConj(v, BEND_LOCAL, W, 4 * this.frameBone, v, T1);
    else copy3(v, BEND_LOCAL, v, T1);
    perp3(v, PREV_BEND, T1, PREV_DIR);
    normalizeOrPerp(v, PREV_BEND, PREV_DIR);
    this.fresh = true;
  }

  /**
   * Solve this arm for one frame, in place on `W`/`P` (see the class docs). Allocates nothing.
   * @throws IKError when called before `calibrate`, or when `W`/`P` do not have `4n`/`3n` values.
   */
  solve(W: Float64Array, P: Float64Array, goal: LimbGoal): void {
    if (!this.calibrated) throw new IKError(`${this.label}: calibrate() before solve()`);
    this.checkPose(W, P, this.label);
    const rep = this.report;
    rep.solved = false;
    rep.skippedNonFinite = false;
    rep.targetAtRoot = false;
    const wp = goal.weights[0];
    if (wp > 0) {
      this.readLimb(P);
      const v = this.v;
      const okFk = finite3v(v, S) && finite3v(v, E0) && finite3v(v, H0);
      if (okFk && finite3(goal.targetPosition) && finite3(goal.bendGoal)) {
        v[K_T] = Math.min(wp, 1);
        this.solvePosition(W, P, goal);
        rep.solved = true;
      } else {
        rep.skippedNonFinite = true;
      }
    }
    this.blendEndRotation(W, goal);
  }

  private solvePosition(W: Float64Array, P: Float64Array, goal: LimbGoal): void {
    const v = this.v;
    sub3(v, T1, E0, S);
    sub3(v, T2, H0, E0);
    const L1 = m_sqrt(v[T1] * v[T1] + v[T1 + 1] * v[T1 + 1] + v[T1 + 2] * v[T1 + 2]);
    const L2 = m_sqrt(v[T2] * v[T2] + v[T2 + 1] * v[T2 + 1] + v[T2 + 2] * v[T2 + 2]);
    const chain = L1 + L2;
    v[K_CHAIN] = chain;
    this.targetDirection(goal.targetPosition);
    if (this.report.targetAtRoot) {
      copy3(v, N, v, PREV_BEND);
    } else {
      this.bendDirection(W, goal);
    }
    // law of cosines
    let d = v[K_DIST];
    const dMin = L1 > L2 ? L1 - L2 : L2 - L1;
    let x: number;
    let h: number;
    if (d >= chain) {
      d = chain;
      x = L1;
      h = 0;
    } else {
      if (d < dMin) d = dMin;
      if (d < 1e-12 * chain) d = 1e-12 * chain;
      x = ((L1 - L2) * (L1 + L2) + d * d) / (2 * d);
      const h2 = (L1 - x) * (L1 + x);
      h = h2 > 0 ? m_sqrt(h2) : 0;
    }
    v[EN] = v[S] + x * v[U] + h * v[N];
    v[EN + 1] = v[S + 1] + x * v[U + 1] + h * v[N + 1];
    v[EN + 2] = v[S + 2] + x * v[U + 2] + h * v[N + 2];
    v[HN] = v[S] + d * v[U];
    v[HN + 1] = v[S + 1] + d * v[U + 1];
    v[HN + 2] = v[S + 2] + d * v[U + 2];
    this.applyPositions(W, P);
    this.keepState();
    this.fresh = false;
  }

  /** The unit bend direction `n` into `v[N]` (class docs). */
  private bendDirection(W: Float64Array, goal: LimbGoal): void {
    const v = this.v;
    // T-pose direction, turned with the frame bone
    if (this.frameBone >= 0) vrotate(v, T2, W, 4 * this.frameBone, v, BEND_LOCAL);
    else copy3(v, T2, v, BEND_LOCAL);
    perp3(v, T2, T2, U);
    const lc = m_sqrt(v[T2] * v[T2] + v[T2 + 1] * v[T2 + 1] + v[T2 + 2] * v[T2 + 2]);
    if (lc >= v[K_UNIT_FALLOFF]) {
      v[T2] /= lc;
      v[T2 + 1] /= lc;
      v[T2 + 2] /= lc;
    } else {
      if (this.fresh) {
        // first solve since calibration: no last frame to follow
        copy3(v, T3, v, T2);
        normalizeOrPerp(v, T3, U);
      } else {
        // last frame's bend, carried by the shortest rotation from last frame's direction to this one's
        fromToVec(v, Q1, PREV_DIR, U);
        vrotate(v, T3, v, Q1, v, PREV_BEND);
        perp3(v, T3, T3, U);
        normalizeOrPerp(v, T3, U);
      }
      // ... handing over to the carried bend when the T-pose direction is (nearly) parallel to u
      fallbackDir(v, T2, T2, T3, K_UNIT_FALLOFF);
    }
    v[K_FALLOFF] = this.bendFalloff * v[K_CHAIN];
    let wb = goal.weights[2];
    if (!(wb > 0)) wb = 0;
    else if (wb > 1) wb = 1;
    if (wb > 0) {
      sub3x(v, T1, goal.bendGoal, 0, v, S);
      perp3(v, T1, T1, U);
      fallbackDir(v, T1, T1, T2, K_FALLOFF);
    }
    if (wb < 1) {
      // FK bend: the FK elbow's offset from the FK shoulder -> hand line, carried to u
      sub3(v, T4, H0, S);
      v[K_EPS] = 1e-12 * v[K_CHAIN];
      unitOr(v, T4, U, K_EPS);
      sub3(v, N, E0, S);
      perp3(v, N, N, T4);
      fromToVec(v, Q1, T4, U);
      vrotate(v, N, v, Q1, v, N);
      perp3(v, N, N, U);
      fallbackDir(v, N, N, T2, K_FALLOFF);
      if (wb > 0) {
        const c = 1 - wb;
        v[N] = c * v[N] + wb * v[T1];
        v[N + 1] = c * v[N + 1] + wb * v[T1 + 1];
        v[N + 2] = c * v[N + 2] + wb * v[T1 + 2];
        fallbackDir(v, N, N, T2, K_HALF);
      }
    } else {
      copy3(v, N, v, T1);
    }
  }
}
