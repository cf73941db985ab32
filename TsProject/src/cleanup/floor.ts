/**
 * Floor-plane helpers (issue 11, point 5). A floor is `n.p + d = 0` with unit normal `n` (up); the
 * height of a point above it is `n.p + d`, its projection onto it `p' = p - (n.p + d) n`, and its
 * horizontal part anything perpendicular to `n`. Engine-free; no allocation except `floorBasis`.
 */
import type { NumArray } from '../core';
import { CleanupError, type FloorEstimate } from './types';

/** Height of point `p[o..o+2]` above the floor, metres (negative below). */
export function floorHeight(floor: FloorEstimate, p: NumArray, o = 0): number {
  const n = floor.normal;
  return n[0] * p[o] + n[1] * p[o + 1] + n[2] * p[o + 2] + floor.d;
}

/** Write the projection `p' = p - (n.p + d) n` of `p[o..]` onto the floor into `out[oo..]`. */
export function projectOnFloor(floor: FloorEstimate, p: NumArray, o: number, out: NumArray, oo = 0): void {
  const h = floorHeight(floor, p, o);
  const n = floor.normal;
  out[oo] = p[o] - h * n[0];
  out[oo + 1] = p[o + 1] - h * n[1];
  out[oo + 2] = p[o + 2] - h * n[2];
}

/** Horizontal distance (perpendicular to the floor normal) between `a[ao..]` and `b[bo..]`, metres. */
export function horizontalDistance(
  floor: FloorEstimate,
  a: NumArray,
  ao: number,
  b: NumArray,
  bo: number,
): number {
  const n = floor.normal;
  const x = a[ao] - b[bo];
  const y = a[ao + 1] - b[bo + 1];
  const z = a[ao + 2] - b[bo + 2];
  const v = n[0] * x + n[1] * y + n[2] * z;
  const hx = x - v * n[0];
  const hy = y - v * n[1];
  const hz = z - v * n[2];
  return Math.sqrt(hx * hx + hy * hy + hz * hz);
}

/** Two unit vectors spanning the floor plane (`e1 x e2 = n`). Set-up time. */
export function floorBasis(floor: FloorEstimate): { e1: Float64Array; e2: Float64Array } {
  const n = floor.normal;
  // the world axis least along n, made perpendicular to it
  const a =
    Math.abs(n[0]) <= Math.abs(n[1]) && Math.abs(n[0]) <= Math.abs(n[2])
      ? 0
      : Math.abs(n[1]) <= Math.abs(n[2])
        ? 1
        : 2;
  const e1 = new Float64Array(3);
  e1[a] = 1;
  const k = n[a];
  for (let i = 0; i < 3; i++) e1[i] -= k * n[i];
  const l = Math.hypot(e1[0], e1[1], e1[2]);
  for (let i = 0; i < 3; i++) e1[i] /= l;
  const e2 = new Float64Array([
    n[1] * e1[2] - n[2] * e1[1],
    n[2] * e1[0] - n[0] * e1[2],
    n[0] * e1[1] - n[1] * e1[0],
  ]);
  return { e1, e2 };
}

/**
 * Check a floor estimate and return it with its normal made unit length.
 * @throws CleanupError when the normal or d is not finite or the normal has zero length.
 */
export function checkFloor(floor: FloorEstimate): FloorEstimate {
  const [x, y, z] = floor.normal;
  const l = Math.hypot(x, y, z);
  if (!Number.isFinite(l) || l < 1e-9 || !Number.isFinite(floor.d))
    throw new CleanupError(
      `floor: normal [${floor.normal.join(', ')}] and d ${floor.d} must be finite, the normal non-zero`,
    );
  return { normal: [x / l, y / l, z / l], d: floor.d / l, method: floor.method };
}
