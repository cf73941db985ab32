/**
 * Drawing the skinned puppet on a canvas 2D context (browser only): per-triangle affine texture mapping.
 * Each triangle of the mesh is clipped to its skinned outline (grown by half a canvas pixel so neighbours
 * overlap and no hairline seams show) and the texture is drawn through the one affine map that takes the
 * triangle's rest corners to its skinned corners. The rest vertices are in the drawing's pixels, so they are
 * also the texture coordinates (in pixels). A few hundred triangles per frame: about a millisecond.
 *
 * Affine map of a triangle, (u, v) rest px -> (x, y) posed px: with d* = corner k minus corner 0,
 * `[a c; b d] = [dx1 dx2; dy1 dy2] [du1 du2; dv1 dv2]^-1`, `e = x0 - a u0 - c v0`, `f = y0 - b u0 - d v0`
 * (canvas `setTransform(a, b, c, d, e, f)` maps (u, v) to (a u + c v + e, b u + d v + f)).
 */
import { JOINT_STATES, type JointSet, PUPPET_PARENTS, STATE_RGB } from '../../puppet';

/** Colour of each joint state (index = JointStateCode), also used by the figures table. */
export const STATE_COLOURS: readonly string[] = STATE_RGB.map(
  (c) => `#${c.map((v) => v.toString(16).padStart(2, '0')).join('')}`,
);

/** The view: drawing px -> canvas px = drawing * scale + offset. */
export interface View {
  scale: number;
  offsetX: number;
  offsetY: number;
}

/** A canvas holding the texture with alpha = mask (0 outside the drawing). */
export function maskedTexture(
  texture: { width: number; height: number; data: ArrayLike<number> },
  mask: ArrayLike<number>,
): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = texture.width;
  c.height = texture.height;
  const ctx = c.getContext('2d')!;
  const img = ctx.createImageData(texture.width, texture.height);
  const n = texture.width * texture.height;
  for (let i = 0; i < n; i++) {
    img.data[4 * i] = texture.data[4 * i];
    img.data[4 * i + 1] = texture.data[4 * i + 1];
    img.data[4 * i + 2] = texture.data[4 * i + 2];
    img.data[4 * i + 3] = mask[i] ? texture.data[4 * i + 3] : 0;
  }
  ctx.putImageData(img, 0, 0);
  return c;
}

/**
 * Draw the mesh: `rest` and `posed` are 2 floats per vertex (drawing px), `triangles` 3 vertex indices each.
 * Degenerate triangles (rest area under 1e-6 px^2) are skipped. `order`: the triangles' drawing order (back
 * to front, src/puppet/depthOrder.ts); default the mesh order.
 */
export function drawMesh(
  ctx: CanvasRenderingContext2D,
  texture: CanvasImageSource,
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  triangles: ArrayLike<number>,
  triangleCount: number,
  view: View,
  order?: ArrayLike<number>,
): void {
  const s = view.scale;
  const grow = 0.5 / s; // half a canvas pixel, in drawing px
  for (let k = 0; k < triangleCount; k++) {
    const t = order ? order[k] : k;
    const i0 = triangles[3 * t];
    const i1 = triangles[3 * t + 1];
    const i2 = triangles[3 * t + 2];
    const u0 = rest[2 * i0];
    const v0 = rest[2 * i0 + 1];
    const du1 = rest[2 * i1] - u0;
    const dv1 = rest[2 * i1 + 1] - v0;
    const du2 = rest[2 * i2] - u0;
    const dv2 = rest[2 * i2 + 1] - v0;
    const det = du1 * dv2 - du2 * dv1;
    if (Math.abs(det) < 1e-6) continue;
    const x0 = posed[2 * i0];
    const y0 = posed[2 * i0 + 1];
    const x1 = posed[2 * i1];
    const y1 = posed[2 * i1 + 1];
    const x2 = posed[2 * i2];
    const y2 = posed[2 * i2 + 1];
    const dx1 = x1 - x0;
    const dy1 = y1 - y0;
    const dx2 = x2 - x0;
    const dy2 = y2 - y0;
    const a = (dx1 * dv2 - dx2 * dv1) / det;
    const c = (dx2 * du1 - dx1 * du2) / det;
    const b = (dy1 * dv2 - dy2 * dv1) / det;
    const d = (dy2 * du1 - dy1 * du2) / det;
    const e = x0 - a * u0 - c * v0;
    const f = y0 - b * u0 - d * v0;
    // clip path: the posed triangle grown about its centroid
    const cx = (x0 + x1 + x2) / 3;
    const cy = (y0 + y1 + y2) / 3;
    ctx.save();
    ctx.setTransform(s, 0, 0, s, view.offsetX, view.offsetY);
    ctx.beginPath();
    const g0 = grow / (Math.hypot(x0 - cx, y0 - cy) || 1);
    const g1 = grow / (Math.hypot(x1 - cx, y1 - cy) || 1);
    const g2 = grow / (Math.hypot(x2 - cx, y2 - cy) || 1);
    ctx.moveTo(x0 + (x0 - cx) * g0, y0 + (y0 - cy) * g0);
    ctx.lineTo(x1 + (x1 - cx) * g1, y1 + (y1 - cy) * g1);
    ctx.lineTo(x2 + (x2 - cx) * g2, y2 + (y2 - cy) * g2);
    ctx.closePath();
    ctx.clip();
    ctx.setTransform(s * a, s * b, s * c, s * d, s * e + view.offsetX, s * f + view.offsetY);
    ctx.drawImage(texture, 0, 0);
    ctx.restore();
  }
}

/**
 * Bones (parent -> joint lines) and joints (dots coloured by state, radius by confidence), drawing px.
 * `parents`: the parent of each joint (-1 for a root): PUPPET_PARENTS, or a character's own skeleton's.
 */
export function drawJoints(
  ctx: CanvasRenderingContext2D,
  joints: JointSet,
  view: View,
  highlight = -1,
  parents: readonly number[] = PUPPET_PARENTS,
): void {
  const n = Math.min(parents.length, joints.x.length);
  const s = view.scale;
  const px = (j: number) => joints.x[j] * s + view.offsetX;
  const py = (j: number) => joints.y[j] * s + view.offsetY;
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.lineWidth = 2;
  ctx.strokeStyle = 'rgba(255,255,255,0.7)';
  ctx.beginPath();
  for (let j = 0; j < n; j++) {
    const p = parents[j];
    if (p < 0) continue;
    ctx.moveTo(px(p), py(p));
    ctx.lineTo(px(j), py(j));
  }
  ctx.stroke();
  for (let j = 0; j < n; j++) {
    const state = joints.state[j];
    ctx.fillStyle = STATE_COLOURS[state] ?? '#fff';
    ctx.strokeStyle = j === highlight ? '#fff' : 'rgba(0,0,0,0.6)';
    ctx.lineWidth = j === highlight ? 3 : 1;
    ctx.beginPath();
    ctx.arc(px(j), py(j), 3 + 4 * Math.min(1, Math.max(0, joints.confidence[j])), 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
  }
  ctx.restore();
}

/** Legend text of the state colours. */
export function stateLegend(): string {
  return JOINT_STATES.map((s, i) => `<span style="color:${STATE_COLOURS[i]}">●</span> ${s}`).join(' ');
}
