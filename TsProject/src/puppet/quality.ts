/**
 * Quality of a deformed puppet mesh (issue 22 part 3, "no tears"): per triangle the signed area after the
 * deformation against its rest signed area. Engine-free; {@link triangleQuality} allocates nothing when
 * given its scratch array, so it can run every frame.
 *
 * Signed area of triangle (p0, p1, p2): A = ((x1 - x0)(y2 - y0) - (y1 - y0)(x2 - x0)) / 2, drawing pixels^2
 * (y down; the mesh's rest triangles all have A > 0, mesh.ts). Area ratio r = A_posed / A_rest:
 * - **flipped**: r <= 0, the triangle's orientation changed (or it collapsed to a line): the texture is
 *   mirrored there and the mesh folds over its neighbours;
 * - **stretch** of an unflipped triangle: max(r, 1 / r), 1 for a rigid motion, 4 for a uniform 2x scale or
 *   a 2x shrink of both sides; the worst and the 99th percentile (nearest rank) over the unflipped triangles.
 * Triangles whose rest area is below {@link MIN_REST_AREA} (degenerate after snapping) are left out and
 * counted in `skipped`.
 */
import type { PuppetMesh } from './mesh';

/** Rest triangles with a smaller area (px^2) are not measured. */
export const MIN_REST_AREA = 1e-6;

/** The figures of one deformed mesh (one frame). */
export interface TriangleQuality {
  /** Triangles with area ratio <= 0 (flipped or collapsed). */
  flipped: number;
  /** Triangles measured (rest area >= MIN_REST_AREA). */
  measured: number;
  /** Triangles left out (degenerate at rest). */
  skipped: number;
  /** Smallest area ratio A_posed / A_rest over the measured triangles (negative when one flipped). */
  minAreaRatio: number;
  /** Largest area ratio. */
  maxAreaRatio: number;
  /** Largest max(r, 1 / r) over the unflipped triangles (1 when none is measured). */
  worstStretch: number;
  /** 99th percentile (nearest rank) of max(r, 1 / r) over the unflipped triangles. */
  p99Stretch: number;
  /** Index of the triangle with the worst stretch, or of the first flipped one when some flipped; -1 if none. */
  worstTriangle: number;
}

/** A zeroed {@link TriangleQuality}, to be filled per frame. */
export function createTriangleQuality(): TriangleQuality {
  return {
    flipped: 0,
    measured: 0,
    skipped: 0,
    minAreaRatio: 1,
    maxAreaRatio: 1,
    worstStretch: 1,
    p99Stretch: 1,
    worstTriangle: -1,
  };
}

/**
 * Measure `posed` (2 floats per vertex, drawing pixels) against the mesh's rest vertices (formulas in the
 * module doc).
 * @param out receives the figures (a reused object: no allocation).
 * @param scratch Float64Array of at least mesh.triangleCount entries for the percentile (allocated when absent).
 * @throws RangeError when `posed` has fewer than 2 * vertexCount entries or scratch is too short.
 */
