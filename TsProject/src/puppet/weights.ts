/**
 * Skinning weights of the puppet mesh: up to 4 transforms per vertex. Engine-free.
 *
 * Which transform a vertex follows: transform j (rig.ts) is the motion of the bone ENDING at joint j
 * (parent(j) -> j). Three ways to choose them, all with the falloff w = 1 / (d^2 + 1), d in pixels
 * (the + 1 px^2 keeps a vertex exactly on a joint finite), the 4 largest kept and normalised to sum 1:
 * - 'joints' (issue 12 item 6): d = distance from the vertex to each of the 21 joints, the 4 nearest joints.
 *   A joint stands for the bone that STARTS at it ({@link JOINT_BONE}: the elbow for the forearm, the hips
 *   for the spine, the neck for the head); an end joint (Head, *HandTip, *Toes) for the bone ending at it.
 *   Two joints standing for the same bone add their weights.
 * - 'segments': d = distance from the vertex to each of the 20 bone segments rest[parent] -> rest[j]
 *   (as in Pose Animator's bone-distance weights, Google Creative Lab 2020), the 4 nearest bones.
 * - 'segments-geodesic': as 'segments', but d is measured INSIDE the mask: the shortest 8-connected path
 *   (steps 1 and sqrt 2 px) through mask pixels from the bone's pixels to the vertex's nearest mask pixel
 *   (Dijkstra per bone over the mask), plus the straight step from that pixel to the vertex. An arm drawn
 *   against the body with a background gap between them is then far from the body's pixels. A bone with no
 *   pixel inside the mask, or a vertex its path cannot reach, falls back to the straight distance.
 * The default is chosen from the comparison in DRAWING.md (DEFAULT_WEIGHT_MODE).
 * A character with its own skeleton (six arms, four legs: skeleton.ts) is weighted over ITS M joints and
 * bones the same way; in mode 'joints' each joint stands for the bone starting at it (its first child's in
 * the skeleton's order) or, at an end, the bone ending at it: JOINT_BONE is that rule on the 21 joints.
 */
import { type Character, characterJoints } from './character';
import type { PuppetMesh } from './mesh';
import { PuppetInputError } from './types';

/**
 * How skinning weights are computed: `'joints'` (4 nearest joints by 1/d²), `'segments'` (bone segments),
 * `'segments-geodesic'` (bone segments measured inside the mask).
 */
export type WeightMode = 'joints' | 'segments' | 'segments-geodesic';
/** Every {@link WeightMode}. */
export const WEIGHT_MODES: readonly WeightMode[] = ['joints', 'segments', 'segments-geodesic'];
/** The default mode (see DRAWING.md for the measured comparison). */
export const DEFAULT_WEIGHT_MODE: WeightMode = 'segments-geodesic';

/**
 * For mode 'joints': the transform (bone, named by its end joint) each joint stands for: the bone starting
 * at the joint (Hips -> Spine, Neck -> Head, LeftUpperArm -> LeftLowerArm, ...), or for an end joint the
 * bone ending at it.
 */
export const JOINT_BONE: readonly number[] = [
  1, 2, 3, 4, 4, 6, 7, 8, 8, 10, 11, 12, 12, 14, 15, 16, 16, 18, 19, 20, 20,
];

/** Skinning weights of a mesh: 4 (joint, weight) slots per vertex. */
export interface SkinWeights {
  /** Transform index (0..20, or 0..M-1 for a character's own skeleton of M <= 256 joints) per slot, 4 per vertex; unused slots hold 0 with weight 0. */
  joints: Uint8Array;
  /** Weight per slot, 4 per vertex, each vertex's sum 1 (to float32 rounding), sorted largest first. */
  weights: Float32Array;
}

/** For mode 'joints' on any skeleton: the bone each joint stands for (module doc); JOINT_BONE on the 21. */
export function jointBones(parents: readonly number[]): number[] {
  return parents.map((_, j) => {
    const c = parents.indexOf(j);
    return c >= 0 ? c : j;
  });
}

/**
 * Weights of each mesh vertex (modes in the module doc).
 * @throws PuppetInputError on an unknown mode.
 */
