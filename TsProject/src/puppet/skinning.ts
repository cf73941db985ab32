/**
 * CPU linear blend skinning of the puppet mesh. Engine-free, allocation-free.
 *
 * v' = sum_i w_i M_{j_i} v (Magnenat-Thalmann et al. 1988; the usual LBS), computed as
 * v' = v + sum_i w_i ((A_i - I) v + t_i), which is the same when the weights sum to 1 and gives exactly v
 * when every transform is the identity (float32 weights that sum to 1 - 6e-8 do not shift the rest pose).
 */
import type { PuppetMesh } from './mesh';
import type { SkinWeights } from './weights';

/**
 * Skin the mesh's rest vertices.
 * @param transforms Float64Array(21 * 6) from DrawingRig.pose: per joint [a, b, c, d, tx, ty] (rest px -> posed px).
 * @param out Float32Array(2 * vertexCount) receiving the posed positions, drawing pixels (y down).
 */
export function skin(
  mesh: PuppetMesh,
  weights: SkinWeights,
  transforms: Float64Array,
  out: Float32Array,
): void {
  const V = mesh.vertices;
  const J = weights.joints;
  const W = weights.weights;
  const n = mesh.vertexCount;
  for (let v = 0; v < n; v++) {
    const x = V[2 * v];
    const y = V[2 * v + 1];
    let dx = 0;
    let dy = 0;
    for (let k = 4 * v; k < 4 * v + 4; k++) {
      const w = W[k];
      if (w === 0) continue;
      const o = 6 * J[k];
      dx += w * ((transforms[o] - 1) * x + transforms[o + 2] * y + transforms[o + 4]);
      dy += w * (transforms[o + 1] * x + (transforms[o + 3] - 1) * y + transforms[o + 5]);
    }
    out[2 * v] = x + dx;
    out[2 * v + 1] = y + dy;
  }
}
