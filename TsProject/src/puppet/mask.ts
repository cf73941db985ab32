/**
 * Masks of a drawing: which pixels belong to the character. Engine-free (no Node or DOM API).
 *
 * A mask is a `Uint8Array` of `width * height` bytes, row-major, top row first, each 0 (background) or
 * 255 (character), the same layout as the texture's pixels.
 */
import { PuppetInputError, type RgbaImage } from './types';

/** Options of {@link maskFromImage}. */
export interface MaskOptions {
  /** Alpha above this counts as character when the image has transparency. Default 127. */
  alphaThreshold?: number;
  /**
   * Adaptive threshold (photo of paper): a pixel is ink when its darkest channel is below the mean of its
   * square neighbourhood minus this many levels. Default 8 (AnimatedDrawings' constant C).
   */
  offset?: number;
  /** Side of the square neighbourhood in pixels (odd). Default: about a fifth of the image's smaller side, at least 15. */
  block?: number;
  /** Where the image came from, for messages. */
  source?: string;
}

/** True when at least 1 % of the pixels are less than half opaque (a PNG cut out with alpha). */
export function hasTransparency(img: RgbaImage): boolean {
  const n = img.width * img.height;
  let clear = 0;
  for (let i = 0; i < n; i++) if (img.data[i * 4 + 3] < 128) clear++;
  return clear >= 0.01 * n;
}

/**
 * The character's mask from an image of it.
 *
 * - Image with transparency ({@link hasTransparency}): mask = alpha > `alphaThreshold`, then the largest
 *   8-connected component with its holes filled.
 * - Opaque image (a photo or scan of a drawing on paper): background separation in the steps of
 *   AnimatedDrawings' `segment()` (facebookresearch/AnimatedDrawings, examples/image_to_annotations.py;
 *   Smith et al. 2023, "A Method for Animating Children's Drawings of the Human Figure", ACM TOG 42(3)),
 *   written here from that description: (1) darkest channel per pixel (ink of any colour is dark in some
 *   channel); (2) adaptive threshold: ink where the value is below the local box mean minus `offset` (the box
 *   mean from a summed-area table; AnimatedDrawings uses a Gaussian-weighted mean, block 115, C = 8);
 *   (3) morphological closing then dilation with a 3x3 square, twice each, to join pen strokes; (4) the
 *   largest 8-connected component; (5) holes filled (every background pixel not reachable from the image
 *   border through background becomes character). Strokes that do not close a shape leave it hollow.
 *
 * @returns Uint8Array(width * height) of 0 / 255.
 * @throws PuppetInputError when the image's data length is wrong or nothing is found (an empty mask).
 */
export function maskFromImage(img: RgbaImage, options: MaskOptions = {}): Uint8Array {
  const where = options.source ?? 'image';
  checkImage(img, where);
  const { width: w, height: h, data } = img;
  const n = w * h;
  let mask: Uint8Array = new Uint8Array(n);
  if (hasTransparency(img)) {
    const t = options.alphaThreshold ?? 127;
    for (let i = 0; i < n; i++) mask[i] = data[i * 4 + 3] > t ? 255 : 0;
  } else {
    const dark = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const r = data[i * 4];
      const g = data[i * 4 + 1];
      const b = data[i * 4 + 2];
      dark[i] = r < g ? Math.min(r, b) : Math.min(g, b);
    }
    const block = options.block ?? Math.max(15, (Math.round(Math.min(w, h) / 5) >> 1) * 2 + 1);
    adaptiveThreshold(dark, w, h, block, options.offset ?? 8, mask);
    mask = close3(mask, w, h, 2);
    mask = dilate3(mask, w, h, 2);
  }
  keepLargestComponent(mask, w, h);
  fillHoles(mask, w, h);
  requireNonEmpty(mask, where);
  return mask;
}

/**
 * A mask from an image that already is one (AnimatedDrawings' `mask.png`: greyscale, 255 = character):
 * character where the red channel is above 127. No cleaning.
 * @throws PuppetInputError on a wrong data length or an empty mask.
 */
export function maskFromMaskImage(img: RgbaImage, source = 'mask'): Uint8Array {
  checkImage(img, source);
  const n = img.width * img.height;
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = img.data[i * 4] > 127 ? 255 : 0;
  requireNonEmpty(mask, source);
  return mask;
}

/** Number of character pixels. */
export function maskArea(mask: Uint8Array): number {
  let a = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i]) a++;
  return a;
}

/** Bounding box of the character pixels, [x0, y0, x1, y1] inclusive, or null when empty. */
export function maskBounds(mask: Uint8Array, w: number, h: number): [number, number, number, number] | null {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (mask[y * w + x]) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return x1 < 0 ? null : [x0, y0, x1, y1];
}

