/**
 * The puppet's deformation (issue 22 part 3, "no tears"): linear blend skinning, then an as-rigid-as-possible
 * refinement and a fold-over guard. Engine-free; {@link Deformer.deform} allocates nothing.
 *
 * LBS alone folds the mesh where the pose bends far from the drawing (a forearm across the chest drags the
 * torso's vertices that carry some arm weight, the crotch in a deep squat, the armpit of a raised arm): the
 * blended affine maps of neighbouring vertices disagree and triangles flip. ARAP keeps each triangle as close
 * to a rotated copy of its rest shape as it can while the vertices that belong to one bone follow LBS.
 *
 * Energy (Sorkine & Alexa 2007, "As-Rigid-As-Possible Surface Modeling", SGP; the 2-D triangle form as in
 * Igarashi, Moscovich & Hughes 2005, "As-Rigid-As-Possible Shape Manipulation", SIGGRAPH), per-triangle
 * weights c_t, soft handles:
 *
 *   E(p, R) = sum_t c_t sum_{(i,j) edge of t} |(p_i - p_j) - R_t (r_i - r_j)|^2 + sum_v lambda_v |p_v - h_v|^2
 *
 * c_t = min(1, A_t / (spacing^2 / 2)) x min(1, shared_t / 0.25): slivers at the outline weigh little, and
 * so do seams, triangles whose corners follow different bones (shared_t = the least over the triangle's
 * edges of sum_k min(w_a[k], w_b[k]), the skinning weight the two ends give the same transforms): LBS
 * stretches those (a hand drawn against the hip) and ARAP should not drag one part after the other there.
 *
 * r = rest vertices, h = the LBS result (skinning.ts), R_t a 2-D rotation per triangle, lambda_v the
 * handle stiffness of vertex v: `handleStiffness * s^2` with s = clamp((w0 - rigidFrom) / (1 - rigidFrom))
 * and w0 its largest skinning weight (1 inside one bone, ~0.5 where two bones blend), plus
 * `freeStiffness` everywhere (the system stays positive definite on every piece of the mesh).
 * Alternation from p = h: local step R_t = the rotation that best maps the triangle's rest edges onto the
 * current ones (2-D Procrustes: angle atan2(sum e x p, sum e . p)); global step: (L + Lambda) p = b with
 * L the c_t-weighted graph Laplacian of the triangles' edges and b_i = sum_t c_t sum_j R_t (r_i - r_j) + lambda_i
 * h_i. L + Lambda depends only on the rest mesh and the weights: it is ordered by reverse Cuthill-McKee
 * (Cuthill & McKee 1969) and factored once (envelope Cholesky, George & Liu 1981, ch. 4); each global step
 * is a forward and a back substitution, x and y together.
 *
 * Fold-over guard: ARAP lowers the folds but does not forbid them (the handles themselves can pull a
 * triangle inside out at a sharply bent elbow or a deep squat's crotch). After the iterations, every
 * triangle whose area ratio A_posed / A_rest is outside [minAreaRatio, maxAreaRatio] (default [0.2, 5]:
 * flipped ones included, their ratio is negative) is projected back inside by the area constraint of
 * position-based dynamics (Mueller et al. 2007), Gauss-Seidel over those triangles, sweep after sweep until
 * none is left or `guardSweeps` is reached; `lastOutOfBoundsAfter` says what was left (0 on every frame of
 * the shared recordings and the embedded one, DRAWING.md). So the area stretch max(r, 1 / r) of every
 * triangle is at most 5 (quality.ts) when the guard converged.
 *
 * LBS first, then from there: the same transforms give the same vertices whatever came before (no state
 * between frames), so a take can be rendered twice and the page and `kind puppet render` agree.
 */
import type { PuppetMesh } from './mesh';
import { MIN_REST_AREA, signedArea2 } from './quality';
import { skin } from './skinning';
import type { SkinWeights } from './weights';

/**
 * The guard pushes a triangle out of bounds to this factor inside the bound (0.2 -> 0.3, 5 -> 3.33): fewer
 * sweeps than 1.1 (11,673 against 15,459 over the 830 frames of DRAWING.md's table, at most 116 against 169,
 * measured before the seam weights).
 */
