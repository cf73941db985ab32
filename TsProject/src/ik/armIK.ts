/**
 * Two-bone arm IK: shoulder (upper arm), elbow (forearm), wrist (hand), solved in closed form with the
 * law of cosines; the elbow's side comes from the bend goal, the FK elbow, and a calibrated T-pose
 * bend direction that turns with the chest. Allocation-free per solve.
 */
import { HumanBodyBones as H, type Skeleton, vrotate, vrotateConj } from '../core';
import { copy3, fallbackDir, fromToVec, normalizeOrPerp, perp3, scaleRotation } from './kernels';
import {
  BEND_LOCAL,
  finite3,
  IKError,
  K_T,
  K_UNIT_FALLOFF,
  type Limb,
  type LimbGoal,
  PREV_BEND,
  PREV_DIR,
  Q1,
  T1,
  T2,
  T3,
  TwoBoneIK,
  U,
} from './twoBone';

const { atan2: m_atan2, cos: m_cos, sin: m_sin, sqrt: m_sqrt } = Math;

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
 * Writing: see `TwoBoneIK`: each bone turns by the shortest rotation from its FK segment to the
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

  protected override isFresh(): boolean {
    return this.fresh;
  }

  protected override setFresh(fresh: boolean): void {
    this.fresh = fresh;
  }

  /**
   * Solve this arm for one frame, in place on `W`/`P` (see the class docs). Allocates nothing.
   * @throws IKError when called before `calibrate`, or when `W`/`P` do not have `4n`/`3n` values.
   */
  solve(W: Float64Array, P: Float64Array, goal: LimbGoal): void {
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
    // FK joints: shoulder S, elbow E0, wrist H0; target T; bend goal G
    const sx = P[o];
    const sy = P[o + 1];
    const sz = P[o + 2];
    const ex = P[ol];
    const ey = P[ol + 1];
    const ez = P[ol + 2];
    const hx = P[oe];
    const hy = P[oe + 1];
    const hz = P[oe + 2];
    const tp = goal.targetPosition;
    const tx = tp[0];
    const ty = tp[1];
    const tz = tp[2];
    const bg = goal.bendGoal;
    const gx = bg[0];
    const gy = bg[1];
    const gz = bg[2];
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

    // segments a = E0 - S (upper arm), b = H0 - E0 (forearm); lengths L1, L2 measured this frame
    const ax = ex - sx;
    const ay = ey - sy;
    const az = ez - sz;
    const bx = hx - ex;
    const by = hy - ey;
    const bz = hz - ez;
    const L1sq = ax * ax + ay * ay + az * az;
    const L2sq = bx * bx + by * by + bz * bz;
    // All 15 inputs finite? Then so is |a|^2 + |b|^2 + tx + ty + tz + gx + gy + gz (a NaN or infinite
    // input makes its term NaN or infinite), unless a term overflows: only a non-finite sum needs the
    // test of each value.
    k = L1sq + L2sq + tx + ty + tz + gx + gy + gz;
    if (
      k - k !== 0 &&
      !(finite3(P, o) && finite3(P, ol) && finite3(P, oe) && finite3(tp, 0) && finite3(bg, 0))
    ) {
      rep.skippedNonFinite = true;
      this.blendEndRotation(W, goal);
      return;
    }
    const L1 = m_sqrt(L1sq);
    const L2 = m_sqrt(L2sq);
    const chain = L1 + L2;

    // u = (T - S)/d, d = |T - S|, robust for any finite T (components scaled by the largest magnitude
    // first, so 1e200 does not overflow); a target within 1e-9 chain of S keeps last frame's u and
    // bend n. (d exactly as before the rewrite: near full reach the elbow's offset sqrt(L1^2 - xu^2)
    // below turns an ulp of d into 1e-8 m.)
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
    let d = k * l;
    // bend direction n (unit, perpendicular to u)
    let nx: number;
    let ny: number;
    let nz: number;
    if (!(d > 1e-9 * chain)) {
      rep.targetAtRoot = true;
      ux = v[PREV_DIR];
      uy = v[PREV_DIR + 1];
      uz = v[PREV_DIR + 2];
      nx = v[PREV_BEND];
      ny = v[PREV_BEND + 1];
      nz = v[PREV_BEND + 2];
    } else {
      ux /= l;
      uy /= l;
      uz /= l;
      // c, the T-pose direction (`tposeBend`), is the fallback of every direction below; it is
      // computed only when a fallback needs it. fallback(p, f, r) = normalize(a p/|p| + (1 - a) f)
      // with a = smoothstep(|p|/r) = x^2 (3 - 2x), x = min(|p|/r, 1) (kernels.ts `fallbackDir`),
      // written out in place on p; a = 1 (|p| >= r) needs no f.
      let cReady = false;
      let cx = 0;
      let cy = 0;
      let cz = 0;
      const falloff = this.bendFalloff * chain;
      let wb = weights[2];
      if (!(wb > 0)) wb = 0;
      else if (wb > 1) wb = 1;
      // goalDir = fallback(g - (g . u) u, c, falloff) with g = G - S; its length lg
      let gdx = 0;
      let gdy = 0;
      let gdz = 0;
      let lg = 0;
      if (wb > 0) {
        gdx = gx - sx;
        gdy = gy - sy;
        gdz = gz - sz;
        k = gdx * ux + gdy * uy + gdz * uz;
        gdx -= k * ux;
        gdy -= k * uy;
        gdz -= k * uz;
        lg = m_sqrt(gdx * gdx + gdy * gdy + gdz * gdz);
      }
      // fkDir = fallback(perp_u(R e), c, falloff): the FK elbow's offset from the FK shoulder -> wrist
      // line, e = a - (a . f) f with f = (H0 - S)/|H0 - S| (u when |H0 - S| <= 1e-12 chain), carried
      // to u by the shortest rotation R taking f to u, made perpendicular to u. With R as two
      // reflections (twoBone.ts), R e = H_p e = H_p a + (a . f) u, so perp_u(R e) = perp_u(H_p a),
      // p = f + u. Its length lf.
      nx = 0;
      ny = 0;
      nz = 0;
      let lf = 0;
      if (wb < 1) {
        // f = (H0 - S)/|H0 - S|, |H0 - S| = k (the components scaled by their largest magnitude
        // first where |H0 - S|^2 would under- or overflow)
        let fx = hx - sx;
        let fy = hy - sy;
        let fz = hz - sz;
        l = fx * fx + fy * fy + fz * fz;
        if (l > 1e-280 && l < 1e280) {
          l = m_sqrt(l);
          k = l;
        } else {
          // scaled by the largest magnitude first
          k = fx < 0 ? -fx : fx;
          x = fy < 0 ? -fy : fy;
          y = fz < 0 ? -fz : fz;
          if (x > k) k = x;
          if (y > k) k = y;
          l = 0;
          if (k > 0) {
            fx /= k;
            fy /= k;
            fz /= k;
            l = m_sqrt(fx * fx + fy * fy + fz * fz);
          }
          k *= l;
        }
        if (k > 1e-12 * chain) {
          fx /= l;
          fy /= l;
          fz /= l;
        } else {
          fx = ux;
          fy = uy;
          fz = uz;
        }
        x = fx + ux;
        y = fy + uy;
        z = fz + uz;
        l = x * x + y * y + z * z; // p . p = 2 (1 + f . u)
        if (l > 2e-14) {
          // H_p a, then its part perpendicular to u
          k = (2 * (x * ax + y * ay + z * az)) / l;
          nx = ax - k * x;
          ny = ay - k * y;
          nz = az - k * z;
          k = nx * ux + ny * uy + nz * uz;
          nx -= k * ux;
          ny -= k * uy;
          nz -= k * uz;
        } else {
          // f opposite u (rare): R is half a turn about an axis perpendicular to f; scratch kernels
          v[U] = ux;
          v[U + 1] = uy;
          v[U + 2] = uz;
          v[T1] = fx;
          v[T1 + 1] = fy;
          v[T1 + 2] = fz;
          k = ax * fx + ay * fy + az * fz;
          v[T3] = ax - k * fx;
          v[T3 + 1] = ay - k * fy;
          v[T3 + 2] = az - k * fz;
          fromToVec(v, Q1, T1, U);
          vrotate(v, T3, v, Q1, v, T3);
          perp3(v, T3, T3, U);
          nx = v[T3];
          ny = v[T3 + 1];
          nz = v[T3 + 2];
        }
        lf = m_sqrt(nx * nx + ny * ny + nz * nz);
      }
      if ((wb > 0 && lg < falloff) || (wb < 1 && lf < falloff)) {
        // c, needed by a fallback below: the calibrated T-pose direction turned with the frame bone,
        // c = q c_local q* for q = W[frameBone] (as v + 2w (q x v) + 2 q x (q x v), q the vector
        // part), made perpendicular to u and normalised; when that part is shorter than 0.25,
        // `tposeBend` (rare)
        cx = v[BEND_LOCAL];
        cy = v[BEND_LOCAL + 1];
        cz = v[BEND_LOCAL + 2];
        const fb = this.frameBone;
        if (fb >= 0) {
          o = 4 * fb;
          const qx = W[o];
          const qy = W[o + 1];
          const qz = W[o + 2];
          const w2 = W[o + 3] * 2;
          x = qy * cz - qz * cy;
          y = qz * cx - qx * cz;
          z = qx * cy - qy * cx;
          cx += x * w2 + (qy * z - qz * y) * 2;
          cy += y * w2 + (qz * x - qx * z) * 2;
          cz += z * w2 + (qx * y - qy * x) * 2;
        }
        k = cx * ux + cy * uy + cz * uz;
        cx -= k * ux;
        cy -= k * uy;
        cz -= k * uz;
        l = m_sqrt(cx * cx + cy * cy + cz * cz);
        if (l >= 0.25) {
          cx /= l;
          cy /= l;
          cz /= l;
        } else {
          // c near u's line (rare): the handover in `tposeBend`
          v[U] = ux;
          v[U + 1] = uy;
          v[U + 2] = uz;
          this.tposeBend(W);
          cx = v[T2];
          cy = v[T2 + 1];
          cz = v[T2 + 2];
        }
        cReady = true;
      }
      if (wb > 0) {
        // goalDir = fallback(g - (g . u) u, c, falloff)
        l = lg;
        if (l >= falloff) {
          // a = 1: p's own direction
          gdx /= l;
          gdy /= l;
          gdz /= l;
        } else {
          x = l / falloff;
          k = (3 - 2 * x) * (l / (falloff * falloff)); // a/|p|, a = x^2 (3 - 2x)
          x = 1 - x * x * (3 - 2 * x); // 1 - a
          gdx = k * gdx + x * cx;
          gdy = k * gdy + x * cy;
          gdz = k * gdz + x * cz;
          l = m_sqrt(gdx * gdx + gdy * gdy + gdz * gdz);
          if (l > 1e-9) {
            gdx /= l;
            gdy /= l;
            gdz /= l;
          } else {
            gdx = cx;
            gdy = cy;
            gdz = cz;
          }
        }
      }
      if (wb < 1) {
        // fkDir = fallback(perp_u(R e), c, falloff)
        l = lf;
        if (l >= falloff) {
          // a = 1: p's own direction
          nx /= l;
          ny /= l;
          nz /= l;
        } else {
          x = l / falloff;
          k = (3 - 2 * x) * (l / (falloff * falloff)); // a/|p|, a = x^2 (3 - 2x)
          x = 1 - x * x * (3 - 2 * x); // 1 - a
          nx = k * nx + x * cx;
          ny = k * ny + x * cy;
          nz = k * nz + x * cz;
          l = m_sqrt(nx * nx + ny * ny + nz * nz);
          if (l > 1e-9) {
            nx /= l;
            ny /= l;
            nz /= l;
          } else {
            nx = cx;
            ny = cy;
            nz = cz;
          }
        }
        if (wb > 0) {
          // n = fallback((1 - wb) fkDir + wb goalDir, c, 1/2)
          k = 1 - wb;
          nx = k * nx + wb * gdx;
          ny = k * ny + wb * gdy;
          nz = k * nz + wb * gdz;
          l = m_sqrt(nx * nx + ny * ny + nz * nz);
          if (l >= 0.5) {
            // a = 1: p's own direction
            nx /= l;
            ny /= l;
            nz /= l;
          } else {
            if (!cReady) {
              // c, when the fallbacks above did not need it
              v[U] = ux;
              v[U + 1] = uy;
              v[U + 2] = uz;
              this.tposeBend(W);
              cx = v[T2];
              cy = v[T2 + 1];
              cz = v[T2 + 2];
              cReady = true;
            }
            x = l / 0.5;
            k = (3 - 2 * x) * (l / (0.5 * 0.5)); // a/|p|, a = x^2 (3 - 2x)
            x = 1 - x * x * (3 - 2 * x); // 1 - a
            nx = k * nx + x * cx;
            ny = k * ny + x * cy;
            nz = k * nz + x * cz;
            l = m_sqrt(nx * nx + ny * ny + nz * nz);
            if (l > 1e-9) {
              nx /= l;
              ny /= l;
              nz /= l;
            } else {
              nx = cx;
              ny = cy;
              nz = cz;
            }
          }
        }
      } else {
        nx = gdx;
        ny = gdy;
        nz = gdz;
      }
    }

    // law of cosines: d clamped to [|L1 - L2|, L1 + L2]; the elbow lies xu = (L1^2 - L2^2 + d^2)/(2d)
    // along u and hn = sqrt(L1^2 - xu^2) along n: E = S + xu u + hn n; the wrist goes to S + d u
    let xu = L1;
    let hn = 0;
    if (d >= chain) {
      d = chain;
    } else {
      k = L1 > L2 ? L1 - L2 : L2 - L1;
      if (d < k) d = k;
      if (d < 1e-12 * chain) d = 1e-12 * chain;
      xu = ((L1 - L2) * (L1 + L2) + d * d) / (2 * d);
      hn = (L1 - xu) * (L1 + xu);
      hn = hn > 0 ? m_sqrt(hn) : 0;
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
    // a' = E - S = xu u + hn n
    let px = xu * ux + hn * nx;
    let py = xu * uy + hn * ny;
    let pz = xu * uz + hn * nz;
    // upper arm: q_full = shortest rotation a -> a': normalize(c, w) with c = a x a',
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
    // b' = (S + d u) - E = (d - xu) u - hn n
    k = d - xu;
    px = k * ux - hn * nx;
    py = k * uy - hn * ny;
    pz = k * uz - hn * nz;
    // forearm: q_full = shortest rotation b -> b': normalize(c, w) with c = b x b',
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

    // state for the next frame
    v[PREV_DIR] = ux;
    v[PREV_DIR + 1] = uy;
    v[PREV_DIR + 2] = uz;
    v[PREV_BEND] = nx;
    v[PREV_BEND + 1] = ny;
    v[PREV_BEND + 2] = nz;
    this.fresh = false;
    rep.solved = true;
    this.blendEndRotation(W, goal);
  }

  /**
   * The T-pose bend direction c of this frame into `v[T2]`, for the direction `u` in `v[U]`: the
   * calibrated direction turned with the frame bone (`c = q c_local q*`, q = W[frameBone], as
   * `v + 2w (q x v) + 2 q x (q x v)`, q = vector part), made perpendicular to u and normalised; where
   * that part is shorter than 0.25 (c within about 14 degrees of u's line),
   * fallback(c, f, 0.25) with f last frame's bend carried by the shortest rotation from last frame's
   * u to this one's (on the first solve since calibration: c's own direction). Class docs.
   */
  private tposeBend(W: Float64Array): void {
    const v = this.v;
    let cx = v[BEND_LOCAL];
    let cy = v[BEND_LOCAL + 1];
    let cz = v[BEND_LOCAL + 2];
    const fb = this.frameBone;
    if (fb >= 0) {
      const o = 4 * fb;
      const qx = W[o];
      const qy = W[o + 1];
      const qz = W[o + 2];
      const w2 = W[o + 3] * 2;
      const px = qy * cz - qz * cy;
      const py = qz * cx - qx * cz;
      const pz = qx * cy - qy * cx;
      cx = cx + px * w2 + (qy * pz - qz * py) * 2;
      cy = cy + py * w2 + (qz * px - qx * pz) * 2;
      cz = cz + pz * w2 + (qx * py - qy * px) * 2;
    }
    const ux = v[U];
    const uy = v[U + 1];
    const uz = v[U + 2];
    const k = cx * ux + cy * uy + cz * uz;
    cx -= k * ux;
    cy -= k * uy;
    cz -= k * uz;
    const l = m_sqrt(cx * cx + cy * cy + cz * cz);
    if (l >= 0.25) {
      v[T2] = cx / l;
      v[T2 + 1] = cy / l;
      v[T2 + 2] = cz / l;
      return;
    }
    v[T2] = cx;
    v[T2 + 1] = cy;
    v[T2 + 2] = cz;
    if (this.fresh) {
      copy3(v, T3, v, T2);
    } else {
      fromToVec(v, Q1, PREV_DIR, U);
      vrotate(v, T3, v, Q1, v, PREV_BEND);
      perp3(v, T3, T3, U);
    }
    normalizeOrPerp(v, T3, U);
    fallbackDir(v, T2, T2, T3, K_UNIT_FALLOFF);
  }
}