function checkImage(img: RgbaImage, where: string): void {
  if (!(img.width > 0 && img.height > 0 && Number.isInteger(img.width) && Number.isInteger(img.height)))
    throw new PuppetInputError(`image size ${img.width}x${img.height} is not a positive integer size`, where);
  if (img.data.length !== img.width * img.height * 4)
    throw new PuppetInputError(
      `RGBA data has ${img.data.length} bytes, expected ${img.width}*${img.height}*4 = ${img.width * img.height * 4}`,
      where,
    );
}

function requireNonEmpty(mask: Uint8Array, where: string): void {
  if (maskArea(mask) === 0)
    throw new PuppetInputError('the mask is empty: no pixel belongs to the character', where);
}

/** out = 255 where v < mean(block x block box around the pixel, clipped to the image) - offset. */
function adaptiveThreshold(
  v: Uint8Array,
  w: number,
  h: number,
  block: number,
  offset: number,
  out: Uint8Array,
): void {
  const W = w + 1;
  const sat = new Float64Array(W * (h + 1));
  for (let y = 0; y < h; y++) {
    let row = 0;
    for (let x = 0; x < w; x++) {
      row += v[y * w + x];
      sat[(y + 1) * W + x + 1] = sat[y * W + x + 1] + row;
    }
  }
  const r = block >> 1;
  for (let y = 0; y < h; y++) {
    const ya = Math.max(0, y - r);
    const yb = Math.min(h, y + r + 1);
    for (let x = 0; x < w; x++) {
      const xa = Math.max(0, x - r);
      const xb = Math.min(w, x + r + 1);
      const sum = sat[yb * W + xb] - sat[ya * W + xb] - sat[yb * W + xa] + sat[ya * W + xa];
      const mean = sum / ((yb - ya) * (xb - xa));
      out[y * w + x] = v[y * w + x] < mean - offset ? 255 : 0;
    }
  }
}

/** 3x3 square dilation (max), `times` times; pixels outside the image count as background. */
function dilate3(m: Uint8Array, w: number, h: number, times: number): Uint8Array {
  let a = m;
  for (let t = 0; t < times; t++) {
    const b = new Uint8Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let on = 0;
        for (let dy = -1; dy <= 1 && !on; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if (xx >= 0 && xx < w && a[yy * w + xx]) {
              on = 255;
              break;
            }
          }
        }
        b[y * w + x] = on;
      }
    a = b;
  }
  return a;
}

/** 3x3 square erosion (min), `times` times; pixels outside the image count as character (so the border does not eat in). */
function erode3(m: Uint8Array, w: number, h: number, times: number): Uint8Array {
  let a = m;
  for (let t = 0; t < times; t++) {
    const b = new Uint8Array(w * h);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        let on = 255;
        for (let dy = -1; dy <= 1 && on; dy++) {
          const yy = y + dy;
          if (yy < 0 || yy >= h) continue;
          for (let dx = -1; dx <= 1; dx++) {
            const xx = x + dx;
            if (xx >= 0 && xx < w && !a[yy * w + xx]) {
              on = 0;
              break;
            }
          }
        }
        b[y * w + x] = on;
      }
    a = b;
  }
  return a;
}

/** Morphological closing: dilation then erosion, each `times` times with a 3x3 square. */
function close3(m: Uint8Array, w: number, h: number, times: number): Uint8Array {
  return erode3(dilate3(m, w, h, times), w, h, times);
}

/** Keep only the largest 8-connected component of character pixels (in place). */
export function keepLargestComponent(mask: Uint8Array, w: number, h: number): void {
  const n = w * h;
  const label = new Int32Array(n);
  const stack = new Int32Array(n);
  let best = 0;
  let bestSize = 0;
  let next = 0;
  for (let s = 0; s < n; s++) {
    if (!mask[s] || label[s]) continue;
    next++;
    let size = 0;
    let top = 0;
    stack[top++] = s;
    label[s] = next;
    while (top > 0) {
      const p = stack[--top];
      size++;
      const px = p % w;
      const py = (p - px) / w;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = py + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = px + dx;
          if (xx < 0 || xx >= w) continue;
          const q = yy * w + xx;
          if (mask[q] && !label[q]) {
            label[q] = next;
            stack[top++] = q;
          }
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = next;
    }
  }
  for (let i = 0; i < n; i++) mask[i] = label[i] === best && best > 0 ? 255 : 0;
}

/** Fill holes (in place): background pixels not 4-connected to the image border through background become character. */
export function fillHoles(mask: Uint8Array, w: number, h: number): void {
  const n = w * h;
  const outside = new Uint8Array(n);
  const stack = new Int32Array(n);
  let top = 0;
  const seed = (i: number) => {
    if (!mask[i] && !outside[i]) {
      outside[i] = 1;
      stack[top++] = i;
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (top > 0) {
    const p = stack[--top];
    const x = p % w;
    if (x > 0) seed(p - 1);
    if (x < w - 1) seed(p + 1);
    if (p >= w) seed(p - w);
    if (p < n - w) seed(p + w);
  }
  for (let i = 0; i < n; i++) if (!outside[i]) mask[i] = 255;
}
