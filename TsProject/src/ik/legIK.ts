/**
 * Two-bone leg IK driven by the source leg's knee: the target knee is the source knee carried over
 * (scaled and turned with the limb direction), not a law-of-cosines solution, so a straight leg has no
 * 180-degree singularity and a reversed (hyper-extended) knee stays reversed. Allocation-free per solve.
 */
import { type Skeleton, vrotate } from '../core';
import { copy3, fromToVec, scaleRotation } from './kernels';
import {
  finite3,
  IKError,
  K_T,
  type Limb,
  type LimbGoal,
  PREV_DIR,
  PREV_SRC,
  Q1,
  T1,
  T2,
  T3,
  TwoBoneIK,
  U,
} from './twoBone';

const { atan2: m_atan2, cos: m_cos, sin: m_sin, sqrt: m_sqrt } = Math;

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

/** Options of {@link LegIK}. */
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
 * the source hip keeps last frame's source direction; no NaN. Writing: as `TwoBoneIK` (./twoBone.ts).
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
    // One function, its values in local variables, a few temporaries (k, l, x, y, z, ...) reused
    // throughout: see "Interpreter cost" in twoBone.ts. Vectors are named by their components
    // (sx, sy, sz = S); each step gives its formula (class docs).
    if (!this.calibrated) throw new IKError(`${this.label}: calibrate() before solve()`);
    if (W.length !== this.rotationsLength || P.length !== this.positionsLength)
      this.checkPose(W, P, this.label);
    const rep = this.report;
    rep.solved = false;
    rep.skippedNonFinite = false;
    rep.targetAtRoot = false;
    const weights = goal.weights;
    const wp = weights[0];
    if (!(wp > 0)) {
      // position weight 0: the limb is left as it is
      this.blendEndRotation(W, goal);
      return;
    }
    let o = 3 * this.upper;
    const ol = 3 * this.lower;
    const oe = 3 * this.end;
    // FK joints: hip S, knee E0, ankle H0; target T; bend goal G; the source's hip, knee, ankle
    const sx = P[o];
    const sy = P[o + 1];
    const sz = P[o + 2];
    const ex = P[ol];
    const ey = P[ol + 1];
    const ez = P[ol + 2];
    const hx = P[oe];
    const hy = P[oe + 1];
    const hz = P[oe + 2];
    let q: Float64Array = goal.targetPosition;
    const tx = q[0];
    const ty = q[1];
    const tz = q[2];
    q = goal.bendGoal;
    const gx = q[0];
    const gy = q[1];
    const gz = q[2];
    q = source.hip;
    const hipX = q[0];
    const hipY = q[1];
    const hipZ = q[2];
    q = source.knee;
    const kneeX = q[0];
    const kneeY = q[1];
    const kneeZ = q[2];
    q = source.ankle;
    const ankleX = q[0];
    const ankleY = q[1];
    const ankleZ = q[2];
    const v = this.v;
    // FK -> IK blend: each bone turns by slerp(identity, q, wt)
    let wt = wp;
    if (wt > 1) wt = 1;
    // temporaries
    let k: number;
    let l: number;
    let x: number;
    let y: number;
    let z: number;

    // segments a = E0 - S (thigh), b = H0 - E0 (shin); lengths L1, L2 measured this frame
    const ax = ex - sx;
    const ay = ey - sy;
    const az = ez - sz;
    const bx = hx - ex;
    const by = hy - ey;
    const bz = hz - ez;
    const L1sq = ax * ax + ay * ay + az * az;
    const L2sq = bx * bx + by * by + bz * bz;
    let kx = kneeX - hipX;
    let ky = kneeY - hipY;
    let kz = kneeZ - hipZ;
    const ksq = kx * kx + ky * ky + kz * kz;
    x = ankleX - kneeX;
    y = ankleY - kneeY;
    z = ankleZ - kneeZ;
    const ssq = x * x + y * y + z * z;
    // All 24 inputs finite? Then so is |a|^2 + |b|^2 + |k_s - h_s|^2 + |a_s - k_s|^2 + tx + ty + tz +
    // gx + gy + gz (a NaN or infinite input makes its term NaN or infinite), unless a term overflows:
    // only a non-finite sum needs the test of each value.
    k = L1sq + L2sq + ksq + ssq + tx + ty + tz + gx + gy + gz;
    if (
      k - k !== 0 &&
      !(
        finite3(P, o) &&
        finite3(P, ol) &&
        finite3(P, oe) &&
        finite3(goal.targetPosition, 0) &&
        finite3(goal.bendGoal, 0) &&
        finite3(source.hip, 0) &&
        finite3(source.knee, 0) &&
        finite3(source.ankle, 0)
      )
    ) {
      rep.skippedNonFinite = true;
      this.blendEndRotation(W, goal);
      return;
    }
    const L1 = m_sqrt(L1sq);
    const L2 = m_sqrt(L2sq);
    const chain = L1 + L2;
    /** Length below which a vector counts as zero. */
    const eps = 1e-12 * chain;

    // u = (T - S)/|T - S|, robust for any finite T (components scaled by the largest magnitude first,
    // so 1e200 does not overflow); a target within 1e-9 chain of the hip keeps last frame's u
    let ux = tx - sx;
    let uy = ty - sy;
    let uz = tz - sz;
    k = ux < 0 ? -ux : ux;
    x = uy < 0 ? -uy : uy;
    y = uz < 0 ? -uz : uz;
    if (x > k) k = x;
    if (y > k) k = y;
    l = 0;
    if (k > 0) {
      ux /= k;
      uy /= k;
      uz /= k;
      l = m_sqrt(ux * ux + uy * uy + uz * uz);
    }
    if (k * l > 1e-9 * chain) {
      ux /= l;
      uy /= l;
      uz /= l;
    } else {
      rep.targetAtRoot = true;
      ux = v[PREV_DIR];
      uy = v[PREV_DIR + 1];
      uz = v[PREV_DIR + 2];
    }

    // source: knee vector kv = k_s - h_s, chain length ls = |k_s - h_s| + |a_s - k_s| (from ksq, ssq
    // above), direction f = (a_s - h_s)/|a_s - h_s| (last frame's when |a_s - h_s| <= 1e-9 ls)
    const ls = m_sqrt(ksq) + m_sqrt(ssq);
    let fx = ankleX - hipX;
    let fy = ankleY - hipY;
    let fz = ankleZ - hipZ;
    l = m_sqrt(fx * fx + fy * fy + fz * fz);
    if (l > 1e-9 * ls) {
      fx /= l;
      fy /= l;
      fz /= l;
      v[PREV_SRC] = fx;
      v[PREV_SRC + 1] = fy;
      v[PREV_SRC + 2] = fz;
    } else {
      fx = v[PREV_SRC];
      fy = v[PREV_SRC + 1];
      fz = v[PREV_SRC + 2];
    }
    // K - hip = R (r kv), r = (L1 + L2)/ls, R the shortest rotation f -> u as two reflections
    // (twoBone.ts): R x = H_p x + 2 (f . x) u, p = f + u, H_p x = x - 2 (p . x)/(p . p) p
    l = ls > 0 ? chain / ls : 0;
    kx *= l;
    ky *= l;
    kz *= l;
    let px = fx + ux;
    let py = fy + uy;
    let pz = fz + uz;
    l = px * px + py * py + pz * pz; // p . p = 2 (1 + f . u)
    if (l > 2e-14) {
      y = (2 * (px * kx + py * ky + pz * kz)) / l;
      x = 2 * (fx * kx + fy * ky + fz * kz);
      kx = kx - y * px + x * ux;
      ky = ky - y * py + x * uy;
      kz = kz - y * pz + x * uz;
    } else {
      // f opposite u (rare): R is half a turn about an axis perpendicular to f; scratch kernels
      v[U] = ux;
      v[U + 1] = uy;
      v[U + 2] = uz;
      v[T2] = kx;
      v[T2 + 1] = ky;
      v[T2 + 2] = kz;
      fromToVec(v, Q1, PREV_SRC, U);
      vrotate(v, T2, v, Q1, v, T2);
      kx = v[T2];
      ky = v[T2 + 1];
      kz = v[T2 + 2];
    }
    let wb = weights[2];
    if (!(wb > 0)) wb = 0;
    else if (wb > 1) wb = 1;
    if (wb > 0) {
      // bend goal: K's part perpendicular to u, p (length lp, direction pd), keeps its length; its
      // direction becomes fallback((1 - wb) pd + wb goalDir, pd, 1/2) with goalDir =
      // fallback(g - (g . u) u, pd, falloff), g = G - S; fallback(p, f, r) = normalize(a p/|p| +
      // (1 - a) f), a = smoothstep(|p|/r) = x^2 (3 - 2x), x = min(|p|/r, 1) (kernels.ts `fallbackDir`)
      z = kx * ux + ky * uy + kz * uz;
      let pdx = kx - z * ux;
      let pdy = ky - z * uy;
      let pdz = kz - z * uz;
      const lp = m_sqrt(pdx * pdx + pdy * pdy + pdz * pdz);
      if (lp > eps) {
        pdx /= lp;
        pdy /= lp;
        pdz /= lp;
        const falloff = this.bendFalloff * chain;
        let nx = gx - sx;
        let ny = gy - sy;
        let nz = gz - sz;
        k = nx * ux + ny * uy + nz * uz;
        nx -= k * ux;
        ny -= k * uy;
        nz -= k * uz;
        l = m_sqrt(nx * nx + ny * ny + nz * nz);
        if (l >= falloff) {
          // a = 1: p's own direction
          nx /= l;
          ny /= l;
          nz /= l;
        } else {
          x = l / falloff;
          k = (3 - 2 * x) * (l / (falloff * falloff)); // a/|p|, a = x^2 (3 - 2x)
          x = 1 - x * x * (3 - 2 * x); // 1 - a
          nx = k * nx + x * pdx;
          ny = k * ny + x * pdy;
          nz = k * nz + x * pdz;
          l = m_sqrt(nx * nx + ny * ny + nz * nz);
          if (l > 1e-9) {
            nx /= l;
            ny /= l;
            nz /= l;
          } else {
            nx = pdx;
            ny = pdy;
            nz = pdz;
          }
        }
        k = 1 - wb;
        nx = k * pdx + wb * nx;
        ny = k * pdy + wb * ny;
        nz = k * pdz + wb * nz;
        l = m_sqrt(nx * nx + ny * ny + nz * nz);
        if (l >= 0.5) {
          // a = 1: p's own direction
          nx /= l;
          ny /= l;
          nz /= l;
        } else {
          x = l / 0.5;
          k = (3 - 2 * x) * (l / (0.5 * 0.5)); // a/|p|, a = x^2 (3 - 2x)
          x = 1 - x * x * (3 - 2 * x); // 1 - a
          nx = k * nx + x * pdx;
          ny = k * ny + x * pdy;
          nz = k * nz + x * pdz;
          l = m_sqrt(nx * nx + ny * ny + nz * nz);
          if (l > 1e-9) {
            nx /= l;
            ny /= l;
            nz /= l;
          } else {
            nx = pdx;
            ny = pdy;
            nz = pdz;
          }
        }
        kx = z * ux + lp * nx;
        ky = z * uy + lp * ny;
        kz = z * uz + lp * nz;
      }
    }
    // thigh aimed at K: a' = L1 (K - hip)/|K - hip| (along u when |K - hip| <= 1e-12 chain; the
    // components scaled by their largest magnitude first where |K - hip|^2 would under- or overflow,
    // as kernels.ts `unitOr`)
    l = kx * kx + ky * ky + kz * kz;
    if (l > 1e-280 && l < 1e280) {
      l = m_sqrt(l);
      k = l;
    } else {
      // scaled by the largest magnitude first
      k = kx < 0 ? -kx : kx;
      x = ky < 0 ? -ky : ky;
      y = kz < 0 ? -kz : kz;
      if (x > k) k = x;
      if (y > k) k = y;
      l = 0;
      if (k > 0) {
        kx /= k;
        ky /= k;
        kz /= k;
        l = m_sqrt(kx * kx + ky * ky + kz * kz);
      }
      k *= l;
    }
    if (k > eps) {
      kx /= l;
      ky /= l;
      kz /= l;
    } else {
      kx = ux;
      ky = uy;
      kz = uz;
    }
    px = L1 * kx;
    py = L1 * ky;
    pz = L1 * kz;
    // shin aimed at the target: b' = L2 (T - E)/|T - E|, E = S + a' (straight on, along a', when
    // |T - E| <= 1e-12 chain; scaled as above, so a target at 1e200 m works)
    let shx = tx - (sx + px);
    let shy = ty - (sy + py);
    let shz = tz - (sz + pz);
    l = shx * shx + shy * shy + shz * shz;
    if (l > 1e-280 && l < 1e280) {
      l = m_sqrt(l);
      k = l;
    } else {
      // scaled by the largest magnitude first
      k = shx < 0 ? -shx : shx;
      x = shy < 0 ? -shy : shy;
      y = shz < 0 ? -shz : shz;
      if (x > k) k = x;
      if (y > k) k = y;
      l = 0;
      if (k > 0) {
        shx /= k;
        shy /= k;
        shz /= k;
        l = m_sqrt(shx * shx + shy * shy + shz * shz);
      }
      k *= l;
    }
    if (k > eps) {
      shx /= l;
      shy /= l;
      shz /= l;
    } else {
      shx = kx;
      shy = ky;
      shz = kz;
    }

    // Write the bones (twoBone.ts "Writing"): each turns by q = slerp(identity, q_full, wt) with q_full
    // the shortest rotation from its FK segment to the solved one (kernels.ts `fromToVec`, slerp as
    // `scaleRotation`); W[bone] = q W[bone]; the joint below moves by the turned segment q FK q*.
    let qx = 0;
    let qy = 0;
    let qz = 0;
    let qw: number;
    let rx: number;
    let ry: number;
    let rz: number;
    // thigh: q_full = shortest rotation a -> a': normalize(c, w) with c = a x a',
    // w = |a||a'| + a . a', where |a||a'| = |a|^2 (a' is as long as a, to rounding)
    z = ax * px + ay * py + az * pz; // a . a'
    qw = L1sq + z;
    if (qw > 1e-14 * L1sq) {
      qx = ay * pz - az * py;
      qy = az * px - ax * pz;
      qz = ax * py - ay * px;
      if (wt < 1) {
        k = m_sqrt(qx * qx + qy * qy + qz * qz); // |c|
        if (k > 0) {
          // q = slerp(identity, q_full, wt) = (sin(h) c/|c|, cos(h)), h = wt atan2(|c|, w); a turns
          // by 2h about c/|c| (perpendicular to a): q a q* = a cos 2h + (c x a) sin 2h/|c|, with
          // c x a = |a|^2 a' - (a . a') a
          x = m_atan2(k, qw) * wt;
          y = m_sin(x);
          qw = m_cos(x);
          k = y / k;
          x = 1 - 2 * y * y; // cos 2h
          y = 2 * k * qw; // sin 2h/|c|
          x -= y * z;
          y *= L1sq;
          rx = ax * x + px * y;
          ry = ay * x + py * y;
          rz = az * x + pz * y;
          qx *= k;
          qy *= k;
          qz *= k;
        } else {
          qx = 0;
          qy = 0;
          qz = 0;
          qw = 1;
          rx = ax;
          ry = ay;
          rz = az;
        }
      } else {
        k = m_sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
        qx /= k;
        qy /= k;
        qz /= k;
        qw /= k;
        // q a q* = a'
        rx = px;
        ry = py;
        rz = pz;
      }
    } else {
      // a and a' opposite, or of zero length (rare): the scratch kernels
      v[T1] = ax;
      v[T1 + 1] = ay;
      v[T1 + 2] = az;
      v[T2] = px;
      v[T2 + 1] = py;
      v[T2 + 2] = pz;
      fromToVec(v, Q1, T1, T2);
      if (wt < 1) {
        v[K_T] = wt;
        scaleRotation(v, Q1, K_T);
      }
      vrotate(v, T3, v, Q1, v, T1);
      qx = v[Q1];
      qy = v[Q1 + 1];
      qz = v[Q1 + 2];
      qw = v[Q1 + 3];
      rx = v[T3];
      ry = v[T3 + 1];
      rz = v[T3 + 2];
    }
    // W[upper] = q W[upper] (Hamilton product)
    o = 4 * this.upper;
    px = W[o];
    py = W[o + 1];
    pz = W[o + 2];
    k = W[o + 3];
    W[o] = qx * k + qw * px + qy * pz - qz * py;
    W[o + 1] = qy * k + qw * py + qz * px - qx * pz;
    W[o + 2] = qz * k + qw * pz + qx * py - qy * px;
    W[o + 3] = qw * k - qx * px - qy * py - qz * pz;
    // P[lower] = S + q a q*
    const plx = sx + rx;
    const ply = sy + ry;
    const plz = sz + rz;
    P[ol] = plx;
    P[ol + 1] = ply;
    P[ol + 2] = plz;
    px = L2 * shx;
    py = L2 * shy;
    pz = L2 * shz;
    // shin: q_full = shortest rotation b -> b': normalize(c, w) with c = b x b',
    // w = |b||b'| + b . b', where |b||b'| = |b|^2 (b' is as long as b, to rounding)
    z = bx * px + by * py + bz * pz; // b . b'
    qw = L2sq + z;
    if (qw > 1e-14 * L2sq) {
      qx = by * pz - bz * py;
      qy = bz * px - bx * pz;
      qz = bx * py - by * px;
      if (wt < 1) {
        k = m_sqrt(qx * qx + qy * qy + qz * qz); // |c|
        if (k > 0) {
          // q = slerp(identity, q_full, wt) = (sin(h) c/|c|, cos(h)), h = wt atan2(|c|, w); b turns
          // by 2h about c/|c| (perpendicular to b): q b q* = b cos 2h + (c x b) sin 2h/|c|, with
          // c x b = |b|^2 b' - (b . b') b
          x = m_atan2(k, qw) * wt;
          y = m_sin(x);
          qw = m_cos(x);
          k = y / k;
          x = 1 - 2 * y * y; // cos 2h
          y = 2 * k * qw; // sin 2h/|c|
          x -= y * z;
          y *= L2sq;
          rx = bx * x + px * y;
          ry = by * x + py * y;
          rz = bz * x + pz * y;
          qx *= k;
          qy *= k;
          qz *= k;
        } else {
          qx = 0;
          qy = 0;
          qz = 0;
          qw = 1;
          rx = bx;
          ry = by;
          rz = bz;
        }
      } else {
        k = m_sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
        qx /= k;
        qy /= k;
        qz /= k;
        qw /= k;
        // q b q* = b'
        rx = px;
        ry = py;
        rz = pz;
      }
    } else {
      // b and b' opposite, or of zero length (rare): the scratch kernels
      v[T1] = bx;
      v[T1 + 1] = by;
      v[T1 + 2] = bz;
      v[T2] = px;
      v[T2 + 1] = py;
      v[T2 + 2] = pz;
      fromToVec(v, Q1, T1, T2);
      if (wt < 1) {
        v[K_T] = wt;
        scaleRotation(v, Q1, K_T);
      }
      vrotate(v, T3, v, Q1, v, T1);
      qx = v[Q1];
      qy = v[Q1 + 1];
      qz = v[Q1 + 2];
      qw = v[Q1 + 3];
      rx = v[T3];
      ry = v[T3 + 1];
      rz = v[T3 + 2];
    }
    // W[lower] = q W[lower] (Hamilton product)
    o = 4 * this.lower;
    px = W[o];
    py = W[o + 1];
    pz = W[o + 2];
    k = W[o + 3];
    W[o] = qx * k + qw * px + qy * pz - qz * py;
    W[o + 1] = qy * k + qw * py + qz * px - qx * pz;
    W[o + 2] = qz * k + qw * pz + qx * py - qy * px;
    W[o + 3] = qw * k - qx * px - qy * py - qz * pz;
    // P[end] = P[lower] + q b q*
    P[oe] = plx + rx;
    P[oe + 1] = ply + ry;
    P[oe + 2] = plz + rz;

    v[PREV_DIR] = ux;
    v[PREV_DIR + 1] = uy;
    v[PREV_DIR + 2] = uz;
    rep.solved = true;
    this.blendEndRotation(W, goal);
  }
}