export function triangleQuality(
  mesh: PuppetMesh,
  posed: ArrayLike<number>,
  out: TriangleQuality = createTriangleQuality(),
  scratch: Float64Array = new Float64Array(mesh.triangleCount),
): TriangleQuality {
  if (posed.length < 2 * mesh.vertexCount)
    throw new RangeError(
      `triangleQuality: posed has ${posed.length} values, expected ${2 * mesh.vertexCount} (2 per vertex)`,
    );
  if (scratch.length < mesh.triangleCount)
    throw new RangeError(
      `triangleQuality: scratch has ${scratch.length} entries, need ${mesh.triangleCount}`,
    );
  const R = mesh.vertices;
  const T = mesh.triangles;
  let flipped = 0;
  let measured = 0;
  let skipped = 0;
  let minR = Number.POSITIVE_INFINITY;
  let maxR = Number.NEGATIVE_INFINITY;
  let worst = 1;
  let worstT = -1;
  let firstFlip = -1;
  let ns = 0;
  for (let t = 0; t < mesh.triangleCount; t++) {
    const a = T[3 * t];
    const b = T[3 * t + 1];
    const c = T[3 * t + 2];
    const ra = signedArea2(R[2 * a], R[2 * a + 1], R[2 * b], R[2 * b + 1], R[2 * c], R[2 * c + 1]);
    if (!(Math.abs(ra) >= 2 * MIN_REST_AREA)) {
      skipped++;
      continue;
    }
    const pa = signedArea2(
      posed[2 * a],
      posed[2 * a + 1],
      posed[2 * b],
      posed[2 * b + 1],
      posed[2 * c],
      posed[2 * c + 1],
    );
    const r = pa / ra;
    measured++;
    if (r < minR) minR = r;
    if (r > maxR) maxR = r;
    if (!(r > 0)) {
      flipped++;
      if (firstFlip < 0) firstFlip = t;
      continue;
    }
    const s = r >= 1 ? r : 1 / r;
    scratch[ns++] = s;
    if (s > worst) {
      worst = s;
      worstT = t;
    }
  }
  out.flipped = flipped;
  out.measured = measured;
  out.skipped = skipped;
  out.minAreaRatio = measured > 0 ? minR : 1;
  out.maxAreaRatio = measured > 0 ? maxR : 1;
  out.worstStretch = worst;
  out.p99Stretch = ns > 0 ? kthSmallest(scratch, ns, Math.ceil(0.99 * ns) - 1) : 1;
  out.worstTriangle = firstFlip >= 0 ? firstFlip : worstT;
  return out;
}

