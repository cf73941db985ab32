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
