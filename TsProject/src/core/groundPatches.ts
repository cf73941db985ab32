/**
 * Ground patches from contact points (issue 20, point 4): where feet rest, the ground is found from the
 * data, not assumed to be one floor. Each point is a contact (a still foot) in a horizontal basis
 * `(x, y)` of the floor plane and its height `h` along up, metres. Points that several agree on form a
 * patch, the plane `h = a + bx x + by y` (flat when `bx = by = 0`); in the world this is the plane
 * `n.p + d = 0` of the seed (../shared/seeds/001, "경사면에서는 지면을 다음 평면으로 표현할 수 있습니다"):
 * see {@link patchPlane}.
 *
 * Fit (a greedy consensus in the manner of RANSAC, Fischler and Bolles 1981, with every point tried as a
 * seed instead of random draws, so the result is deterministic): among the points not yet placed, every
 * point seeds a flat candidate (the level of the point, then the median of its inliers) and, where at
 * least 3 points lie within `radius` of it, a tilted candidate (least squares over those neighbours,
 * then over its inliers); a point is an inlier of a candidate when its height is within `tolerance` of
 * the candidate's plane at that point. The candidate with the most inliers becomes a patch and its
 * inliers leave the pool; a tilted candidate must beat the best flat one by at least 2 inliers and 10 %
 * (a flat floor with noise stays flat), and is never steeper than `maxTilt` (a staircase, about 30
 * degrees, is steps, not a ramp). Neighbours spread along one line only (a walk in a straight line: the
 * feet are 0.1-0.2 m apart across it) give no slope across that line: the fit then tilts along the line
 * only. Set-up time code (allocates; O(n^2) per patch for n points).
 */

/** One contact point: horizontal coordinates and height along up, metres. */
export interface GroundPoint {
  x: number;
  y: number;
  h: number;
}

/** A patch of ground: the plane `h = a + bx x + by y` and the indices of the points on it (sorted). */
export interface GroundPatch {
  a: number;
  bx: number;
  by: number;
  /** Angle of the plane from level, radians (`atan(hypot(bx, by))`). */
  tilt: number;
  members: number[];
}

/** Options of {@link fitGroundPatches}: the height tolerance (metres) and the limits of a tilted patch. */
export interface GroundPatchOptions {
  /** Largest height difference of a point from its patch, metres. */
  tolerance: number;
  /** Neighbourhood of a tilted candidate's seed, metres (horizontal). Default 1.5. */
  radius?: number;
  /** Steepest tilted patch, radians. Default 20 degrees. */
  maxTilt?: number;
  /** Smallest spread (standard deviation, metres) along a direction for the fit to tilt along it. Default 0.1. */
  minSpread?: number;
}

/** Height of the patch's plane at horizontal position (x, y), metres. */
export function patchHeight(p: GroundPatch, x: number, y: number): number {
  return p.a + p.bx * x + p.by * y;
}

/**
 * The patch as a world plane `n.p + d = 0`, given the basis the points were measured in: unit up `up`,
 * unit horizontal axes `e1`, `e2` (x = e1.p, y = e2.p) and the floor offset `floorD` (h = up.p + floorD).
 * Returns the unit normal (pointing up) and d.
 */
export function patchPlane(
  p: GroundPatch,
  up: ArrayLike<number>,
  e1: ArrayLike<number>,
  e2: ArrayLike<number>,
  floorD: number,
): { normal: [number, number, number]; d: number } {
  const l = Math.sqrt(1 + p.bx * p.bx + p.by * p.by);
  const n: [number, number, number] = [0, 0, 0];
  for (let k = 0; k < 3; k++) n[k] = (up[k] - p.bx * e1[k] - p.by * e2[k]) / l;
  return { normal: n, d: (floorD - p.a) / l };
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

interface Plane {
  a: number;
  bx: number;
  by: number;
}

/** Least-squares plane through the points `idx` (see the module doc for the one-line case). */
function fitPlane(points: readonly GroundPoint[], idx: number[], minSpread: number): Plane {
  const n = idx.length;
  let mx = 0;
  let my = 0;
  let mh = 0;
  for (const i of idx) {
    mx += points[i].x;
    my += points[i].y;
    mh += points[i].h;
  }
  mx /= n;
  my /= n;
  mh /= n;
  let cxx = 0;
  let cxy = 0;
  let cyy = 0;
  let cxh = 0;
  let cyh = 0;
  for (const i of idx) {
    const dx = points[i].x - mx;
    const dy = points[i].y - my;
    const dh = points[i].h - mh;
    cxx += dx * dx;
    cxy += dx * dy;
    cyy += dy * dy;
    cxh += dx * dh;
    cyh += dy * dh;
  }
  // eigen-decomposition of the 2x2 spread [[cxx, cxy], [cxy, cyy]]
  const tr = cxx + cyy;
  const det = cxx * cyy - cxy * cxy;
  const disc = Math.sqrt(Math.max(0, (tr * tr) / 4 - det));
  const l1 = tr / 2 + disc;
  const l2 = tr / 2 - disc;
  const min2 = minSpread * minSpread * n;
  let bx = 0;
  let by = 0;
  if (l2 >= min2 && det > 1e-18) {
    bx = (cyy * cxh - cxy * cyh) / det;
    by = (cxx * cyh - cxy * cxh) / det;
  } else if (l1 >= min2) {
    // slope along the major axis only
    let ux = Math.abs(cxy) > 1e-18 ? l1 - cyy : cxx >= cyy ? 1 : 0;
    let uy = Math.abs(cxy) > 1e-18 ? cxy : cxx >= cyy ? 0 : 1;
    const ul = Math.hypot(ux, uy);
    ux /= ul;
    uy /= ul;
    const s = (ux * cxh + uy * cyh) / l1;
    bx = s * ux;
    by = s * uy;
  }
  return { a: mh - bx * mx - by * my, bx, by };
}

function inliersOf(points: readonly GroundPoint[], alive: Uint8Array, p: Plane, tol: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) {
    if (!alive[i]) continue;
    const q = points[i];
    if (Math.abs(q.h - (p.a + p.bx * q.x + p.by * q.y)) <= tol) out.push(i);
  }
  return out;
}

