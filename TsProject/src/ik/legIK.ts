/**
 * Two-bone leg IK driven by the source leg's knee: the target knee is the source knee carried over
 * (scaled and turned with the limb direction), not a law-of-cosines solution, so a straight leg has no
 * 180-degree singularity and a reversed (hyper-extended) knee stays reversed. Allocation-free per solve.
 */
import { type Skeleton, vrotate } from '../core';
import { copy3, fallbackDir, fromToVec, perp3, sub3, sub3x, unitOr } from './kernels';
import {
  E0,
  EN,
  finite3,
  finite3v,
  H0,
  HN,
  IKError,
  K_CHAIN,
  K_EPS,
  K_FALLOFF,
  K_HALF,
  K_T,
  K_WB,
  type Limb,
  type LimbGoal,
  N,
  PREV_DIR,
  PREV_SRC,
  Q1,
  S,
  T1,
  T2,
  T3,
  TwoBoneIK,
  U,
} from './twoBone';

const m_sqrt = Math.sqrt;

/**
 * The SOURCE leg's world joint positions this frame (hip, knee, ankle), metres, each a
 * `Float64Array(3)`, in a frame oriented like the avatar's world (Y up, facing the same way: a source
 * with another up axis must be turned first). Only differences of these points are used, so the
 * origin may differ, and so may the scale (the knee is scaled by the chain-length ratio).
 */
export interface LegSource {
  hip: Float64Array;
  knee: Float64Array;
  ankle: Float64Array;
}

/** Holder of a {@link LegSource} with its own arrays, for callers that fill it each frame. */
export class LegSourceJoints implements LegSource {
  readonly hip = new Float64Array(3);
  readonly knee = new Float64Array(3);
  readonly ankle = new Float64Array(3);
}

export interface LegIKOptions {
  /**
   * Distance, as a fraction of the leg's length, below which the bend goal's offset from the
   * hip -> target line hands over smoothly to the knee's own (source) side. Default 0.1.
   */
  bendFalloff?: number;
}

/**
 * Two-bone IK for a leg. `calibrate` once, then `solve` each frame with the source leg's joints.
 *
 * Knee construction (issue 3): with `h_s, k_s, a_s` the source hip, knee and ankle, `d_s = a_s - h_s`,
 * the source knee vector `k = k_s - h_s` splits into its projection on the source hip -> ankle line,
 * `(k . d_s/|d_s|) d_s/|d_s|`, and the perpendicular rest; both are scaled by the chain-length ratio
 * `r = (L1 + L2) / (|k_s - h_s| + |a_s - k_s|)` (target thigh + shin over source thigh + shin, measured
 * each frame), the projection is laid along the target limb direction `u` (target hip -> foot target)
 * and the perpendicular part is turned by the shortest rotation `R` taking `d_s/|d_s|` to `u`; together
 * `K = hip + R (r k)`. The thigh is aimed at `K` (knee `E = hip + L1 (K - hip)/|K - hip|`) and the
 * shin at the target (foot `F = E + L2 (T - E)/|T - E|`).
 *
 * Reach: no law of cosines is solved, so the foot lands on the target only when `|T - E| = L2`. When the
 * target leg is the source leg scaled (`L1/L2` = source thigh/shin) and the target is the source ankle
 * carried the same way (`T = hip + R r d_s`, which is what scaling the source's foot positions by `r`
 * about the hips gives), `E = K` and `|T - E| = r |a_s - k_s| = L2`: the foot reaches the target
 * (to rounding; tested within 0.1 mm). Otherwise the foot misses by the distance error
 * `| |T - E| - L2 |`; for `T = hip + R r d_s` this is at most `2 |L1 - r |k_s - h_s||` (twice the thigh
 * length mismatch; 0 for a straight leg), plus the distance of `T` from that point for any other target.
 * A far target with a straight source leg gives a straight leg pointing at it.
 *
 * Bend goal (weight `w` > 0): the perpendicular part keeps its length but its direction is blended,
 * `normalize((1 - w) p + w goalDir)`, toward the bend goal's offset from the hip -> target line (which
 * hands over smoothly to `p`'s own direction as that offset vanishes, see `fallbackDir`). Weight 0
 * (the default in `LimbGoal`) follows the source knee exactly.
 *
 * Degenerate input: a target exactly at the hip keeps last frame's direction `u`; a source ankle at
 * the source hip keeps last frame's source direction; no NaN. Writing: as {@link TwoBoneIK}.
 */
export class LegIK extends TwoBoneIK {
  readonly side: 'left' | 'right';
  /** See {@link LegIKOptions.bendFalloff}. */
  bendFalloff: number;
  private readonly label: string;

  /**
   * @param limb thigh, shin and foot bone indices (see `humanoidLimb`).
   * @throws IKError for bone indices that do not form a limb, or a bad option.
   */
  constructor(skeleton: Skeleton, limb: Limb, side: 'left' | 'right', options: LegIKOptions = {}) {
    const label = `${side} leg`;
    super(skeleton, limb, label);
    this.side = side;
    this.label = label;
    const falloff = options.bendFalloff ?? 0.1;
    if (!(falloff > 0) || !Number.isFinite(falloff)) {
      throw new IKError(`${label}: bendFalloff ${falloff}: need a positive number`);
    }
    this.bendFalloff = falloff;
  }