const GUARD_MARGIN = 1.5;

/**
 * A triangle's ARAP weight falls to 0 below this shared weight of its corners (the least over its edges of
 * sum_k min(w_a[k], w_b[k]) over the transforms both name); 0.25: the synthetic arms-down figure's raised
 * forearm no longer drags its hip (test/puppet.cli.test.ts); the squat still 0 flips, stretch <= 5 (DRAWING.md).
 */
const SEAM_OVERLAP = 0.25;

/**
 * How the mesh is deformed: `'lbs'` (linear blend skinning alone) or `'arap'` (LBS refined
 * as-rigid-as-possible, with the fold-over guard).
 */
export type DeformMode = 'lbs' | 'arap';
/** Every {@link DeformMode}. */
export const DEFORM_MODES: readonly DeformMode[] = ['lbs', 'arap'];
/** The default: ARAP (0 flipped triangles on the shared recordings and the embedded one, DRAWING.md). */
export const DEFAULT_DEFORM_MODE: DeformMode = 'arap';

/**
 * Options of the ARAP refinement (Sorkine & Alexa 2007) and the fold-over guard: iterations, stiffnesses,
 * guard sweeps and the area bounds.
 */
export interface ArapOptions {
  /** Local/global iterations per frame (default 2: more lowered neither the folds left for the guard nor its sweeps). */
  iterations?: number;
  /** Stiffness of a vertex wholly inside one bone (w0 = 1), in edge-count units (default 30). */
  handleStiffness?: number;
  /** Largest weight below which a vertex is free (default 0.6). */
  rigidFrom?: number;
  /** Stiffness towards LBS of every vertex (default 0.02). */
  freeStiffness?: number;
  /** Most fold-over guard sweeps per frame (default 300; the shared recordings and the embedded one needed at most 186). */
  guardSweeps?: number;
  /** Least area ratio A_posed / A_rest the guard holds every triangle to (default 0.2). */
  minAreaRatio?: number;
  /** Largest area ratio the guard holds every triangle to (default 5). */
  maxAreaRatio?: number;
}

/** The ARAP defaults, each chosen from the measured sweeps in DRAWING.md. */
export const DEFAULT_ARAP_OPTIONS: Required<ArapOptions> = {
  iterations: 2,
  handleStiffness: 30,
  rigidFrom: 0.6,
  freeStiffness: 0.02,
  guardSweeps: 300,
  minAreaRatio: 0.2,
  maxAreaRatio: 5,
};

/**
 * Deforms one mesh with its weights: `deform(transforms, out)` writes LBS (mode 'lbs') or LBS + ARAP +
 * fold-over guard (mode 'arap') into `out`. Setup (once) factors the ARAP system: O(n b^2) for n vertices
 * and envelope width b (a grid mesh: b ~ the vertices across the drawing).
 */
export class Deformer {
  readonly mode: DeformMode;
  readonly options: Required<ArapOptions>;
  /** Float32Array(2 * vertexCount): the LBS result of the last deform, drawing pixels. */
  readonly lbs: Float32Array;
  /**
   * At the last deform (mode 'arap'): triangles outside the area-ratio bounds before the fold-over guard,
   * after it (0 when it converged), and the guard sweeps run. Mode 'lbs': the LBS result's triangles out
   * of bounds in both, 0 sweeps.
   */
  lastOutOfBoundsBefore = 0;
  lastOutOfBoundsAfter = 0;
  lastGuardSweeps = 0;
  private readonly n: number;
  private readonly lambda: Float64Array;
  // reverse Cuthill-McKee: perm[k] = vertex at position k
  private readonly perm: Int32Array;
  private readonly first: Int32Array;
  private readonly rowStart: Int32Array;
  private readonly L: Float64Array;
  private readonly restEdges: Float64Array;
  private readonly rot: Float64Array;
  private readonly px: Float64Array;
  private readonly py: Float64Array;
  private readonly bx: Float64Array;
  private readonly by: Float64Array;
  private readonly bad: Int32Array;
  private readonly restArea2: Float64Array;
  private readonly triWeight: Float64Array;
  private readonly invMass: Float64Array;