export function computeWeights(
  mesh: PuppetMesh,
  character: Character,
  mode: WeightMode = DEFAULT_WEIGHT_MODE,
): SkinWeights {
  if (!WEIGHT_MODES.includes(mode))
    throw new PuppetInputError(
      `unknown weight mode '${mode}', expected ${WEIGHT_MODES.join(', ')}`,
      'computeWeights',
    );
  const { parents } = characterJoints(character);
  const N = parents.length;
  if (N > 256)
    throw new PuppetInputError(
      `${N} joints: at most 256 joints can be skinned (transform indices are bytes)`,
      'computeWeights',
    );
  const jointBone = character.skeleton ? jointBones(parents) : JOINT_BONE;
  const n = mesh.vertexCount;
  const { x: jx, y: jy } = character.restJoints;
  // dist[v * N + t]: distance of vertex v to transform t (Infinity = not a candidate)
  const dist = new Float64Array(n * N).fill(Number.POSITIVE_INFINITY);
  const V = mesh.vertices;
  if (mode === 'joints') {
    for (let v = 0; v < n; v++)
      for (let j = 0; j < N; j++) {
        const d = Math.hypot(V[2 * v] - jx[j], V[2 * v + 1] - jy[j]);
        const t = jointBone[j];
        // two joints standing for one bone: weights add (1/(d1^2+1) + 1/(d2^2+1)); store as the equivalent distance
        const prev = dist[v * N + t];
        const wsum = (prev === Number.POSITIVE_INFINITY ? 0 : 1 / (prev * prev + 1)) + 1 / (d * d + 1);
        dist[v * N + t] = Math.sqrt(Math.max(0, 1 / wsum - 1));
      }
  } else {
    for (let v = 0; v < n; v++)
      for (let j = 0; j < N; j++) {
        const p = parents[j];
        if (p < 0) continue;
        dist[v * N + j] = segmentDistance(V[2 * v], V[2 * v + 1], jx[p], jy[p], jx[j], jy[j]);
      }
    if (mode === 'segments-geodesic') geodesicDistances(mesh, character, dist, parents);
  }
  const joints = new Uint8Array(4 * n);
  const weights = new Float32Array(4 * n);
  const bestT = new Int32Array(4);
  const bestW = new Float64Array(4);
  for (let v = 0; v < n; v++) {
    bestT.fill(-1);
    bestW.fill(0);
    for (let t = 0; t < N; t++) {
      const d = dist[v * N + t];
      if (d === Number.POSITIVE_INFINITY) continue;
      const w = 1 / (d * d + 1);
      // insert into the sorted top 4
      let k = 4;
      while (k > 0 && w > bestW[k - 1]) k--;
      if (k >= 4) continue;
      for (let m = 3; m > k; m--) {
        bestW[m] = bestW[m - 1];
        bestT[m] = bestT[m - 1];
      }
      bestW[k] = w;
      bestT[k] = t;
    }
    const sum = bestW[0] + bestW[1] + bestW[2] + bestW[3];
    for (let k = 0; k < 4; k++) {
      joints[4 * v + k] = Math.max(bestT[k], 0);
      weights[4 * v + k] = bestT[k] < 0 ? 0 : bestW[k] / sum;
    }
  }
  return { joints, weights };
}

/** Distance from (px, py) to the segment (ax, ay) - (bx, by). */
export function segmentDistance(
  px: number,
  py: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
): number {
  const ux = bx - ax;
  const uy = by - ay;
  const l2 = ux * ux + uy * uy;
  let t = l2 > 0 ? ((px - ax) * ux + (py - ay) * uy) / l2 : 0;
  t = t < 0 ? 0 : Math.min(t, 1);
  return Math.hypot(px - ax - t * ux, py - ay - t * uy);
}

/**
 * Replace dist[v * N + j] (every non-root j) by the distance through the mask (module doc). Per bone: Dijkstra
 * over the mask's pixels, seeded with the pixels the segment passes through (at their centre's distance to it).
 */
