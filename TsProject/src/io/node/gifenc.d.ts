/** The part of the `gifenc` npm package (Matt DesLauriers, MIT) used by `kind puppet render`; it ships no types. */
declare module 'gifenc' {
  /** A palette: up to 256 colours, each [r, g, b] (or [r, g, b, a] with an alpha format), 0..255. */
  type Palette = number[][];
  interface FrameOptions {
    /** Colour table of this frame; required for the first frame (the global table). */
    palette?: Palette;
    /** Frame delay in milliseconds (GIF stores centiseconds). */
    delay?: number;
    /** 0 = loop forever, -1 = once, n = n repetitions (first frame only). */
    repeat?: number;
    transparent?: boolean;
    transparentIndex?: number;
  }
  interface Encoder {
    writeFrame(index: Uint8Array, width: number, height: number, options?: FrameOptions): void;
    finish(): void;
    bytes(): Uint8Array;
  }
  export function GIFEncoder(options?: { auto?: boolean; initialCapacity?: number }): Encoder;
  /** PnnQuant colour quantiser: RGBA pixels -> a palette of at most maxColors. */
  export function quantize(
    rgba: Uint8Array | Uint8ClampedArray,
    maxColors: number,
    options?: { format?: 'rgb565' | 'rgb444' | 'rgba4444' },
  ): Palette;
  /** Index of the nearest palette colour per pixel. */
  export function applyPalette(
    rgba: Uint8Array | Uint8ClampedArray,
    palette: Palette,
    format?: 'rgb565' | 'rgb444' | 'rgba4444',
  ): Uint8Array;
}