  /**
   * @param weights the mesh's skinning weights (weights.ts; only the largest of each vertex sets its stiffness).
   * @throws RangeError for an unknown mode, a non-positive stiffness, a negative or fractional count, or area
   *   bounds not around 1.
   */
  constructor(
    readonly mesh: PuppetMesh,
    readonly weights: SkinWeights,
    mode: DeformMode = DEFAULT_DEFORM_MODE,
    options: ArapOptions = {},
  ) {
    if (!DEFORM_MODES.includes(mode))
      throw new RangeError(`unknown deformation '${mode}', expected ${DEFORM_MODES.join(' or ')}`);
    const o = { ...DEFAULT_ARAP_OPTIONS, ...options };
    for (const k of ['iterations', 'guardSweeps'] as const)
      if (!(Number.isInteger(o[k]) && o[k] >= 0))
        throw new RangeError(`ARAP option ${k} must be a whole number >= 0, got ${o[k]}`);
    for (const k of ['handleStiffness', 'freeStiffness'] as const)
      if (!(o[k] > 0 && Number.isFinite(o[k])))
        throw new RangeError(`ARAP option ${k} must be a positive number, got ${o[k]}`);
    if (!(o.minAreaRatio > 0 && o.minAreaRatio < 1 && o.maxAreaRatio > 1 && Number.isFinite(o.maxAreaRatio)))
      throw new RangeError(
        `ARAP options need 0 < minAreaRatio < 1 < maxAreaRatio, got ${o.minAreaRatio} and ${o.maxAreaRatio}`,
      );
    if (!(o.rigidFrom >= 0 && o.rigidFrom < 1))
      throw new RangeError(`ARAP option rigidFrom must be in [0, 1), got ${o.rigidFrom}`);
    this.mode = mode;
    this.options = o;
    const n = mesh.vertexCount;
    const nt = mesh.triangleCount;
    this.n = n;
    this.lbs = new Float32Array(2 * n);
    this.px = new Float64Array(n);
    this.py = new Float64Array(n);
    this.bx = new Float64Array(n);
    this.by = new Float64Array(n);
    this.rot = new Float64Array(2 * nt);
    this.bad = new Int32Array(nt);
    this.restArea2 = new Float64Array(nt);
    // rest edges per triangle: (r1 - r0), (r2 - r1), (r0 - r2)
    const R = mesh.vertices;
    const T = mesh.triangles;
    this.restEdges = new Float64Array(6 * nt);
    for (let t = 0; t < nt; t++)
      for (let e = 0; e < 3; e++) {
        const i = T[3 * t + e];
        const j = T[3 * t + ((e + 1) % 3)];
        this.restEdges[6 * t + 2 * e] = R[2 * j] - R[2 * i];
        this.restEdges[6 * t + 2 * e + 1] = R[2 * j + 1] - R[2 * i + 1];
      }
    for (let t = 0; t < nt; t++) {
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const c = T[3 * t + 2];
      this.restArea2[t] = signedArea2(R[2 * a], R[2 * a + 1], R[2 * b], R[2 * b + 1], R[2 * c], R[2 * c + 1]);
    }
    // handle stiffness from the largest weight
    this.lambda = new Float64Array(n);
    this.invMass = new Float64Array(n);
    const W = weights.weights;
    for (let v = 0; v < n; v++) {
      const w0 = W[4 * v];
      const s = Math.min(1, Math.max(0, (w0 - o.rigidFrom) / (1 - o.rigidFrom)));
      this.lambda[v] = o.freeStiffness + o.handleStiffness * s * s;
      this.invMass[v] = 1 / (1 + this.lambda[v]);
    }
    // triangle weights (module doc): rest area over a grid cell's half, at most 1, times how far its corners
    // follow the same transforms (a triangle joining a hand drawn against the hip to the hip is a seam that
    // LBS stretches: holding it rigid dragged a spike of the body after the raised forearm)
    this.triWeight = new Float64Array(nt);
    const full = (mesh.spacing * mesh.spacing) / 2;
    const J = weights.joints;
    // how much two vertices follow the same transforms: sum over transforms of the smaller weight (1 = same)
    const overlap = (a: number, b: number) => {
      let o = 0;
      for (let p = 4 * a; p < 4 * a + 4; p++)
        for (let q = 4 * b; q < 4 * b + 4; q++) if (J[p] === J[q]) o += Math.min(W[p], W[q]);
      return o;
    };
    for (let t = 0; t < nt; t++) {
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const c = T[3 * t + 2];
      const shared = Math.min(overlap(a, b), overlap(b, c), overlap(c, a));
      const joined = Math.min(1, shared / SEAM_OVERLAP);
      this.triWeight[t] = joined * Math.min(1, Math.max(0, this.restArea2[t] / 2 / full));
    }
    // adjacency (summed triangle weights of each edge) and the ordering
    const adj: Map<number, number>[] = Array.from({ length: n }, () => new Map());
    for (let t = 0; t < nt; t++)
      for (let e = 0; e < 3; e++) {
        const i = T[3 * t + e];
        const j = T[3 * t + ((e + 1) % 3)];
        const c = this.triWeight[t];
        adj[i].set(j, (adj[i].get(j) ?? 0) + c);
        adj[j].set(i, (adj[j].get(i) ?? 0) + c);
      }
    this.perm = reverseCuthillMcKee(adj);
    const pos = new Int32Array(n);
    for (let k = 0; k < n; k++) pos[this.perm[k]] = k;
    // envelope: first column of each row (in the new order)
    this.first = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      let f = k;
      for (const j of adj[this.perm[k]].keys()) if (pos[j] < f) f = pos[j];
      this.first[k] = f;
    }
    this.rowStart = new Int32Array(n + 1);
    for (let k = 0; k < n; k++) this.rowStart[k + 1] = this.rowStart[k] + (k - this.first[k] + 1);
    const L = new Float64Array(this.rowStart[n]);
    const at = (row: number, col: number) => this.rowStart[row] + (col - this.first[row]);
    for (let k = 0; k < n; k++) {
      const v = this.perm[k];
      let deg = 0;
      for (const [j, c] of adj[v]) {
        deg += c;
        const q = pos[j];
        if (q < k) L[at(k, q)] -= c;
      }
      L[at(k, k)] = deg + this.lambda[v];
    }
    envelopeCholesky(L, this.first, this.rowStart, n);
    this.L = L;
  }

  /**
   * Deform the mesh for one frame.
   * @param transforms Float64Array(jointCount * 6), rig.ts layout (rest px -> posed px per joint).
   * @param out Float32Array(2 * vertexCount), drawing pixels.
   */
  deform(transforms: Float64Array, out: Float32Array): void {
    skin(this.mesh, this.weights, transforms, this.lbs);
    if (this.mode === 'lbs') {
      out.set(this.lbs);
      const { px, py, lbs } = this;
      for (let v = 0; v < this.n; v++) {
        px[v] = lbs[2 * v];
        py[v] = lbs[2 * v + 1];
      }
      this.lastOutOfBoundsBefore = this.lastOutOfBoundsAfter = this.markOutOfBounds();
      this.lastGuardSweeps = 0;
      return;
    }
    const n = this.n;
    const { px, py, lbs } = this;
    for (let v = 0; v < n; v++) {
      px[v] = lbs[2 * v];
      py[v] = lbs[2 * v + 1];
    }
    for (let it = 0; it < this.options.iterations; it++) {
      this.fitRotations();
      this.globalStep();
    }
    this.lastOutOfBoundsBefore = this.markOutOfBounds();
    let bad = this.lastOutOfBoundsBefore;
    let sweeps = 0;
    while (bad > 0 && sweeps < this.options.guardSweeps) {
      this.guardSweep(bad);
      sweeps++;
      bad = this.markOutOfBounds();
    }
    this.lastGuardSweeps = sweeps;
    this.lastOutOfBoundsAfter = bad;
    for (let v = 0; v < n; v++) {
      out[2 * v] = px[v];
      out[2 * v + 1] = py[v];
    }
  }

  /** Local step: per triangle the rotation (cos, sin) fitting its rest edges to the current ones. */
  private fitRotations(): void {
    const T = this.mesh.triangles;
    const E = this.restEdges;
    const { px, py, rot } = this;
    for (let t = 0; t < this.mesh.triangleCount; t++) fitRotation(T, E, px, py, t, rot);
  }

  /** Global step: solve (L + Lambda) p = b for x and y. */
  private globalStep(): void {
    const n = this.n;
    const { bx, by, lbs, lambda, rot } = this;
    for (let v = 0; v < n; v++) {
      bx[v] = lambda[v] * lbs[2 * v];
      by[v] = lambda[v] * lbs[2 * v + 1];
    }
    const T = this.mesh.triangles;
    const E = this.restEdges;
    const tw = this.triWeight;
    for (let t = 0; t < this.mesh.triangleCount; t++) {
      const c = rot[2 * t] * tw[t];
      const s = rot[2 * t + 1] * tw[t];
      for (let e = 0; e < 3; e++) {
        const i = T[3 * t + e];
        const j = T[3 * t + ((e + 1) % 3)];
        const ex = E[6 * t + 2 * e];
        const ey = E[6 * t + 2 * e + 1];
        // R e with e = r_j - r_i: p_j - p_i should be R e
        const rx = c * ex - s * ey;
        const ry = s * ex + c * ey;
        bx[j] += rx;
        by[j] += ry;
        bx[i] -= rx;
        by[i] -= ry;
      }
    }
    this.solve();
  }

  /**
   * Solve (L L^T) p = b for both coordinates at once: bx, by (original vertex order) in, px, py out; bx and
   * by are overwritten (they hold the permuted work).
   */
  private solve(): void {
    const n = this.n;
    const { perm, first, rowStart, L, bx, by, px, py } = this;
    for (let k = 0; k < n; k++) {
      px[k] = bx[perm[k]];
      py[k] = by[perm[k]];
    }
    for (let k = 0; k < n; k++) {
      let sx = px[k];
      let sy = py[k];
      const base = rowStart[k] - first[k];
      for (let j = first[k]; j < k; j++) {
        const l = L[base + j];
        sx -= l * px[j];
        sy -= l * py[j];
      }
      const d = L[base + k];
      px[k] = sx / d;
      py[k] = sy / d;
    }
    for (let k = n - 1; k >= 0; k--) {
      const base = rowStart[k] - first[k];
      const d = L[base + k];
      const xk = px[k] / d;
      const yk = py[k] / d;
      px[k] = xk;
      py[k] = yk;
      for (let j = first[k]; j < k; j++) {
        const l = L[base + j];
        px[j] -= l * xk;
        py[j] -= l * yk;
      }
    }
    for (let k = 0; k < n; k++) {
      bx[perm[k]] = px[k];
      by[perm[k]] = py[k];
    }
    for (let v = 0; v < n; v++) {
      px[v] = bx[v];
      py[v] = by[v];
    }
  }

  /** Mark the triangles outside [minAreaRatio, maxAreaRatio] in `bad` (indices first); returns how many. */
  private markOutOfBounds(): number {
    const T = this.mesh.triangles;
    const { px, py, restArea2 } = this;
    const lo = this.options.minAreaRatio;
    const hi = this.options.maxAreaRatio;
    let f = 0;
    for (let t = 0; t < this.mesh.triangleCount; t++) {
      if (!(restArea2[t] >= 2 * MIN_REST_AREA)) continue;
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const c = T[3 * t + 2];
      // twice the signed area, inlined (doubles passed to a call V8 does not inline get boxed)
      const ax = px[a];
      const ay = py[a];
      const r = ((px[b] - ax) * (py[c] - ay) - (py[b] - ay) * (px[c] - ax)) / restArea2[t];
      if (!(r >= lo && r <= hi)) this.bad[f++] = t;
    }
    return f;
  }

  /**
   * One guard sweep (Gauss-Seidel over the marked triangles): the area constraint of position-based
   * dynamics (Mueller et al. 2007, "Position Based Dynamics", J. Vis. Commun. Image R. 18(2)) moves the
   * three corners along the gradient of the signed area, weighted by inverse masses (1 / (1 + lambda_v):
   * a bone's own vertices move least), to a target inside the bound (GUARD_MARGIN); a triangle collapsed to a point
   * (no gradient) takes its rest shape rotated by its fitted rotation about its centroid.
   */
  private guardSweep(count: number): void {
    const T = this.mesh.triangles;
    const E = this.restEdges;
    const R = this.mesh.vertices;
    const { px, py, rot, restArea2, invMass } = this;
    const lo = this.options.minAreaRatio;
    const hi = this.options.maxAreaRatio;
    for (let k = 0; k < count; k++) {
      const t = this.bad[k];
      const a = T[3 * t];
      const b = T[3 * t + 1];
      const d = T[3 * t + 2];
      const ax = px[a];
      const ay = py[a];
      const area2 = (px[b] - ax) * (py[d] - ay) - (py[b] - ay) * (px[d] - ax);
      const r = area2 / restArea2[t];
      let target: number;
      if (r < lo) target = restArea2[t] * Math.min(1, lo * GUARD_MARGIN);
      else if (r > hi) target = restArea2[t] * Math.max(1, hi / GUARD_MARGIN);
      else continue;
      // gradients of 2A with respect to each corner
      const gax = py[b] - py[d];
      const gay = px[d] - px[b];
      const gbx = py[d] - py[a];
      const gby = px[a] - px[d];
      const gdx = py[a] - py[b];
      const gdy = px[b] - px[a];
      const wa = invMass[a];
      const wb = invMass[b];
      const wd = invMass[d];
      const den = wa * (gax * gax + gay * gay) + wb * (gbx * gbx + gby * gby) + wd * (gdx * gdx + gdy * gdy);
      if (den > 1e-12 * Math.abs(restArea2[t])) {
        const lam = (target - area2) / den;
        px[a] += lam * wa * gax;
        py[a] += lam * wa * gay;
        px[b] += lam * wb * gbx;
        py[b] += lam * wb * gby;
        px[d] += lam * wd * gdx;
        py[d] += lam * wd * gdy;
        continue;
      }
      fitRotation(T, E, px, py, t, rot);
      const c = rot[2 * t];
      const s = rot[2 * t + 1];
      const gx = (px[a] + px[b] + px[d]) / 3;
      const gy = (py[a] + py[b] + py[d]) / 3;
      const rx = (R[2 * a] + R[2 * b] + R[2 * d]) / 3;
      const ry = (R[2 * a + 1] + R[2 * b + 1] + R[2 * d + 1]) / 3;
      for (let m = 0; m < 3; m++) {
        const v = T[3 * t + m];
        const ux = R[2 * v] - rx;
        const uy = R[2 * v + 1] - ry;
        px[v] = gx + c * ux - s * uy;
        py[v] = gy + s * ux + c * uy;
      }
    }
  }
}