/** Twice the signed area of (x0, y0), (x1, y1), (x2, y2). */
export function signedArea2(x0: number, y0: number, x1: number, y1: number, x2: number, y2: number): number {
  return (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
}

/** The k-th smallest (0-based) of a[0..n) by quickselect (Hoare, 1961); reorders a. */
function kthSmallest(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const s = a[i];
        a[i] = a[j];
        a[j] = s;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/** The figures of a whole take (puppet.json `stats.mesh`, `kind puppet tune`). */
export interface TakeQuality {
  frames: number;
  /** Frames with at least one flipped triangle. */
  framesWithFlips: number;
  /** Flipped triangles summed over the frames. */
  flippedTriangleFrames: number;
  /** Most flipped triangles in one frame, and the first frame (index) with that many (-1 when none). */
  maxFlipped: number;
  maxFlippedFrame: number;
  /** Worst stretch max(r, 1 / r) over every unflipped triangle of every frame, and its frame. */
  worstStretch: number;
  worstStretchFrame: number;
  /** The largest per-frame 99th percentile of the stretch. */
  p99Stretch: number;
  /** Smallest and largest area ratio over the take. */
  minAreaRatio: number;
  maxAreaRatio: number;
}

/** Accumulates {@link TriangleQuality} of each frame into a {@link TakeQuality}; allocation-free per add. */
export class TakeQualityAccumulator {
  readonly take: TakeQuality = {
    frames: 0,
    framesWithFlips: 0,
    flippedTriangleFrames: 0,
    maxFlipped: 0,
    maxFlippedFrame: -1,
    worstStretch: 1,
    worstStretchFrame: -1,
    p99Stretch: 1,
    minAreaRatio: 1,
    maxAreaRatio: 1,
  };

  /** Start a new take: every figure back to its empty value. */
  reset(): void {
    const t = this.take;
    t.frames = 0;
    t.framesWithFlips = 0;
    t.flippedTriangleFrames = 0;
    t.maxFlipped = 0;
    t.maxFlippedFrame = -1;
    t.worstStretch = 1;
    t.worstStretchFrame = -1;
    t.p99Stretch = 1;
    t.minAreaRatio = 1;
    t.maxAreaRatio = 1;
  }

  /** Add one frame's triangle quality to the take's figures. */
  add(q: TriangleQuality): void {
    const t = this.take;
    const f = t.frames++;
    if (q.flipped > 0) t.framesWithFlips++;
    t.flippedTriangleFrames += q.flipped;
    if (q.flipped > t.maxFlipped) {
      t.maxFlipped = q.flipped;
      t.maxFlippedFrame = f;
    }
    if (q.worstStretch > t.worstStretch) {
      t.worstStretch = q.worstStretch;
      t.worstStretchFrame = f;
    }
    if (q.p99Stretch > t.p99Stretch) t.p99Stretch = q.p99Stretch;
    if (f === 0 || q.minAreaRatio < t.minAreaRatio) t.minAreaRatio = q.minAreaRatio;
    if (f === 0 || q.maxAreaRatio > t.maxAreaRatio) t.maxAreaRatio = q.maxAreaRatio;
  }
}

/**
 * Self-overlap of one deformed mesh (issue 22 "no tears", the fresh-user review): tears that flip nothing. A
 * triangle pushed over its neighbours keeps its orientation (flipped = 0) and the fold-over guard holds its
 * area within [1/5, 5], yet the texture is drawn twice there and torn open beside it (the six-armed figure's
 * shirt pulled into a V). Measured from geometry only (the rest and posed mesh, not a renderer):
 *
 * - **overlap**: sum over unordered pairs of triangles (t, u) of the SAME group (body part: `groups`, e.g.
 *   DepthOrder.triangleGroup; all one group without it) of area(posed t ∩ posed u), drawing px^2, leaving out
 *   pairs that already overlap at rest (more than {@link REST_OVERLAP} px^2: the mesh's gap rebuild can make
 *   such copies). Area covered twice counts once per pair. `overlapPercent` = overlap / rest area of the
 *   measured triangles x 100.
 * - **crossOverlap**: the same between triangles of DIFFERENT groups (a limb in front of the body or of
 *   another limb): a property of the pose, drawn by the layers, not a defect by itself.
 * - **atGuardBound**: triangles whose area ratio r = A_posed / A_rest is within `boundTolerance` (2 %) of the
 *   fold-over guard's bounds (r <= minAreaRatio x 1.02 or r >= maxAreaRatio / 1.02; deform.ts), flipped ones
 *   included: where the guard is what holds the mesh together.
 *
 * Intersection of two triangles: Sutherland-Hodgman clipping of one by the three half-planes of the other
 * (Sutherland & Hodgman 1974, "Reentrant polygon clipping", CACM 17(1)), its area by the shoelace formula;
 * each triangle is taken with its own orientation (a flipped one is reversed), so a flipped triangle lying on
 * its neighbour counts its area. Broad phase: bounding boxes, all pairs (O(T^2) box tests, ~0.3 ms for 800
 * triangles). {@link OverlapMeter.measure} allocates nothing.
 */
export interface MeshOverlap {
  /** Same-group overlap, px^2 (module doc). */
  overlap: number;
  /** overlap over the rest area of the measured triangles, percent. */
  overlapPercent: number;
  /** Pairs of same-group triangles that overlap (more than 1e-6 px^2). */
  overlappingPairs: number;
  /** Overlap between different groups, px^2. */
  crossOverlap: number;
  /** Triangles at the fold-over guard's bounds (within boundTolerance). */
  atGuardBound: number;
}

/** A zeroed {@link MeshOverlap}, to be filled per frame. */
export function createMeshOverlap(): MeshOverlap {
  return { overlap: 0, overlapPercent: 0, overlappingPairs: 0, crossOverlap: 0, atGuardBound: 0 };
}

/** Rest pairs overlapping by more than this (px^2) are not counted when posed. */
export const REST_OVERLAP = 1e-3;

/** A pair counts as overlapping (overlappingPairs) above this area, px^2. */
const PAIR_EPS = 1e-6;

/** Options of the overlap measure: the body-part group of each triangle and the guard's area bounds. */
export interface OverlapOptions {
  /** Group (body part) of each triangle; triangles of one group are checked against each other. Default: one group. */
  groups?: ArrayLike<number> | null;
  /** The guard's bounds (deform.ts; default 0.2 and 5). */
  minAreaRatio?: number;
  maxAreaRatio?: number;
  /** A ratio within this factor of a bound is at it (default 1.02). */
  boundTolerance?: number;
}

/** Measures {@link MeshOverlap} of deformed copies of one mesh; setup finds the rest overlaps once. */
export class OverlapMeter {
  private readonly nt: number;
  private readonly restArea2: Float64Array;
  private readonly box: Float64Array;
  private readonly group: Int32Array;
  private readonly restPairs: Set<number>;
  private readonly bufA = new Float64Array(24);
  private readonly bufB = new Float64Array(24);
  private readonly lo: number;
  private readonly hi: number;
  /** Rest area of the measured triangles, px^2. */
  readonly restArea: number;

  constructor(
    readonly mesh: PuppetMesh,
    options: OverlapOptions = {},
  ) {
    const nt = mesh.triangleCount;
    this.nt = nt;
    const tol = options.boundTolerance ?? 1.02;
    this.lo = (options.minAreaRatio ?? 0.2) * tol;
    this.hi = (options.maxAreaRatio ?? 5) / tol;
    this.group = new Int32Array(nt);
    if (options.groups) for (let t = 0; t < nt; t++) this.group[t] = options.groups[t];
    this.restArea2 = new Float64Array(nt);
    this.box = new Float64Array(4 * nt);

    const R = mesh.vertices;
    const T = mesh.triangles;
    let area = 0;
    for (let t = 0; t < nt; t++) {
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const c = T[3 * t + 2];
      this.restArea2[t] = signedArea2(R[2 * a], R[2 * a + 1], R[2 * b], R[2 * b + 1], R[2 * c], R[2 * c + 1]);
      if (Math.abs(this.restArea2[t]) >= 2 * MIN_REST_AREA) area += Math.abs(this.restArea2[t]) / 2;
    }
    this.restArea = area;
    this.restPairs = new Set();
    this.boxes(R);
    for (let t = 0; t < nt; t++)
      for (let u = t + 1; u < nt; u++)
        if (this.boxesMeet(t, u) && this.pairArea(R, t, u) > REST_OVERLAP) this.restPairs.add(t * nt + u);
  }

  /**
   * Measure `posed` (2 floats per vertex, drawing pixels).
   * @throws RangeError when `posed` has fewer than 2 * vertexCount entries.
   */
  measure(posed: ArrayLike<number>, out: MeshOverlap = createMeshOverlap()): MeshOverlap {
    const { mesh, nt, group, restPairs, restArea2 } = this;
    if (posed.length < 2 * mesh.vertexCount)
      throw new RangeError(
        `OverlapMeter: posed has ${posed.length} values, expected ${2 * mesh.vertexCount} (2 per vertex)`,
      );
    this.boxes(posed);
    const T = mesh.triangles;
    let same = 0;
    let cross = 0;
    let pairs = 0;
    let atBound = 0;
    for (let t = 0; t < nt; t++) {
      if (!(Math.abs(restArea2[t]) >= 2 * MIN_REST_AREA)) continue;
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const c = T[3 * t + 2];
      const r =
        signedArea2(
          posed[2 * a],
          posed[2 * a + 1],
          posed[2 * b],
          posed[2 * b + 1],
          posed[2 * c],
          posed[2 * c + 1],
        ) / restArea2[t];
      if (!(r > this.lo && r < this.hi)) atBound++;
      for (let u = t + 1; u < nt; u++) {
        if (!(Math.abs(restArea2[u]) >= 2 * MIN_REST_AREA) || !this.boxesMeet(t, u)) continue;
        if (restPairs.size > 0 && restPairs.has(t * nt + u)) continue;
        const s = this.pairArea(posed, t, u);
        if (group[t] === group[u]) {
          same += s;
          if (s > PAIR_EPS) pairs++;
        } else cross += s;
      }
    }
    out.overlap = same;
    out.overlapPercent = this.restArea > 0 ? (100 * same) / this.restArea : 0;
    out.overlappingPairs = pairs;
    out.crossOverlap = cross;
    out.atGuardBound = atBound;
    return out;
  }

  private boxes(P: ArrayLike<number>): void {
    const T = this.mesh.triangles;
    const B = this.box;
    for (let t = 0; t < this.nt; t++) {
      let x0 = Number.POSITIVE_INFINITY;
      let y0 = Number.POSITIVE_INFINITY;
      let x1 = Number.NEGATIVE_INFINITY;
      let y1 = Number.NEGATIVE_INFINITY;
      for (let m = 0; m < 3; m++) {
        const v = T[3 * t + m];
        const x = P[2 * v];
        const y = P[2 * v + 1];
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
      B[4 * t] = x0;
      B[4 * t + 1] = y0;
      B[4 * t + 2] = x1;
      B[4 * t + 3] = y1;
    }
  }

  private boxesMeet(t: number, u: number): boolean {
    const B = this.box;
    return (
      B[4 * t] < B[4 * u + 2] &&
      B[4 * u] < B[4 * t + 2] &&
      B[4 * t + 1] < B[4 * u + 3] &&
      B[4 * u + 1] < B[4 * t + 3]
    );
  }

  /** Area of the intersection of triangles t and u at positions P (module doc). */
  private pairArea(P: ArrayLike<number>, t: number, u: number): number {
    const T = this.mesh.triangles;
    let A = this.bufA;
    let B = this.bufB;
    // t as a positively oriented polygon in A
    const ta = T[3 * t];
    const tb = T[3 * t + 1];
    const tc = T[3 * t + 2];
    const st = signedArea2(P[2 * ta], P[2 * ta + 1], P[2 * tb], P[2 * tb + 1], P[2 * tc], P[2 * tc + 1]);
    const su = signedArea2(
      P[2 * T[3 * u]],
      P[2 * T[3 * u] + 1],
      P[2 * T[3 * u + 1]],
      P[2 * T[3 * u + 1] + 1],
      P[2 * T[3 * u + 2]],
      P[2 * T[3 * u + 2] + 1],
    );
    if (st === 0 || su === 0) return 0;
    for (let m = 0; m < 3; m++) {
      const v = T[3 * t + (st > 0 ? m : 2 - m)];
      A[2 * m] = P[2 * v];
      A[2 * m + 1] = P[2 * v + 1];
    }
    let n = 3;
    // clip by u's edges, u taken positively oriented
    for (let e = 0; e < 3 && n > 0; e++) {
      const i = T[3 * u + (su > 0 ? e : 2 - e)];
      const j = T[3 * u + (su > 0 ? (e + 1) % 3 : (4 - e) % 3)];
      const px = P[2 * i];
      const py = P[2 * i + 1];
      const ex = P[2 * j] - px;
      const ey = P[2 * j + 1] - py;
      let m = 0;
      for (let k = 0; k < n; k++) {
        const k1 = k + 1 < n ? k + 1 : 0;
        const ax = A[2 * k];
        const ay = A[2 * k + 1];
        const bx = A[2 * k1];
        const by = A[2 * k1 + 1];
        const da = ex * (ay - py) - ey * (ax - px);
        const db = ex * (by - py) - ey * (bx - px);
        if (da >= 0) {
          B[2 * m] = ax;
          B[2 * m + 1] = ay;
          m++;
        }
        if (da >= 0 !== db >= 0) {
          const f = da / (da - db);
          B[2 * m] = ax + f * (bx - ax);
          B[2 * m + 1] = ay + f * (by - ay);
          m++;
        }
      }
      const s = A;
      A = B;
      B = s;
      n = m;
    }
    let area2 = 0;
    for (let k = 0; k < n; k++) {
      const k1 = k + 1 < n ? k + 1 : 0;
      area2 += A[2 * k] * A[2 * k1 + 1] - A[2 * k1] * A[2 * k + 1];
    }
    return area2 > 0 ? area2 / 2 : 0;
  }
}

/** Frames whose same-group overlap exceeds this many px^2 count in {@link TakeOverlap.framesWithOverlap}. */
export const OVERLAP_FRAME_PX2 = 1;

/** {@link MeshOverlap} over a take (puppet.json `stats.mesh.overlap`). */
export interface TakeOverlap {
  frames: number;
  /** Largest same-group overlap of a frame, px^2, its percent of the rest area, and the first frame with it. */
  maxOverlap: number;
  maxOverlapPercent: number;
  maxOverlapFrame: number;
  /** Mean same-group overlap per frame, px^2. */
  meanOverlap: number;
  /** Frames with more than OVERLAP_FRAME_PX2 (1 px^2) of same-group overlap. */
  framesWithOverlap: number;
  /** Largest overlap between different groups in a frame, px^2 (limbs in front of the body: not a defect). */
  maxCrossOverlap: number;
  /** Most triangles at the guard's bounds in one frame, and the first frame with that many. */
  maxAtGuardBound: number;
  maxAtGuardBoundFrame: number;
}

/** Accumulates {@link MeshOverlap} of each frame into a {@link TakeOverlap}; allocation-free per add. */
export class TakeOverlapAccumulator {
  readonly take: TakeOverlap = {
    frames: 0,
    maxOverlap: 0,
    maxOverlapPercent: 0,
    maxOverlapFrame: -1,
    meanOverlap: 0,
    framesWithOverlap: 0,
    maxCrossOverlap: 0,
    maxAtGuardBound: 0,
    maxAtGuardBoundFrame: -1,
  };
  private sum = 0;

  /** Add one frame's overlap figures to the take's. */
  add(q: MeshOverlap): void {
    const t = this.take;
    const f = t.frames++;
    this.sum += q.overlap;
    t.meanOverlap = this.sum / t.frames;
    if (q.overlap > OVERLAP_FRAME_PX2) t.framesWithOverlap++;
    if (q.overlap > t.maxOverlap) {
      t.maxOverlap = q.overlap;
      t.maxOverlapPercent = q.overlapPercent;
      t.maxOverlapFrame = f;
    }
    if (q.crossOverlap > t.maxCrossOverlap) t.maxCrossOverlap = q.crossOverlap;
    if (q.atGuardBound > t.maxAtGuardBound) {
      t.maxAtGuardBound = q.atGuardBound;
      t.maxAtGuardBoundFrame = f;
    }
  }
}

/**
 * The body part of each triangle for {@link OverlapMeter}'s `groups`: its main transform is the one with the
 * largest weight summed over its three corners (as depthOrder.ts assigns layers); its part is the topmost
 * ancestor-or-self of that joint in the same layer group (`groupOfJoint`, -1 = none). Each numbered copy of a
 * limb is then a part of its own (three arms of one layer do not count as overlapping themselves when they lie
 * side by side), and a standard character's parts are its layers (trunk, each arm, each leg). Setup only.
 */
export function triangleParts(
  mesh: PuppetMesh,
  weights: { joints: Uint8Array; weights: Float32Array },
  parents: readonly number[],
  groupOfJoint: ArrayLike<number>,
): Int32Array {
  const N = parents.length;
  const top = new Int32Array(N);
  for (let j = 0; j < N; j++) {
    let k = j;
    while (parents[k] >= 0 && groupOfJoint[parents[k]] === groupOfJoint[j]) k = parents[k];
    top[j] = k;
  }
  const sum = new Float64Array(N);
  const out = new Int32Array(mesh.triangleCount);
  const T = mesh.triangles;
  for (let t = 0; t < mesh.triangleCount; t++) {
    sum.fill(0);
    for (let m = 0; m < 3; m++) {
      const v = T[3 * t + m];
      for (let s = 0; s < 4; s++) sum[weights.joints[4 * v + s]] += weights.weights[4 * v + s];
    }
    let best = 0;
    for (let j = 1; j < N; j++) if (sum[j] > sum[best]) best = j;
    out[t] = groupOfJoint[best] < 0 ? -1 : top[best];
  }
  return out;
}

/** Group of each of `jointCount` joints from layer groups' joint lists (DepthOrder.groups); -1 for none. */
export function jointGroups(
  groups: readonly { joints: readonly number[] }[],
  jointCount: number,
): Int32Array {
  const g = new Int32Array(jointCount).fill(-1);
  groups.forEach((grp, k) => {
    for (const j of grp.joints) g[j] = k;
  });
  return g;
}
