/**
 * Images in the puppet page (browser only): decoding files and URLs to {@link RgbaImage}, and the drawing pad
 * where the user draws a character with the mouse (or a pen / finger: pointer events).
 */
import type { RgbaImage } from '../../puppet';

/** Largest side of a loaded photo/drawing, px: bigger images are scaled down (a phone photo is 4000 px). */
export const MAX_DRAWING_SIDE = 640;

/** Pixels of an image source as an RgbaImage, scaled down (never up) so its larger side is at most `maxSide`. */
export function imageToRgba(
  source: CanvasImageSource,
  width: number,
  height: number,
  maxSide = Number.POSITIVE_INFINITY,
): RgbaImage {
  const k = Math.min(1, maxSide / Math.max(width, height));
  const w = Math.max(1, Math.round(width * k));
  const h = Math.max(1, Math.round(height * k));
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  const ctx = c.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, w, h);
  const d = ctx.getImageData(0, 0, w, h);
  return { width: w, height: h, data: d.data };
}

/**
 * Decode a Blob (PNG, JPEG, ...) to RgbaImage, unscaled (masks and textures must keep their size).
 * Colour-space conversion and premultiplication are off so PNG pixels come out as stored.
 * @throws (rejects) Error naming `what` when the bytes are not an image the browser decodes.
 */
export async function decodeImage(
  blob: Blob,
  what: string,
  maxSide = Number.POSITIVE_INFINITY,
): Promise<RgbaImage> {
  let bmp: ImageBitmap;
  try {
    bmp = await createImageBitmap(blob, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  } catch (e) {
    throw new Error(
      `${what}: not an image this browser decodes (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  const img = imageToRgba(bmp, bmp.width, bmp.height, maxSide);
  bmp.close();
  return img;
}

/** Fetch a URL's bytes. @throws (rejects) Error naming the URL and the HTTP status. */
export async function fetchBytes(url: string): Promise<Blob> {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.blob();
}

export async function fetchText(url: string): Promise<string> {
  return (await fetchBytes(url)).text();
}

/** An RgbaImage composited on white in a canvas (what the pose model sees when asked to rig a drawing). */
export function rgbaOnWhite(img: RgbaImage, mask?: ArrayLike<number>): HTMLCanvasElement {
  const c = document.createElement('canvas');
  c.width = img.width;
  c.height = img.height;
  const ctx = c.getContext('2d')!;
  const out = ctx.createImageData(img.width, img.height);
  for (let i = 0; i < img.width * img.height; i++) {
    const a = (mask && !mask[i] ? 0 : img.data[4 * i + 3]) / 255;
    for (let k = 0; k < 3; k++) out.data[4 * i + k] = Math.round(img.data[4 * i + k] * a + 255 * (1 - a));
    out.data[4 * i + 3] = 255;
  }
  ctx.putImageData(out, 0, 0);
  return c;
}

/**
 * The drawing pad: an opaque white canvas the user draws on with the pointer (brush colour and width from
 * the page's controls). {@link DrawingPad.image} crops it to the drawn strokes' bounding box plus a margin:
 * an opaque image of dark strokes on white, which the drawing side's mask reads like a photo of paper
 * (background separated, holes inside the outline filled).
 */
export class DrawingPad {
  private readonly ctx: CanvasRenderingContext2D;
  private drawing = false;
  private lastX = 0;
  private lastY = 0;
  /** Bounding box of the strokes (canvas px); minX > maxX when empty. */
  private minX = Number.POSITIVE_INFINITY;
  private minY = Number.POSITIVE_INFINITY;
  private maxX = Number.NEGATIVE_INFINITY;
  private maxY = Number.NEGATIVE_INFINITY;
  colour = '#1a237e';
  width = 10;

  constructor(readonly canvas: HTMLCanvasElement) {
    this.ctx = canvas.getContext('2d', { willReadFrequently: true })!;
    this.clear();
    canvas.addEventListener('pointerdown', (e) => {
      canvas.setPointerCapture(e.pointerId);
      this.drawing = true;
      [this.lastX, this.lastY] = this.at(e);
      this.stroke(this.lastX, this.lastY);
    });
    canvas.addEventListener('pointermove', (e) => {
      if (!this.drawing) return;
      const [x, y] = this.at(e);
      this.stroke(x, y);
    });
    const end = () => {
      this.drawing = false;
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
  }

  private at(e: PointerEvent): [number, number] {
    const r = this.canvas.getBoundingClientRect();
    return [
      ((e.clientX - r.left) * this.canvas.width) / r.width,
      ((e.clientY - r.top) * this.canvas.height) / r.height,
    ];
  }

  /** A line from the last point to (x, y), canvas px (also used by tests to draw programmatically). */
  stroke(x: number, y: number): void {
    const ctx = this.ctx;
    ctx.strokeStyle = this.colour;
    ctx.lineWidth = this.width;
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.beginPath();
    ctx.moveTo(this.lastX, this.lastY);
    ctx.lineTo(x, y);
    ctx.stroke();
    const h = this.width / 2 + 1;
    this.minX = Math.min(this.minX, x - h, this.lastX - h);
    this.minY = Math.min(this.minY, y - h, this.lastY - h);
    this.maxX = Math.max(this.maxX, x + h, this.lastX + h);
    this.maxY = Math.max(this.maxY, y + h, this.lastY + h);
    this.lastX = x;
    this.lastY = y;
  }

  /** Start a new stroke at (x, y) without drawing. */
  moveTo(x: number, y: number): void {
    this.lastX = x;
    this.lastY = y;
  }

  /** A filled shape (tests, and the "fill" look of a drawn body): polygon in canvas px. */
  fillPolygon(points: [number, number][]): void {
    const ctx = this.ctx;
    ctx.fillStyle = this.colour;
    ctx.beginPath();
    points.forEach(([x, y], i) => {
      if (i) ctx.lineTo(x, y);
      else ctx.moveTo(x, y);
    });
    ctx.closePath();
    ctx.fill();
    for (const [x, y] of points) {
      this.minX = Math.min(this.minX, x);
      this.minY = Math.min(this.minY, y);
      this.maxX = Math.max(this.maxX, x);
      this.maxY = Math.max(this.maxY, y);
    }
  }

  clear(): void {
    this.ctx.fillStyle = '#ffffff';
    this.ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    this.minX = this.minY = Number.POSITIVE_INFINITY;
    this.maxX = this.maxY = Number.NEGATIVE_INFINITY;
  }

  get empty(): boolean {
    return this.minX > this.maxX;
  }

  /** The strokes cropped to their box plus `margin` px (opaque, white background). @throws Error when nothing is drawn. */
  image(margin = 12): RgbaImage {
    if (this.empty) throw new Error('drawing pad: nothing is drawn yet');
    const x0 = Math.max(0, Math.floor(this.minX - margin));
    const y0 = Math.max(0, Math.floor(this.minY - margin));
    const x1 = Math.min(this.canvas.width, Math.ceil(this.maxX + margin));
    const y1 = Math.min(this.canvas.height, Math.ceil(this.maxY + margin));
    const d = this.ctx.getImageData(x0, y0, x1 - x0, y1 - y0);
    return { width: d.width, height: d.height, data: d.data };
  }
}