/** The 2-D rotation best mapping triangle t's rest edges onto its current edges (least squares). */
function fitRotation(
  T: Uint32Array,
  E: Float64Array,
  px: Float64Array,
  py: Float64Array,
  t: number,
  rot: Float64Array,
): void {
  let dot = 0;
  let cross = 0;
  for (let e = 0; e < 3; e++) {
    const i = T[3 * t + e];
    const j = T[3 * t + ((e + 1) % 3)];
    const qx = px[j] - px[i];
    const qy = py[j] - py[i];
    const ex = E[6 * t + 2 * e];
    const ey = E[6 * t + 2 * e + 1];
    dot += ex * qx + ey * qy;
    cross += ex * qy - ey * qx;
  }
  const m = Math.sqrt(dot * dot + cross * cross); // not Math.hypot: it allocates per call
  if (m > 0) {
    rot[2 * t] = dot / m;
    rot[2 * t + 1] = cross / m;
  } else {
    rot[2 * t] = 1;
    rot[2 * t + 1] = 0;
  }
}

/**
 * Reverse Cuthill-McKee ordering of a graph (adjacency maps): each component from a vertex of least degree,
 * breadth first with neighbours by increasing degree, then reversed. Returns perm[k] = vertex at position k.
 */
function reverseCuthillMcKee(adj: Map<number, number>[]): Int32Array {
  const n = adj.length;
  const order = new Int32Array(n);
  const seen = new Uint8Array(n);
  const deg = adj.map((m) => m.size);
  let head = 0;
  let tail = 0;
  const byDegree = Array.from({ length: n }, (_, i) => i).sort((a, b) => deg[a] - deg[b] || a - b);
  for (const start of byDegree) {
    if (seen[start]) continue;
    seen[start] = 1;
    order[tail++] = start;
    while (head < tail) {
      const v = order[head++];
      const nb = [...adj[v].keys()].filter((j) => !seen[j]).sort((a, b) => deg[a] - deg[b] || a - b);
      for (const j of nb) {
        seen[j] = 1;
        order[tail++] = j;
      }
    }
  }
  return order.reverse();
}