/**
 * Split contact points into ground patches (see the module doc). Every point ends in exactly one patch;
 * patches come out in the order found (the largest first).
 * @throws RangeError when `tolerance` is not positive or a point is not finite (names the point).
 */
export function fitGroundPatches(points: readonly GroundPoint[], options: GroundPatchOptions): GroundPatch[] {
  const tol = options.tolerance;
  const radius = options.radius ?? 1.5;
  const maxTilt = options.maxTilt ?? (20 * Math.PI) / 180;
  const minSpread = options.minSpread ?? 0.1;
  if (!(tol > 0)) throw new RangeError(`ground patches: tolerance ${tol} must be positive`);
  points.forEach((q, i) => {
    if (!Number.isFinite(q.x + q.y + q.h))
      throw new RangeError(`ground patches: point ${i} (${q.x}, ${q.y}, ${q.h}) is not finite`);
  });
  const alive = new Uint8Array(points.length).fill(1);
  let left = points.length;
  const patches: GroundPatch[] = [];
  while (left > 0) {
    let bestFlat: { plane: Plane; inl: number[] } | null = null;
    let bestTilt: { plane: Plane; inl: number[] } | null = null;
    for (let i = 0; i < points.length; i++) {
      if (!alive[i]) continue;
      // flat candidate at the seed's level, then at the median of its inliers
      let flat: Plane = { a: points[i].h, bx: 0, by: 0 };
      let inl = inliersOf(points, alive, flat, tol);
      flat = { a: median(inl.map((j) => points[j].h)), bx: 0, by: 0 };
      const inl2 = inliersOf(points, alive, flat, tol);
      if (inl2.length >= inl.length) inl = inl2;
      else flat = { a: points[i].h, bx: 0, by: 0 };
      if (!bestFlat || inl.length > bestFlat.inl.length) bestFlat = { plane: flat, inl };
      // tilted candidate from the seed's neighbours
      const nb: number[] = [];
      for (let j = 0; j < points.length; j++)
        if (alive[j] && Math.hypot(points[j].x - points[i].x, points[j].y - points[i].y) <= radius)
          nb.push(j);
      if (nb.length < 3) continue;
      let tilt = fitPlane(points, nb, minSpread);
      if (tilt.bx === 0 && tilt.by === 0) continue;
      let tin = inliersOf(points, alive, tilt, tol);
      if (tin.length >= 3) {
        const re = fitPlane(points, tin, minSpread);
        const rin = inliersOf(points, alive, re, tol);
        if (rin.length >= tin.length) {
          tilt = re;
          tin = rin;
        }
      }
      if (Math.atan(Math.hypot(tilt.bx, tilt.by)) > maxTilt) continue;
      if (!bestTilt || tin.length > bestTilt.inl.length) bestTilt = { plane: tilt, inl: tin };
    }
    const flat = bestFlat!;
    const win =
      bestTilt &&
      bestTilt.inl.length >= flat.inl.length + 2 &&
      bestTilt.inl.length >= 1.1 * flat.inl.length &&
      bestTilt.inl.length >= 3
        ? bestTilt
        : flat;
    for (const j of win.inl) alive[j] = 0;
    left -= win.inl.length;
    const { a, bx, by } = win.plane;
    patches.push({
      a,
      bx,
      by,
      tilt: Math.atan(Math.hypot(bx, by)),
      members: win.inl.slice().sort((x, y) => x - y),
    });
  }
  return patches;
}
