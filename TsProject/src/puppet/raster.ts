/**
 * Software rasteriser of the skinned puppet (Node rendering and tests; the page draws with canvas/WebGL).
 * Engine-free, allocation-free per call.
 *
 * For each triangle, each target pixel whose centre lies inside the skinned triangle (top-left fill rule)
 * takes barycentric coordinates (from edge functions, Pineda 1988), interpolates the vertices' uvs and
 * samples the texture at the nearest texel (floor(u * width), floor(v * height)). The texel is drawn only
 * where the character's mask is set; its alpha is the texture's alpha (source-over onto the target).
 * Later triangles draw over earlier ones where the mesh folds.
 */
import type { Character } from './character';
import type { PuppetMesh } from './mesh';
import { type JointSet, JointStateCode, PUPPET_PARENTS, type RgbaImage } from './types';

/**
 * Options of {@link rasterize}: a background, joints to draw over the drawing, the triangle order and the
 * joints' parents.
 */
export interface RasterOptions {
  /** Fill the target with this RGBA first (default: leave the target as it is). */
  background?: readonly [number, number, number, number];
  /** Draw these joints (target pixels) and their bones on top: measured green, held yellow, inferred orange, rest grey. */
  drawJoints?: JointSet;
  /** Draw the triangles in this order (back to front; e.g. PuppetSession.drawOrder.order); default mesh order. */
  order?: Uint32Array;
  /** Parent of each joint of `drawJoints` (-1 for a root); default PUPPET_PARENTS (a character's own skeleton: its parents). */
  parents?: readonly number[];
}

/**
 * RGB of each joint state (index = JointStateCode), shared by the rasteriser's overlay and the page's
 * legend and joint dots (src/web/puppet/render.ts): measured green, held amber, parent blue, child
 * purple, torso orange, rest grey.
 */
export const STATE_RGB: readonly (readonly [number, number, number])[] = [
  [76, 175, 80], // measured
  [255, 179, 0], // held
  [41, 182, 246], // parent
  [171, 71, 188], // child
  [239, 108, 0], // torso
  [158, 158, 158], // rest
];
const STATE_COLOURS = STATE_RGB;

/**
 * Draw the character's mesh, posed at `skinned` (2 floats per vertex, target pixels), into `target`.
 */
