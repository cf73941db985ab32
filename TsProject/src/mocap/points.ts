/**
 * Landmarks of one frame -> points in the internal frame with a confidence each, and the rotation that
 * a bone's measured directions give. Engine-free, allocation-free (the caller owns the buffers).
 */
import { quat } from 'gl-matrix';
import type { Landmark, PoseFrame } from '../puppet';
import { BONE_SPECS, type BoneSpec, POINT_COUNT, VIRTUAL_PARTS } from './bones';

const M3 = new Float64Array(9);
const Q = new Float64Array(4);

/** Confidence of a landmark whose visibility and presence are both absent (as the puppet: unknown, not 0). */
export const UNKNOWN_CONFIDENCE = 0.8;

/** Landmark confidence: min(visibility, presence) of those present; neither present: `UNKNOWN_CONFIDENCE`. */
export function landmarkConfidence(l: Landmark): number {
  const v = l.visibility;
  const p = l.presence;
  if (v === undefined) return p === undefined ? UNKNOWN_CONFIDENCE : p;
  return p === undefined || v < p ? v : p;
}

/**
 * Whether a frame shows a person: 33 world landmarks and not `"landmarks": []`, the recording format's
 * frame with no person whatever else it carries (src/puppet/landmarks.ts `personSpace`, POSE.md).
 */
export function framePerson(frame: PoseFrame): boolean {
  return frame.worldLandmarks?.length === 33 && frame.landmarks?.length !== 0;
}

/**
 * Fill `pts` (`Float64Array(3 * POINT_COUNT)`, metres, internal frame: Y up, the performer's left +X, facing
 * +Z after `heading`) and `conf` (`Float64Array(POINT_COUNT)`, [0, 1]) from the frame's 33 world landmarks
 * (MediaPipe axes, bones.ts header): `internal = Ry(heading) * (x, -y, -z)`, `heading` given as
 * `[cos, sin]` of the angle (a typed array: a double argument to a call V8 does not inline is boxed). A landmark's confidence is the
 * image landmark's when the frame has 33 of them, else the world landmark's. The virtual points 33..38 are
 * means of two landmarks (bones.ts `P`), confidence the smaller.
 * @returns false (and every confidence 0) when the frame has no 33 world landmarks or `"landmarks": []`
 *   (no person: `framePerson`).
 */
export function readWorldPoints(
  frame: PoseFrame,
  heading: Float64Array,
  pts: Float64Array,
  conf: Float64Array,
): boolean {
  const w = frame.worldLandmarks;
  if (w?.length !== 33 || !framePerson(frame)) {
    conf.fill(0);
    return false;
  }
  const img = frame.landmarks && frame.landmarks.length === 33 ? frame.landmarks : null;
  const c = heading[0];
  const s = heading[1];
  for (let i = 0; i < 33; i++) {
    const l = w[i];
    const x = l.x;
    const z = -l.z;
    pts[3 * i] = x * c + z * s;
    pts[3 * i + 1] = -l.y;
    pts[3 * i + 2] = -x * s + z * c;
    // the confidence written straight into the typed array (a double returned by a call V8 does not
    // inline is boxed: the puppet's joints.ts measured that)
    const src = img ? img[i] : l;
    const vis = src.visibility;
    const pre = src.presence;
    conf[i] =
      vis === undefined
        ? pre === undefined
          ? UNKNOWN_CONFIDENCE
          : pre
        : pre === undefined || vis < pre
          ? vis
          : pre;
  }
  for (let k = 0; k < VIRTUAL_PARTS.length; k++) {
    const a = VIRTUAL_PARTS[k][0];
    const b = VIRTUAL_PARTS[k][1];
    const o = 3 * (33 + k);
    pts[o] = 0.5 * (pts[3 * a] + pts[3 * b]);
    pts[o + 1] = 0.5 * (pts[3 * a + 1] + pts[3 * b + 1]);
    pts[o + 2] = 0.5 * (pts[3 * a + 2] + pts[3 * b + 2]);
    conf[33 + k] = Math.min(conf[a], conf[b]);
  }
  return true;
}

