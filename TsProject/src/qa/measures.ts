/**
 * Per-bone pose-difference measures for retarget QA: rotation error, swing-twist split of the relative
 * rotation, unwrapped twist velocity. Engine-free, allocation-free (module scratch only).
 *
 * Conventions: quaternions `[x, y, z, w]`, unit length, Hamilton product (src/core/quat.ts). `q` and `-q`
 * are the same rotation everywhere here. Angles in radians unless a name says degrees.
 */
import type { NumArray } from '../core';

const { abs: m_abs, atan2: m_atan2, sqrt: m_sqrt } = Math;

const PI = Math.PI;
const TWO_PI = 2 * Math.PI;

/**
 * Compare a reference (golden) and an observed local rotation of one bone.
 *
 * Writes to `out` (length >= 3, radians):
 * - `out[0]` E_rot: the angle of `dq = inverse(qRef) * qObs`, `2*atan2(|v|, |w|)` in [0, pi]; the same
 *   value as `2*acos(|dot(qRef, qObs)|)` but exact for tiny angles in float32 (acos near 1 is not).
 * - `out[1]` E_twist: the signed twist of `dq` about the unit axis `axis` (the bone's twist axis in its own
 *   local frame), `2*atan2(dot(v, axis), w)` wrapped to (-pi, pi] (core `swingTwist`). At a half turn about
 *   an axis perpendicular to `axis` both arguments are 0 and the twist is 0 (atan2(0, 0) = 0, no NaN).
 * - `out[2]` swing: the angle of `swing = dq * inverse(twist)`, `2*atan2(|v - (v.a) a|, sqrt(w^2 + (v.a)^2))`
 *   in [0, pi] (the swing's w is `sqrt(w^2 + (v.a)^2)` and its vector length is that of v's part
 *   perpendicular to `axis`), again exact for small angles.
 *
 * `dq` is expressed in the bone's own frame (`qObs = qRef * dq`), the frame the twist axis lives in.
 * Source: swing-twist decomposition (Dobrowolski, "Swing-twist decomposition in Clifford algebra", 2015).
 */
export function compareRotations(qRef: NumArray, qObs: NumArray, axis: NumArray | null, out: NumArray): void {
  // dq = conj(qRef) * qObs
  const ax = -qRef[0];
  const ay = -qRef[1];
  const az = -qRef[2];
  const aw = qRef[3];
  const bx = qObs[0];
  const by = qObs[1];
  const bz = qObs[2];
  const bw = qObs[3];
  const x = ax * bw + aw * bx + ay * bz - az * by;
  const y = ay * bw + aw * by + az * bx - ax * bz;
  const z = az * bw + aw * bz + ax * by - ay * bx;
  const w = aw * bw - ax * bx - ay * by - az * bz;
  const vlen = m_sqrt(x * x + y * y + z * z);
  out[0] = 2 * m_atan2(vlen, m_abs(w));
  if (axis === null) {
    out[1] = 0;
    out[2] = out[0];
    return;
  }
  // core swingTwist(dq, axis) written out (the same expressions): its twist angle wrapped to (-pi, pi]
  const d = x * axis[0] + y * axis[1] + z * axis[2];
  // (x % 2pi is x itself for |x| < 2pi, the whole range of 2*atan2 but its two ends: the remainder, a
  // slow library call, only there)
  let tw = 2 * m_atan2(d, w);
  if (tw >= TWO_PI || tw <= -TWO_PI) tw %= TWO_PI;
  if (tw <= -PI) tw += TWO_PI;
  else if (tw > PI) tw -= TWO_PI;
  out[1] = tw;
  const px = x - d * axis[0];
  const py = y - d * axis[1];
  const pz = z - d * axis[2];
  out[2] = 2 * m_atan2(m_sqrt(px * px + py * py + pz * pz), m_sqrt(w * w + d * d));
}

/**
 * Unwrap a series of angles in degrees (each in (-180, 180]) into a continuous track: each step is taken
 * as the congruent difference in (-180, 180], so 179 -> -179 is +2, not -358. `out` may alias `deg`.
 */
export function unwrapDegrees(deg: NumArray, out: NumArray): NumArray {
  const n = deg.length;
  if (n === 0) return out;
  let prevRaw = deg[0];
  let acc = deg[0];
  out[0] = acc;
  for (let i = 1; i < n; i++) {
    const raw = deg[i];
    let step = (raw - prevRaw) % 360;
    if (step > 180) step -= 360;
    else if (step <= -180) step += 360;
    acc += step;
    prevRaw = raw;
    out[i] = acc;
  }
  return out;
}

/**
 * V_twist: frame-to-frame twist velocity in degrees per second from a twist series in degrees (wrapped to
 * (-180, 180]), on the unwrapped track: `out[0] = 0`, `out[i] = wrap(deg[i] - deg[i-1]) * fps`. A wrap
 * 179 -> -179 is 2 degrees; since the twist angle is taken modulo 360 (q and -q give the same wrapped
 * twist) a quaternion sign flip never shows as a jump. `out` must not alias `deg`.
 */
export function twistVelocity(deg: NumArray, fps: number, out: NumArray): NumArray {
  const n = deg.length;
  if (n === 0) return out;
  out[0] = 0;
  for (let i = 1; i < n; i++) {
    // (% 360 only where it changes the value: the remainder is a slow library call)
    let step = deg[i] - deg[i - 1];
    if (step >= 360 || step <= -360) step %= 360;
    if (step > 180) step -= 360;
    else if (step <= -180) step += 360;
    out[i] = step * fps;
  }
  return out;
}