export function rasterize(
  character: Character,
  mesh: PuppetMesh,
  skinned: Float32Array,
  target: RgbaImage,
  options?: RasterOptions,
): void {
  const { width: tw, height: th, data: out } = target;
  const bg = options?.background;
  if (bg) {
    const r = bg[0];
    const g = bg[1];
    const b = bg[2];
    const a = bg[3];
    for (let i = 0; i < tw * th * 4; i += 4) {
      out[i] = r;
      out[i + 1] = g;
      out[i + 2] = b;
      out[i + 3] = a;
    }
  }
  const tex = character.texture.data;
  const cw = character.width;
  const ch = character.height;
  const mask = character.mask;
  const uv = mesh.uvs;
  const T = mesh.triangles;
  const order = options?.order;
  for (let k = 0; k < mesh.triangleCount; k++) {
    const t = order ? order[k] : k;
    const i0 = T[3 * t];
    let i1 = T[3 * t + 1];
    let i2 = T[3 * t + 2];
    const x0 = skinned[2 * i0];
    const y0 = skinned[2 * i0 + 1];
    let x1 = skinned[2 * i1];
    let y1 = skinned[2 * i1 + 1];
    let x2 = skinned[2 * i2];
    let y2 = skinned[2 * i2 + 1];
    let area = (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0);
    if (!(area !== 0 && Number.isFinite(area))) continue;
    if (area < 0) {
      // flipped by the pose: swap two corners so the edge functions are positive inside
      const si = i1;
      i1 = i2;
      i2 = si;
      const sx = x1;
      x1 = x2;
      x2 = sx;
      const sy = y1;
      y1 = y2;
      y2 = sy;
      area = -area;
    }
    const xa = Math.max(0, Math.floor(Math.min(x0, x1, x2)));
    const xb = Math.min(tw - 1, Math.ceil(Math.max(x0, x1, x2)));
    const ya = Math.max(0, Math.floor(Math.min(y0, y1, y2)));
    const yb = Math.min(th - 1, Math.ceil(Math.max(y0, y1, y2)));
    const u0 = uv[2 * i0];
    const v0 = uv[2 * i0 + 1];
    const u1 = uv[2 * i1];
    const v1 = uv[2 * i1 + 1];
    const u2 = uv[2 * i2];
    const v2 = uv[2 * i2 + 1];
    const tl0 = isTopLeft(x1, y1, x2, y2);
    const tl1 = isTopLeft(x2, y2, x0, y0);
    const tl2 = isTopLeft(x0, y0, x1, y1);
    for (let py = ya; py <= yb; py++) {
      const cy = py + 0.5;
      for (let px = xa; px <= xb; px++) {
        const cx = px + 0.5;
        // barycentric weights of corners 0, 1, 2 (edge opposite each corner)
        const b0 = (x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1);
        const b1 = (x0 - x2) * (cy - y2) - (y0 - y2) * (cx - x2);
        const b2 = (x1 - x0) * (cy - y0) - (y1 - y0) * (cx - x0);
        if (b0 < 0 || b1 < 0 || b2 < 0) continue;
        if ((b0 === 0 && !tl0) || (b1 === 0 && !tl1) || (b2 === 0 && !tl2)) continue;
        const u = (b0 * u0 + b1 * u1 + b2 * u2) / area;
        const v = (b0 * v0 + b1 * v1 + b2 * v2) / area;
        let tx = Math.floor(u * cw);
        let ty = Math.floor(v * ch);
        if (tx < 0) tx = 0;
        else if (tx >= cw) tx = cw - 1;
        if (ty < 0) ty = 0;
        else if (ty >= ch) ty = ch - 1;
        const m = ty * cw + tx;
        if (!mask[m]) continue;
        const s = 4 * m;
        const d = 4 * (py * tw + px);
        const a = tex[s + 3];
        if (a === 255) {
          out[d] = tex[s];
          out[d + 1] = tex[s + 1];
          out[d + 2] = tex[s + 2];
          out[d + 3] = 255;
        } else if (a > 0) {
          const k = a / 255;
          const da = out[d + 3] / 255;
          const oa = k + da * (1 - k);
          for (let c = 0; c < 3; c++)
            out[d + c] = Math.round((tex[s + c] * k + out[d + c] * da * (1 - k)) / oa);
          out[d + 3] = Math.round(oa * 255);
        }
      }
    }
  }
  if (options?.drawJoints) drawSkeleton(options.drawJoints, options.parents ?? PUPPET_PARENTS, target);
}

/** Top-left fill rule for the edge a -> b of a triangle with positive signed area in y-down pixels. */
function isTopLeft(ax: number, ay: number, bx: number, by: number): boolean {
  return (ay === by && bx < ax) || by < ay;
}

/** Bones as 1-px lines (dark), joints as 5x5 squares coloured by state. */
function drawSkeleton(j: JointSet, parents: readonly number[], target: RgbaImage): void {
  const n = Math.min(parents.length, j.x.length);
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    if (p < 0) continue;
    const steps = Math.ceil(Math.max(Math.abs(j.x[i] - j.x[p]), Math.abs(j.y[i] - j.y[p]))) + 1;
    if (!Number.isFinite(steps)) continue;
    for (let s = 0; s <= steps; s++) {
      const x = j.x[p] + ((j.x[i] - j.x[p]) * s) / steps;
      const y = j.y[p] + ((j.y[i] - j.y[p]) * s) / steps;
      plot(target, Math.floor(x), Math.floor(y), 30, 30, 30);
    }
  }
  for (let i = 0; i < n; i++) {
    const c = STATE_COLOURS[j.state[i]] ?? STATE_COLOURS[JointStateCode.Rest];
    const x = Math.floor(j.x[i]);
    const y = Math.floor(j.y[i]);
    for (let dy = -2; dy <= 2; dy++)
      for (let dx = -2; dx <= 2; dx++) plot(target, x + dx, y + dy, c[0], c[1], c[2]);
  }
}

function plot(t: RgbaImage, x: number, y: number, r: number, g: number, b: number): void {
  if (x < 0 || y < 0 || x >= t.width || y >= t.height) return;
  const d = 4 * (y * t.width + x);
  t.data[d] = r;
  t.data[d + 1] = g;
  t.data[d + 2] = b;
  t.data[d + 3] = 255;
}