  /**
   * Calibrate on a reference pose: bone lengths and the starting direction state. `W` `Float64Array(4n)`,
   * `P` `Float64Array(3n)` (world).
   * @throws IKError for a zero-length bone or a non-finite pose value.
   */
  calibrate(W: Float64Array, P: Float64Array): void {
    this.calibrateLimb(W, P, this.label);
    const v = this.v;
    copy3(v, PREV_SRC, v, PREV_DIR);
  }

  /**
   * Solve this leg for one frame, in place on `W`/`P` (class docs). Allocates nothing.
   * @param source the source leg's joints this frame.
   * @throws IKError when called before `calibrate`, or when `W`/`P` do not have `4n`/`3n` values.
   */
  solve(W: Float64Array, P: Float64Array, goal: LimbGoal, source: LegSource): void {
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
      const ok =
        finite3v(v, S) &&
        finite3v(v, E0) &&
        finite3v(v, H0) &&
        finite3(goal.targetPosition) &&
        finite3(goal.bendGoal) &&
        finite3(source.hip) &&
        finite3(source.knee) &&
        finite3(source.ankle);
      if (ok) {
        v[K_T] = Math.min(wp, 1);
        this.solvePosition(W, P, goal, source);
        rep.solved = true;
      } else {
        rep.skippedNonFinite = true;
      }
    }
    this.blendEndRotation(W, goal);
  }

  private solvePosition(W: Float64Array, P: Float64Array, goal: LimbGoal, source: LegSource): void {
    const v = this.v;
    sub3(v, T1, E0, S);
    sub3(v, T2, H0, E0);
    const L1 = m_sqrt(v[T1] * v[T1] + v[T1 + 1] * v[T1 + 1] + v[T1 + 2] * v[T1 + 2]);
    const L2 = m_sqrt(v[T2] * v[T2] + v[T2 + 1] * v[T2 + 1] + v[T2 + 2] * v[T2 + 2]);
    const chain = L1 + L2;
    v[K_CHAIN] = chain;
    this.targetDirection(goal.targetPosition);
    // source: thigh and shin vectors, hip -> ankle direction
    sub3x(v, T2, source.knee, 0, source.hip, 0);
    sub3x(v, T3, source.ankle, 0, source.knee, 0);
    const ls1 = m_sqrt(v[T2] * v[T2] + v[T2 + 1] * v[T2 + 1] + v[T2 + 2] * v[T2 + 2]);
    const ls2 = m_sqrt(v[T3] * v[T3] + v[T3 + 1] * v[T3 + 1] + v[T3 + 2] * v[T3 + 2]);
    const ls = ls1 + ls2;
    sub3x(v, T1, source.ankle, 0, source.hip, 0);
    const ds = m_sqrt(v[T1] * v[T1] + v[T1 + 1] * v[T1 + 1] + v[T1 + 2] * v[T1 + 2]);
    if (ds > 1e-9 * ls) {
      for (let k = 0; k < 3; k++) v[PREV_SRC + k] = v[T1 + k] / ds;
    }
    // K - hip = R (r k): scale, then the shortest rotation source direction -> target direction
    const r = ls > 0 ? chain / ls : 0;
    v[T2] *= r;
    v[T2 + 1] *= r;
    v[T2 + 2] *= r;
    fromToVec(v, Q1, PREV_SRC, U);
    vrotate(v, T2, v, Q1, v, T2);
    let wb = goal.weights[2];
    if (!(wb > 0)) wb = 0;
    else if (wb > 1) wb = 1;
    if (wb > 0) {
      v[K_WB] = wb;
      this.applyBendGoal(goal);
    }
    // thigh aimed at K (along u when K is at the hip)
    v[K_EPS] = 1e-12 * chain;
    unitOr(v, T2, U, K_EPS);
    for (let k = 0; k < 3; k++) v[EN + k] = v[S + k] + L1 * v[T2 + k];
    // shin aimed at the target (straight on when the target is at the knee)
    sub3x(v, T1, goal.targetPosition, 0, v, EN);
    unitOr(v, T1, T2, K_EPS);
    for (let k = 0; k < 3; k++) v[HN + k] = v[EN + k] + L2 * v[T1 + k];
    this.applyPositions(W, P);
    copy3(v, PREV_DIR, v, U);
  }

  /**
   * Blend the direction of the perpendicular part of `v[T2]` (knee relative to the hip) toward the bend
   * goal, by the weight in `v[K_WB]`.
   */
  private applyBendGoal(goal: LimbGoal): void {
    const v = this.v;
    const wb = v[K_WB];
    const a = v[T2] * v[U] + v[T2 + 1] * v[U + 1] + v[T2 + 2] * v[U + 2];
    perp3(v, T3, T2, U);
    const lp = m_sqrt(v[T3] * v[T3] + v[T3 + 1] * v[T3 + 1] + v[T3 + 2] * v[T3 + 2]);
    if (!(lp > 1e-12 * v[K_CHAIN])) return;
    for (let k = 0; k < 3; k++) v[T3 + k] /= lp;
    v[K_FALLOFF] = this.bendFalloff * v[K_CHAIN];
    sub3x(v, N, goal.bendGoal, 0, v, S);
    perp3(v, N, N, U);
    fallbackDir(v, N, N, T3, K_FALLOFF);
    const c = 1 - wb;
    for (let k = 0; k < 3; k++) v[N + k] = c * v[T3 + k] + wb * v[N + k];
    fallbackDir(v, N, N, T3, K_HALF);
    for (let k = 0; k < 3; k++) v[T2 + k] = a * v[U + k] + lp * v[N + k];
  }
}
