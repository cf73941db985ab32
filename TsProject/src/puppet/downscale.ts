/**
 * Big drawings (issue 22, fresh-user review): the puppet works on a drawing of at most
 * {@link PUPPET_WORK_PIXELS} pixels. The mesh has some 400 vertices whatever the drawing's size, but building
 * it, the geodesic weights and the rasteriser walk the drawing's pixels: a 0.3 MP drawing sets up in about a
 * second, a 4.9 MP one in about 12 s, and an 8128x9632 photo (78 MP) took some ten minutes. A bigger drawing
 * is scaled down by the smallest whole factor k that brings it to at most that many pixels (each output
 * pixel the mean of a k x k block; the colour weighted by alpha), its joints divided by k; the frames and
 * puppet.json are then in the scaled drawing's pixels. Above {@link PUPPET_MAX_PIXELS} a drawing is refused
 * before it is decoded (its RGBA alone would take more than 480 MB).
 * Engine-free.
 */
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { PuppetInputError, type RgbaImage } from './types';

/** Pixels of the drawing the puppet meshes, weights and draws: above this it is scaled down (2 MP). */
export const PUPPET_WORK_PIXELS = 2_000_000;

/** Pixels of a drawing the puppet reads at all (120 MP); above this it is refused. */
export const PUPPET_MAX_PIXELS = 120_000_000;

/** The whole scale-down factor k >= 1 of a width x height drawing: the least with ceil(w/k) * ceil(h/k) <= limit. */
export function workScale(width: number, height: number, limit = PUPPET_WORK_PIXELS): number {
  let k = Math.max(1, Math.floor(Math.sqrt((width * height) / limit)));
  while (Math.ceil(width / k) * Math.ceil(height / k) > limit) k++;
  return k;
}

/**
 * An image scaled down by the whole factor k: ceil(w/k) x ceil(h/k), each pixel the mean of its k x k block
 * (the blocks of the last row and column cut at the image's edge). `alphaWeighted` (a texture): the colour is
 * the alpha-weighted mean, so transparent pixels' colour does not bleed into the drawing's edge; otherwise
 * (a mask image) every channel is the plain mean.
 */
export function downscaleImage(img: RgbaImage, k: number, alphaWeighted = true): RgbaImage {
  if (!(Number.isInteger(k) && k >= 1))
    throw new RangeError(`scale factor ${k}: must be a whole number >= 1`);
  const { width: w, height: h, data } = img;
  if (data.length !== w * h * 4)
    throw new RangeError(`image data has ${data.length} bytes, expected ${w * h * 4} for ${w}x${h} RGBA`);
  if (k === 1) return { width: w, height: h, data: Uint8Array.from(data) };
  const W = Math.ceil(w / k);
  const H = Math.ceil(h / k);
  const out = new Uint8Array(W * H * 4);
  const acc = new Float64Array(W * 5); // r, g, b (weighted), alpha, count per output column of this row
  for (let Y = 0; Y < H; Y++) {
    acc.fill(0);
    const y1 = Math.min(h, (Y + 1) * k);
    for (let y = Y * k; y < y1; y++) {
      let i = y * w * 4;
      for (let x = 0; x < w; x++, i += 4) {
        const a = data[i + 3];
        const wt = alphaWeighted ? a : 1;
        const c = ((x / k) | 0) * 5;
        acc[c] += data[i] * wt;
        acc[c + 1] += data[i + 1] * wt;
        acc[c + 2] += data[i + 2] * wt;
        acc[c + 3] += a;
        acc[c + 4] += 1;
      }
    }
    for (let X = 0; X < W; X++) {
      const c = X * 5;
      const n = acc[c + 4];
      const div = alphaWeighted ? acc[c + 3] : n;
      const o = (Y * W + X) * 4;
      for (let ch = 0; ch < 3; ch++) out[o + ch] = div > 0 ? Math.round(acc[c + ch] / div) : 0;
      out[o + 3] = Math.round(acc[c + 3] / n);
    }
  }
  return { width: W, height: H, data: out };
}

/**
 * An AnimatedDrawings char_cfg.yaml for the drawing scaled down by k: `width` and `height` the scaled image's,
 * every `loc` divided by k (pixel x covers [x, x+1), so x/k is the same point of the scaled drawing); names
 * and parents as they were. Text that is not such a mapping is returned as it is (the character reader names
 * its error).
 * @param from the texture's size before scaling; @param to after.
 * @throws PuppetInputError naming `source:line` when the cfg's width x height differ from `from` (checked
 *   here, as the reader sees only the scaled sizes).
 */
export function scaleCharCfgText(
  yamlText: string,
  k: number,
  from: { width: number; height: number },
  to: { width: number; height: number },
  source: string,
): string {
  const lc = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: lc });
  const root = doc.contents;
  if (doc.errors.length > 0 || !isMap(root)) return yamlText;
  const value = (key: string) => (root.get(key, true) as { value?: unknown } | undefined)?.value;
  const w = value('width');
  const h = value('height');
  if (w !== from.width || h !== from.height) {
    const node = root.get('width', true) as { range?: [number, number, number] } | undefined;
    throw new PuppetInputError(
      `width x height ${String(w)}x${String(h)} differs from the texture's ${from.width}x${from.height}`,
      `${source}:${node?.range ? lc.linePos(node.range[0]).line : 1}`,
    );
  }
  (root.get('width', true) as { value: unknown }).value = to.width;
  (root.get('height', true) as { value: unknown }).value = to.height;
  const sk = root.get('skeleton', true);
  if (!isSeq(sk)) return doc.toString();
  for (const item of sk.items) {
    if (!isMap(item)) continue;
    const loc = item.get('loc', true);
    if (!isSeq(loc)) continue;
    loc.items.forEach((n) => {
      const v = (n as { value?: unknown }).value;
      if (typeof v === 'number') (n as { value: unknown }).value = v / k;
    });
  }
  return doc.toString();
}