function geodesicDistances(
  mesh: PuppetMesh,
  character: Character,
  dist: Float64Array,
  parents: readonly number[],
): void {
  const N = parents.length;
  const { mask, width: w, height: h } = character;
  const { x: jx, y: jy } = character.restJoints;
  const n = mesh.vertexCount;
  const V = mesh.vertices;
  // each vertex's nearest mask pixel (searched within a few grid spacings) and the step to it
  const near = new Int32Array(n).fill(-1);
  const step = new Float64Array(n);
  const R = Math.ceil(2 * mesh.spacing) + 2;
  for (let v = 0; v < n; v++) {
    const vx = V[2 * v];
    const vy = V[2 * v + 1];
    let best = Number.POSITIVE_INFINITY;
    const cx = Math.floor(vx);
    const cy = Math.floor(vy);
    for (let y = Math.max(0, cy - R); y <= Math.min(h - 1, cy + R); y++)
      for (let x = Math.max(0, cx - R); x <= Math.min(w - 1, cx + R); x++) {
        if (!mask[y * w + x]) continue;
        const d = Math.hypot(x + 0.5 - vx, y + 0.5 - vy);
        if (d < best) {
          best = d;
          near[v] = y * w + x;
        }
      }
    step[v] = best;
  }
  const g = new Float64Array(w * h);
  const heap = new MinHeap(w * h);
  for (let j = 0; j < N; j++) {
    const p = parents[j];
    if (p < 0) continue;
    g.fill(Number.POSITIVE_INFINITY);
    heap.clear();
    const ax = jx[p];
    const ay = jy[p];
    const bx = jx[j];
    const by = jy[j];
    const len = Math.hypot(bx - ax, by - ay);
    const samples = Math.max(1, Math.ceil(len * 2));
    let seeded = 0;
    for (let s = 0; s <= samples; s++) {
      const px = Math.floor(ax + ((bx - ax) * s) / samples);
      const py = Math.floor(ay + ((by - ay) * s) / samples);
      if (px < 0 || py < 0 || px >= w || py >= h) continue;
      const q = py * w + px;
      if (!mask[q]) continue;
      const d0 = segmentDistance(px + 0.5, py + 0.5, ax, ay, bx, by);
      if (d0 < g[q]) {
        g[q] = d0;
        heap.push(q, d0);
        seeded++;
      }
    }
    if (seeded === 0) continue; // bone outside the mask: keep the straight distance
    while (heap.size > 0) {
      const q = heap.popId();
      const dq = heap.lastKey;
      if (dq > g[q]) continue;
      const qx = q % w;
      const qy = (q - qx) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = qy + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          if (dx === 0 && dy === 0) continue;
          const xx = qx + dx;
          if (xx < 0 || xx >= w) continue;
          const r = yy * w + xx;
          if (!mask[r]) continue;
          const nd = dq + (dx !== 0 && dy !== 0 ? Math.SQRT2 : 1);
          if (nd < g[r]) {
            g[r] = nd;
            heap.push(r, nd);
          }
        }
      }
    }
    for (let v = 0; v < n; v++) {
      const q = near[v];
      if (q < 0 || g[q] === Number.POSITIVE_INFINITY) continue; // unreachable: keep the straight distance
      dist[v * N + j] = Math.max(dist[v * N + j], g[q] + step[v]);
    }
  }
}

/** Binary min-heap of (id, key) with duplicates allowed (lazy deletion by the caller). */
class MinHeap {
  private ids: Int32Array;
  private keys: Float64Array;
  size = 0;
  lastKey = 0;
  constructor(capacity: number) {
    this.ids = new Int32Array(Math.max(16, capacity));
    this.keys = new Float64Array(Math.max(16, capacity));
  }
  clear(): void {
    this.size = 0;
  }
  push(id: number, key: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      const keys = new Float64Array(this.keys.length * 2);
      keys.set(this.keys);
      this.ids = ids;
      this.keys = keys;
    }
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent] <= key) break;
      this.ids[i] = this.ids[parent];
      this.keys[i] = this.keys[parent];
      i = parent;
    }
    this.ids[i] = id;
    this.keys[i] = key;
  }
  /** Remove the smallest; its key is left in lastKey. */
  popId(): number {
    const id = this.ids[0];
    this.lastKey = this.keys[0];
    const n = --this.size;
    if (n > 0) {
      const lid = this.ids[n];
      const lkey = this.keys[n];
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && this.keys[c + 1] < this.keys[c]) c++;
        if (this.keys[c] >= lkey) break;
        this.ids[i] = this.ids[c];
        this.keys[i] = this.keys[c];
        i = c;
      }
      this.ids[i] = lid;
      this.keys[i] = lkey;
    }
    return id;
  }
}