/** `POINT_COUNT`, re-exported for buffer sizes. */
export const POINTS = POINT_COUNT;

/**
 * Unit vector `from -> to` of the point buffer into `out` at `o`; false (nothing written) when the two
 * points coincide. (A boolean, not the length: a double returned by a call V8 does not inline is boxed.)
 */
export function pointDir(pts: Float64Array, from: number, to: number, out: Float64Array, o: number): boolean {
  const x = pts[3 * to] - pts[3 * from];
  const y = pts[3 * to + 1] - pts[3 * from + 1];
  const z = pts[3 * to + 2] - pts[3 * from + 2];
  const l = Math.sqrt(x * x + y * y + z * z);
  if (!(l > 1e-9)) return false;
  out[o] = x / l;
  out[o + 1] = y / l;
  out[o + 2] = z / l;
  return true;
}

/**
 * The rotation taking the rest basis (`a0`, `b0`, `a0 x b0`; `a0`, `b0` orthonormal) to the measured one
 * (`a` = `A[ao..ao+2]` unit, `b` = `B[bo..bo+2]` made perpendicular to `a`, `a x b`): `R = [a b c] [a0 b0 c0]^T`, as a unit quaternion
 * `[x, y, z, w]` into `out` at `o` (gl-matrix `quat.fromMat3`, Shoemake's method).
 * @returns false when `b` is (nearly) parallel to `a` (nothing written).
 */
export function basisRotation(
  A: ArrayLike<number>,
  ao: number,
  B: ArrayLike<number>,
  bo: number,
  a0: ArrayLike<number>,
  b0: ArrayLike<number>,
  out: Float64Array,
  o: number,
): boolean {
  const ax = A[ao];
  const ay = A[ao + 1];
  const az = A[ao + 2];
  const d = B[bo] * ax + B[bo + 1] * ay + B[bo + 2] * az;
  let bx = B[bo] - d * ax;
  let by = B[bo + 1] - d * ay;
  let bz = B[bo + 2] - d * az;
  const bl = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(bl > 1e-6)) return false;
  bx /= bl;
  by /= bl;
  bz /= bl;
  const cx = ay * bz - az * by;
  const cy = az * bx - ax * bz;
  const cz = ax * by - ay * bx;
  const a0x = a0[0];
  const a0y = a0[1];
  const a0z = a0[2];
  const b0x = b0[0];
  const b0y = b0[1];
  const b0z = b0[2];
  const c0x = a0y * b0z - a0z * b0y;
  const c0y = a0z * b0x - a0x * b0z;
  const c0z = a0x * b0y - a0y * b0x;
  // R_rc = a_r a0_c + b_r b0_c + c_r c0_c
  const m00 = ax * a0x + bx * b0x + cx * c0x;
  const m01 = ax * a0y + bx * b0y + cx * c0y;
  const m02 = ax * a0z + bx * b0z + cx * c0z;
  const m10 = ay * a0x + by * b0x + cy * c0x;
  const m11 = ay * a0y + by * b0y + cy * c0y;
  const m12 = ay * a0z + by * b0z + cy * c0z;
  const m20 = az * a0x + bz * b0x + cz * c0x;
  const m21 = az * a0y + bz * b0y + cz * c0y;
  const m22 = az * a0z + bz * b0z + cz * c0z;
  // gl-matrix mat3 is column-major: m[3c + r] = R_rc
  const m = M3;
  m[0] = m00;
  m[1] = m10;
  m[2] = m20;
  m[3] = m01;
  m[4] = m11;
  m[5] = m21;
  m[6] = m02;
  m[7] = m12;
  m[8] = m22;
  quat.fromMat3(Q, m);
  quat.normalize(Q, Q);
  out[o] = Q[0];
  out[o + 1] = Q[1];
  out[o + 2] = Q[2];
  out[o + 3] = Q[3];
  return true;
}

/** The spec of bone `b` (bones.ts), re-exported for the solver and the calibration. */
export function boneSpec(b: number): BoneSpec {
  return BONE_SPECS[b];
}
