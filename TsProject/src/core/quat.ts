/**
 * Quaternion helpers on top of gl-matrix, for what gl-matrix lacks.
 *
 * Conventions: quaternions are `[x, y, z, w]` (gl-matrix order), unit length, Hamilton product,
 * rotating column vectors (`v' = q v q*`); `multiply(a, b)` applies `b` first, then `a`.
 * Angles are radians unless a name says degrees. Everything works on any indexable number array
 * (`Float64Array`, `Float32Array`, plain arrays) and allocates nothing (`Math.sqrt` of sums of squares
 * rather than `Math.hypot`, which V8 does not optimise and which allocates a heap number per call).
 */
import { quat, type vec3 } from 'gl-matrix';

/** A quaternion `[x, y, z, w]` (gl-matrix order and type). */
export type Quat = quat;
/** A 3-vector `[x, y, z]` (gl-matrix type). */
export type Vec3 = vec3;
/** A readable array of numbers: typed array or plain array. */
export type NumArray = { [i: number]: number; readonly length: number };

// Math functions held in module constants: V8 inlines them the same, and hosts whose global object
// is another context's (jest's vm sandbox) do not pay a global lookup and a boxed result per call.
const { abs: m_abs, atan2: m_atan2, cos: m_cos, round: m_round, sin: m_sin, sqrt: m_sqrt } = Math;

const RAD = Math.PI / 180;
/** Radians per degree (pi / 180). */
export const DEG2RAD = RAD;
/** Degrees per radian (180 / pi). */
export const RAD2DEG = 180 / Math.PI;

/** Read quaternion `i` (components `4i..4i+3`) of a flat array into `out`. */
export function readQuat(out: Quat, arr: NumArray, i: number): Quat {
  const o = 4 * i;
  out[0] = arr[o];
  out[1] = arr[o + 1];
  out[2] = arr[o + 2];
  out[3] = arr[o + 3];
  return out;
}

/** Write `q` as quaternion `i` of a flat array. */
export function writeQuat(arr: NumArray, i: number, q: ArrayLike<number>): void {
  const o = 4 * i;
  arr[o] = q[0];
  arr[o + 1] = q[1];
  arr[o + 2] = q[2];
  arr[o + 3] = q[3];
}

/** Read vector `i` (components `3i..3i+2`) of a flat array into `out`. */
export function readVec3(out: Vec3, arr: NumArray, i: number): Vec3 {
  const o = 3 * i;
  out[0] = arr[o];
  out[1] = arr[o + 1];
  out[2] = arr[o + 2];
  return out;
}

/** Write `v` as vector `i` of a flat array. */
export function writeVec3(arr: NumArray, i: number, v: ArrayLike<number>): void {
  const o = 3 * i;
  arr[o] = v[0];
  arr[o + 1] = v[1];
  arr[o + 2] = v[2];
}

/** A new `Float64Array(4)` identity quaternion (use at set-up time, not per frame). */
export function quat64(x = 0, y = 0, z = 0, w = 1): Quat {
  const q = new Float64Array(4);
  q[0] = x;
  q[1] = y;
  q[2] = z;
  q[3] = w;
  return q;
}

/** A new `Float64Array(3)` vector (use at set-up time, not per frame). */
export function vec64(x = 0, y = 0, z = 0): Vec3 {
  const v = new Float64Array(3);
  v[0] = x;
  v[1] = y;
  v[2] = z;
  return v;
}

const tmpD = quat64();

/**
 * Angle in radians, in [0, pi], of the rotation taking `a` to `b`, treating `q` and `-q` as the same
 * rotation. Computed as `2*atan2(|vec(a* b)|, |w(a* b)|)`, which unlike `2*acos(|dot|)` stays exact
 * for tiny angles in float32.
 */
export function angleBetween(a: ArrayLike<number>, b: ArrayLike<number>): number {
  quat.conjugate(tmpD, a as Quat);
  quat.multiply(tmpD, tmpD, b as Quat);
  const s = m_sqrt(tmpD[0] * tmpD[0] + tmpD[1] * tmpD[1] + tmpD[2] * tmpD[2]);
  return 2 * m_atan2(s, m_abs(tmpD[3]));
}

/**
 * Angle in radians, in [0, pi], between two (not necessarily unit) vectors, as
 * `atan2(|a x b|, a . b)`, accurate for tiny and near-180-degree angles (unlike `acos(dot)`).
 * Returns 0 when either vector is zero.
 */
