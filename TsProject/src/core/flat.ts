/**
 * Flat-array kernels for per-frame loops: quaternion and vector operations that read and write
 * `[x, y, z, w]` quaternions and `[x, y, z]` vectors at offsets inside typed arrays, without copying
 * them out first and without allocating.
 *
 * Why not gl-matrix here: gl-matrix (used everywhere else) is shared by every caller in a process, so
 * its element loads see many array types (plain arrays, Float32Array, Float64Array, views) and V8
 * makes them megamorphic; a megamorphic load from a Float64Array boxes each double into a new heap
 * number (measured: about 46 bytes per FK pass of a 30-bone skeleton once the test helpers had fed
 * gl-matrix plain arrays). These kernels are only called from our per-frame loops with typed arrays,
 * so their loads stay monomorphic and allocation-free, and they index in place. They take only
 * arrays and integer offsets: a double passed to a function V8 does not inline is boxed into a new
 * heap number, so per-frame code passes indices and reads its doubles from arrays.
 *
 * Formulas: Hamilton product `(a.w b.v + b.w a.v + a.v x b.v, a.w b.w - a.v . b.v)`; vector rotation
 * `v' = v + 2 w (u x v) + 2 u x (u x v)` with `u` the vector part (the form gl-matrix's
 * `vec3.transformQuat` uses).
 */
import type { NumArray } from './quat';

/** out[o] = a[ao] * b[bo] (quaternions; `out` may alias either input). */
export function qmul(out: NumArray, o: number, a: NumArray, ao: number, b: NumArray, bo: number): void {
  const ax = a[ao];
  const ay = a[ao + 1];
  const az = a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out[o] = conjugate(a[ao]) * b[bo] (for unit `a`: inverse(a) * b; `out` may alias either input). */
export function qmulConj(out: NumArray, o: number, a: NumArray, ao: number, b: NumArray, bo: number): void {
  const ax = -a[ao];
  const ay = -a[ao + 1];
  const az = -a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** out[o] = a[ao] * conjugate(b[bo]) (for unit `b`: a * inverse(b); `out` may alias either input). */
export function qmulByConj(out: NumArray, o: number, a: NumArray, ao: number, b: NumArray, bo: number): void {
  const ax = a[ao];
  const ay = a[ao + 1];
  const az = a[ao + 2];
  const aw = a[ao + 3];
  const bx = -b[bo];
  const by = -b[bo + 1];
  const bz = -b[bo + 2];
  const bw = b[bo + 3];
  out[o] = ax * bw + aw * bx + ay * bz - az * by;
  out[o + 1] = ay * bw + aw * by + az * bx - ax * bz;
  out[o + 2] = az * bw + aw * bz + ax * by - ay * bx;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Normalise the quaternion at out[o] in place (left as is when its length is 0). */
export function qnormalize(out: NumArray, o: number): void {
  const x = out[o];
  const y = out[o + 1];
  const z = out[o + 2];
  const w = out[o + 3];
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  if (l > 0) {
    out[o] = x / l;
    out[o + 1] = y / l;
    out[o + 2] = z / l;
    out[o + 3] = w / l;
  }
}

/** Copy four values. */
export function qcopy(out: NumArray, o: number, a: NumArray, ao: number): void {
  out[o] = a[ao];
  out[o + 1] = a[ao + 1];
  out[o + 2] = a[ao + 2];
  out[o + 3] = a[ao + 3];
}

/**
 * out[o] = rotate v[vo] by q[qo], or by its conjugate when `sign` is -1 (an integer: no boxing).
 * `out` may alias `v`.
 */
function rotateSigned(
  out: NumArray,
  o: number,
  q: NumArray,
  qo: number,
  v: NumArray,
  vo: number,
  sign: number,
): void {
  const qx = sign * q[qo];
  const qy = sign * q[qo + 1];
  const qz = sign * q[qo + 2];
  const qw = q[qo + 3];
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  let uvx = qy * z - qz * y;
  let uvy = qz * x - qx * z;
  let uvz = qx * y - qy * x;
  let uuvx = qy * uvz - qz * uvy;
  let uuvy = qz * uvx - qx * uvz;
  let uuvz = qx * uvy - qy * uvx;
  const w2 = qw * 2;
  uvx *= w2;
  uvy *= w2;
  uvz *= w2;
  uuvx *= 2;
  uuvy *= 2;
  uuvz *= 2;
  out[o] = x + uvx + uuvx;
  out[o + 1] = y + uvy + uuvy;
  out[o + 2] = z + uvz + uuvz;
}

/** out[o] = rotate v[vo] by q[qo] (vectors; `out` may alias `v`). */
export function vrotate(out: NumArray, o: number, q: NumArray, qo: number, v: NumArray, vo: number): void {
  rotateSigned(out, o, q, qo, v, vo, 1);
}

/** out[o] = rotate v[vo] by conjugate(q[qo]) (for unit `q`: the inverse rotation). */
export function vrotateConj(
  out: NumArray,
  o: number,
  q: NumArray,
  qo: number,
  v: NumArray,
  vo: number,
): void {
  rotateSigned(out, o, q, qo, v, vo, -1);
}
