/**
 * Node file loading for the drawing puppet: PNG decoding/encoding (pngjs) and AnimatedDrawings character
 * folders. The engine-free builders in src/puppet take the decoded images; writing files atomically is the
 * host's job (src/cli/files.ts writeFilesAtomically takes the bytes of {@link encodePng}).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import {
  type Character,
  type CharacterOptions,
  characterFromAnimatedDrawings,
  characterFromImage,
  PuppetInputError,
  type RgbaImage,
} from '../../puppet';
import { describeFsError, readInput } from './files';

/** Decode PNG bytes to 8-bit RGBA (greyscale, palette and 16-bit PNGs are converted by pngjs). */
export function decodePng(bytes: Uint8Array, source = 'image.png'): RgbaImage {
  let png: PNG;
  try {
    png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (e) {
    throw new PuppetInputError(`not a readable PNG (${(e as Error).message})`, source);
  }
  return {
    width: png.width,
    height: png.height,
    data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length),
  };
}

/** Read and decode a PNG file; errors name the file. */
export function readPng(file: string): RgbaImage {
  return decodePng(readInput(file), file);
}

/** Encode RGBA to PNG bytes. */
export function encodePng(img: RgbaImage): Uint8Array {
  const png = new PNG({ width: img.width, height: img.height });
  png.data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  return new Uint8Array(PNG.sync.write(png));
}

/** True when `dir` is an AnimatedDrawings character folder (texture.png, mask.png and char_cfg.yaml). */
export function isAnimatedDrawingsFolder(dir: string): boolean {
  return ['texture.png', 'mask.png', 'char_cfg.yaml'].every((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * Load a character: an AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml) or a single image (PNG
 * with alpha, or a photo of a drawing on paper; mask from maskFromImage, default skeleton). The name defaults
 * to the folder's or file's base name.
 * @throws Error naming the path when it cannot be read; PuppetInputError for bad content.
 */
export function loadCharacter(where: string, options: CharacterOptions = {}): Character {
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch (e) {
    throw new Error(describeFsError(where, e));
  }
  const name = options.name ?? path.basename(where.replace(/[/\\]+$/, '')).replace(/\.png$/i, '');
  if (st.isDirectory()) {
    if (!isAnimatedDrawingsFolder(where)) {
      const missing = ['texture.png', 'mask.png', 'char_cfg.yaml'].filter(
        (f) => !fs.existsSync(path.join(where, f)),
      );
      throw new PuppetInputError(
        `not an AnimatedDrawings character folder: missing ${missing.join(', ')}`,
        where,
      );
    }
    const texture = readPng(path.join(where, 'texture.png'));
    const mask = readPng(path.join(where, 'mask.png'));
    const cfg = new TextDecoder().decode(readInput(path.join(where, 'char_cfg.yaml')));
    return characterFromAnimatedDrawings(texture, mask, cfg, where, { name });
  }
  return characterFromImage(readPng(where), undefined, { name, source: where });
}