export function vectorAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const cx = a[1] * b[2] - a[2] * b[1];
  const cy = a[2] * b[0] - a[0] * b[2];
  const cz = a[0] * b[1] - a[1] * b[0];
  return m_atan2(m_sqrt(cx * cx + cy * cy + cz * cz), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

/** Wrap an angle in radians to (-pi, pi]. */
export function wrapAngle(a: number): number {
  let r = a % (2 * Math.PI);
  if (r <= -Math.PI) r += 2 * Math.PI;
  else if (r > Math.PI) r -= 2 * Math.PI;
  return r;
}

/**
 * Signed swing-twist decomposition of `q` about the unit axis `axis`: `q = swing * twist`, where `twist`
 * rotates about `axis` and `swing` about an axis perpendicular to it.
 *
 * Returns the signed twist angle in radians, `2*atan2(dot(v, axis), w)` wrapped to (-pi, pi]
 * (v = vector part of q). Where `q` is a 180-degree rotation about an axis perpendicular to `axis`,
 * both arguments are 0 and the twist is the identity (no NaN). `outSwing`/`outTwist` may be omitted.
 *
 * The returned angle is a double: where V8 does not inline the call it boxes it (16 bytes); per-frame
 * callers that must not allocate use the `outTwist` quaternion instead.
 *
 * Source: the standard decomposition (e.g. Dobrowolski, "Swing-twist decomposition in Clifford
 * algebra", 2015): twist = normalize(proj_axis(v), w), swing = q * twist^-1.
 */
export function swingTwist(
  q: ArrayLike<number>,
  axis: ArrayLike<number>,
  outSwing?: Quat,
  outTwist?: Quat,
): number {
  const d = q[0] * axis[0] + q[1] * axis[1] + q[2] * axis[2];
  const w = q[3];
  const angle = wrapAngle(2 * m_atan2(d, w));
  if (outTwist || outSwing) {
    const tx = d * axis[0];
    const ty = d * axis[1];
    const tz = d * axis[2];
    const n = m_sqrt(tx * tx + ty * ty + tz * tz + w * w);
    const t = outTwist ?? tmpD;
    if (n < 1e-15) {
      quat.identity(t);
    } else {
      t[0] = tx / n;
      t[1] = ty / n;
      t[2] = tz / n;
      t[3] = w / n;
    }
    if (outSwing) {
      // swing = q * conj(twist)
      const x = t[0];
      const y = t[1];
      const z = t[2];
      const tw = t[3];
      const qx = q[0];
      const qy = q[1];
      const qz = q[2];
      const qw = q[3];
      outSwing[0] = -qw * x + qx * tw - qy * z + qz * y;
      outSwing[1] = -qw * y + qy * tw - qz * x + qx * z;
      outSwing[2] = -qw * z + qz * tw - qx * y + qy * x;
      outSwing[3] = qw * tw + qx * x + qy * y + qz * z;
    }
  }
  return angle;
}

/**
 * Shortest-path spherical interpolation from `a` (t = 0) to `b` (t = 1). gl-matrix's `quat.slerp`
 * already negates `b` when `dot(a, b) < 0`, so the path never goes the long way round; this wrapper
 * names that guarantee and normalises the result.
 */
export function slerpShortest(out: Quat, a: ArrayLike<number>, b: ArrayLike<number>, t: number): Quat {
  quat.slerp(out, a as Quat, b as Quat, t);
  return quat.normalize(out, out);
}

/** Make `q` lie in the same hemisphere as `ref` (flip sign when `dot < 0`), for continuous tracks. */
export function alignHemisphere(q: Quat, ref: ArrayLike<number>): Quat {
  if (q[0] * ref[0] + q[1] * ref[1] + q[2] * ref[2] + q[3] * ref[3] < 0) {
    q[0] = -q[0];
    q[1] = -q[1];
    q[2] = -q[2];
    q[3] = -q[3];
  }
  return q;
}

/**
 * Shortest-arc rotation taking unit vector `from` to unit vector `to`, in full double precision
 * (gl-matrix's `quat.rotationTo` uses Float32 temporaries, good to ~1e-8 only). For opposite vectors
 * the result is half a turn about an axis perpendicular to `from`.
 * Formula: `q = normalize(cross(from, to), 1 + dot(from, to))` (half-angle identity).
 */
export function fromTo(out: Quat, from: ArrayLike<number>, to: ArrayLike<number>): Quat {
  const d = from[0] * to[0] + from[1] * to[1] + from[2] * to[2];
  if (d < -1 + 1e-12) {
    // perpendicular axis: cross with the world axis least aligned with `from`
    const ax = m_abs(from[0]);
    const ay = m_abs(from[1]);
    const az = m_abs(from[2]);
    let x: number;
    let y: number;
    let z: number;
    if (ax <= ay && ax <= az) {
      x = 0;
      y = -from[2];
      z = from[1];
    } else if (ay <= az) {
      x = from[2];
      y = 0;
      z = -from[0];
    } else {
      x = -from[1];
      y = from[0];
      z = 0;
    }
    const l = m_sqrt(x * x + y * y + z * z);
    out[0] = x / l;
    out[1] = y / l;
    out[2] = z / l;
    out[3] = 0;
    return out;
  }
  const x = from[1] * to[2] - from[2] * to[1];
  const y = from[2] * to[0] - from[0] * to[2];
  const z = from[0] * to[1] - from[1] * to[0];
  const w = 1 + d;
  const l = m_sqrt(x * x + y * y + z * z + w * w);
  out[0] = x / l;
  out[1] = y / l;
  out[2] = z / l;
  out[3] = w / l;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Euler angles for BVH channel orders.

/** A Tait-Bryan rotation order as written in a BVH CHANNELS line, e.g. 'ZXY' for `Zrotation Xrotation Yrotation`. */
export type EulerOrder = 'XYZ' | 'XZY' | 'YXZ' | 'YZX' | 'ZXY' | 'ZYX';
/** Every {@link EulerOrder}, e.g. for checking a BVH channel order. */
export const EULER_ORDERS: readonly EulerOrder[] = ['XYZ', 'XZY', 'YXZ', 'YZX', 'ZXY', 'ZYX'];

const AXIS_INDEX: Record<string, number> = { X: 0, Y: 1, Z: 2 };

/**
 * Quaternion of the intrinsic rotation sequence named by `order`: for order 'ZXY' and angles
 * `(a0, a1, a2)` (radians, in the order of the letters) the result is `Rz(a0) * Rx(a1) * Ry(a2)`,
 * which is how BVH composes a CHANNELS line (the first listed channel is outermost).
 */
export function quatFromEuler(out: Quat, a0: number, a1: number, a2: number, order: EulerOrder): Quat {
  // q = q0 * q1 * q2, written out to avoid temporaries.
  const i0 = AXIS_INDEX[order[0]];
  const i1 = AXIS_INDEX[order[1]];
  const i2 = AXIS_INDEX[order[2]];
  const s0 = m_sin(a0 / 2);
  const c0 = m_cos(a0 / 2);
  const s1 = m_sin(a1 / 2);
  const c1 = m_cos(a1 / 2);
  const s2 = m_sin(a2 / 2);
  const c2 = m_cos(a2 / 2);
  // q0 * q1
  const v0 = E0;
  v0[0] = 0;
  v0[1] = 0;
  v0[2] = 0;
  v0[i0] = s0;
  const v1 = E1;
  v1[0] = 0;
  v1[1] = 0;
  v1[2] = 0;
  v1[i1] = s1;
  // product (v0, c0)*(v1, c1) = (c0 v1 + c1 v0 + v0 x v1, c0 c1 - v0.v1)
  const x = c0 * v1[0] + c1 * v0[0] + (v0[1] * v1[2] - v0[2] * v1[1]);
  const y = c0 * v1[1] + c1 * v0[1] + (v0[2] * v1[0] - v0[0] * v1[2]);
  const z = c0 * v1[2] + c1 * v0[2] + (v0[0] * v1[1] - v0[1] * v1[0]);
  const w = c0 * c1 - (v0[0] * v1[0] + v0[1] * v1[1] + v0[2] * v1[2]);
  const v2 = E2;
  v2[0] = 0;
  v2[1] = 0;
  v2[2] = 0;
  v2[i2] = s2;
  out[0] = w * v2[0] + c2 * x + (y * v2[2] - z * v2[1]);
  out[1] = w * v2[1] + c2 * y + (z * v2[0] - x * v2[2]);
  out[2] = w * v2[2] + c2 * z + (x * v2[1] - y * v2[0]);
  out[3] = w * c2 - (x * v2[0] + y * v2[1] + z * v2[2]);
  return out;
}
const E0 = [0, 0, 0];
const E1 = [0, 0, 0];
const E2 = [0, 0, 0];

const M = new Float64Array(9); // row-major rotation matrix scratch

function quatToMatrix(q: ArrayLike<number>): void {
  const x = q[0];
  const y = q[1];
  const z = q[2];
  const w = q[3];
  const n = x * x + y * y + z * z + w * w;
  const s = n > 0 ? 2 / n : 0;
  M[0] = 1 - s * (y * y + z * z);
  M[1] = s * (x * y - z * w);
  M[2] = s * (x * z + y * w);
  M[3] = s * (x * y + z * w);
  M[4] = 1 - s * (x * x + z * z);
  M[5] = s * (y * z - x * w);
  M[6] = s * (x * z - y * w);
  M[7] = s * (y * z + x * w);
  M[8] = 1 - s * (x * x + y * y);
}

/** Angle congruent to `a` (mod 2 pi) nearest to `ref`. */
function nearestCongruent(a: number, ref: number): number {
  return a + 2 * Math.PI * m_round((ref - a) / (2 * Math.PI));
}

/** Below this |cos(middle angle)| the first and third axes are treated as aligned (gimbal lock). */
const GIMBAL_EPS = 1e-7;

/**
 * Euler angles (radians, in the order of the letters of `order`) of `q`, the inverse of
 * {@link quatFromEuler}, written to `out[0..2]`.
 *
 * Continuity: when `prev` (the previous frame's angles in the same order) is given, the result is
 * the one of the two equivalent solutions `(a, b, c)` and `(a + pi, pi - b, c + pi)`, each angle
 * shifted by multiples of 2 pi, that lies nearest to `prev`, so tracks have no 360-degree jumps or
 * 180-degree flips. At gimbal lock (middle angle +-90 degrees) only `a +- c` is defined: the third
 * angle is held at `prev[2]` (or 0) and the first absorbs the rest, so there is no jitter.
 *
 * Source: the standard extraction from the rotation matrix, e.g. Shoemake, "Euler angle conversion",
 * Graphics Gems IV (1994), with middle angle via atan2 for accuracy near +-90 degrees.
 */
export function eulerFromQuat(
  out: NumArray,
  q: ArrayLike<number>,
  order: EulerOrder,
  prev?: ArrayLike<number>,
): NumArray {
  quatToMatrix(q);
  const i = AXIS_INDEX[order[0]];
  const j = AXIS_INDEX[order[1]];
  const k = AXIS_INDEX[order[2]];
  // parity: +1 for cyclic (XYZ, YZX, ZXY), -1 otherwise
  const s = (j - i + 3) % 3 === 1 ? 1 : -1;
  const sinB = s * M[3 * i + k];
  const cosB = m_sqrt(M[3 * i + i] * M[3 * i + i] + M[3 * i + j] * M[3 * i + j]);
  let b = m_atan2(sinB, cosB);
  let a: number;
  let c: number;
  if (cosB > GIMBAL_EPS) {
    a = m_atan2(-s * M[3 * j + k], M[3 * k + k]);
    c = m_atan2(-s * M[3 * i + j], M[3 * i + i]);
    if (prev) {
      const a1 = nearestCongruent(a, prev[0]);
      const b1 = nearestCongruent(b, prev[1]);
      const c1 = nearestCongruent(c, prev[2]);
      const a2 = nearestCongruent(a + Math.PI, prev[0]);
      const b2 = nearestCongruent(Math.PI - b, prev[1]);
      const c2 = nearestCongruent(c + Math.PI, prev[2]);
      const d1 = (a1 - prev[0]) ** 2 + (b1 - prev[1]) ** 2 + (c1 - prev[2]) ** 2;
      const d2 = (a2 - prev[0]) ** 2 + (b2 - prev[1]) ** 2 + (c2 - prev[2]) ** 2;
      if (d2 < d1) {
        a = a2;
        b = b2;
        c = c2;
      } else {
        a = a1;
        b = b1;
        c = c1;
      }
    }
  } else {
    // Gimbal lock: hold c, solve a from the remaining 2x2 block.
    c = prev ? prev[2] : 0;
    // With R = Ri(a) Rj(b) Rk(c) and cos b = 0, the product Ri(a) * Rk(+-c) depends on a -+ c only.
    // Remove Rk(c) from the right, then read a from M' = R Rk(-c): M' = Ri(a) Rj(b).
    const cc = m_cos(c);
    const sc = m_sin(c);
    // column j of M' = M * Rk(-c) column j. For Rk(-c): columns i and j mix.
    // Rk(t) in the (i, j) plane rotates i->j by s*t. Column j of M' = -s*sin(-c) M[:,i] + cos(-c) M[:,j].
    const mjj = sc * s * M[3 * j + i] + cc * M[3 * j + j];
    const mkj = sc * s * M[3 * k + i] + cc * M[3 * k + j];
    // For M' = Ri(a) Rj(b): column j of Rj(b) is e_j, so column j of M' = Ri(a) e_j = (.., cos a, s sin a) in (j, k).
    a = m_atan2(s * mkj, mjj);
    if (prev) {
      a = nearestCongruent(a, prev[0]);
      b = nearestCongruent(b, prev[1]);
    }
  }
  out[0] = a;
  out[1] = b;
  out[2] = c;
  return out;
}

/** Degrees to radians for three values in place. */
export function degToRad3(v: NumArray): NumArray {
  v[0] *= RAD;
  v[1] *= RAD;
  v[2] *= RAD;
  return v;
}