/**
 * In-place envelope (profile) Cholesky A = L L^T: row k holds columns first[k]..k at rowStart[k]; the
 * factor has the same envelope (George & Liu 1981).
 * @throws RangeError when A is not positive definite.
 */
function envelopeCholesky(A: Float64Array, first: Int32Array, rowStart: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) {
    const bi = rowStart[i] - first[i];
    for (let j = first[i]; j <= i; j++) {
      const bj = rowStart[j] - first[j];
      let s = A[bi + j];
      for (let k = Math.max(first[i], first[j]); k < j; k++) s -= A[bi + k] * A[bj + k];
      if (j < i) A[bi + j] = s / A[bj + j];
      else {
        if (!(s > 0)) throw new RangeError(`ARAP system not positive definite at row ${i}`);
        A[bi + i] = Math.sqrt(s);
      }
    }
  }
}

/**
 * The mesh with its triangles in drawing order (issue 22 part 3: a forearm across the chest was drawn
 * under the torso where the torso's rows came later in the grid, so the torso cut the hand with straight
 * edges). Each vertex's layer is the depth in the joint hierarchy of its largest-weight transform (transform
 * j = the bone ending at joint j: spine 1, chest and thighs 2, shins 3, head, clavicles and feet 4, upper
 * arms 5, forearms 6, hands 7); a triangle's layer is the largest of its corners'. Triangles are stably
 * sorted by layer, so bones further down a chain draw over the ones above them: arms over the body, the head
 * over the chest. Same vertices, uvs and triangle set; only the order of `triangles` changes (the rasteriser
 * and the page draw in that order, later over earlier).
 * @param parents parent joint of each joint (-1 for the root), indexed like the weights' transforms.
 */
export function drawOrder(mesh: PuppetMesh, weights: SkinWeights, parents: ArrayLike<number>): PuppetMesh {
  const depth = new Int32Array(parents.length);
  for (let j = 0; j < parents.length; j++) {
    let d = 0;
    for (let k = parents[j]; k >= 0 && d <= parents.length; k = parents[k]) d++;
    depth[j] = d;
  }
  const T = mesh.triangles;
  const layer = (t: number) => {
    let l = 0;
    for (let m = 0; m < 3; m++) {
      const j = weights.joints[4 * T[3 * t + m]];
      if (depth[j] > l) l = depth[j];
    }
    return l;
  };
  const order = Array.from({ length: mesh.triangleCount }, (_, t) => t);
  const layers = order.map(layer);
  order.sort((a, b) => layers[a] - layers[b] || a - b);
  const triangles = new Uint32Array(T.length);
  for (let k = 0; k < order.length; k++)
    for (let m = 0; m < 3; m++) triangles[3 * k + m] = T[3 * order[k] + m];
  return { ...mesh, triangles };
}
