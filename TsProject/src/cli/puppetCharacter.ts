/**
 * Loading the drawing for `kind puppet render` / `kind puppet` (Node): the character reader of src/io/node
 * with the checks a fresh user's files need first (issue 22, fresh-user review):
 * - each image is looked at before it is decoded: a file that is not a PNG (a text file named mask.png) is
 *   named as such, `<path>: not a PNG (it starts with "..."...)`, instead of the PNG library's message;
 * - its size is read from its header: above PUPPET_MAX_PIXELS it is refused, naming the file and size; above
 *   PUPPET_WORK_PIXELS the drawing is decoded without blocking the event loop (so Ctrl-C / SIGTERM act
 *   during it), scaled down by a whole factor (src/puppet/downscale.ts) and built at that size, and one line
 *   says so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import { decodeImage, describeFsError, isAnimatedDrawingsFolder, loadCharacter, readInput } from '../io/node';
import { interruptPoint } from '../io/node/interrupt';
import { pngReadError } from '../io/node/puppetFiles';
import {
  type Character,
  characterFromAnimatedDrawings,
  characterFromImage,
  PuppetInputError,
  type RgbaImage,
} from '../puppet';
import {
  downscaleImage,
  PUPPET_MAX_PIXELS,
  PUPPET_WORK_PIXELS,
  scaleCharCfgText,
  workScale,
} from '../puppet/downscale';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const isPng = (b: Uint8Array) => b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v);
const isJpeg = (b: Uint8Array) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;

/** The first bytes of a file, as text when they are printable, else in hex: for "not a PNG" messages. */
function startText(b: Uint8Array): string {
  const head = b.subarray(0, 16);
  if (head.length === 0) return 'it is empty';
  const printable = head.every((c) => c === 9 || c === 10 || c === 13 || (c >= 32 && c < 127));
  if (printable)
    return `it starts with "${new TextDecoder().decode(head).replace(/\s+/g, ' ').trim()}${b.length > 16 ? '...' : ''}": a text file?`;
  return `it starts with ${Array.from(head.subarray(0, 8), (c) => c.toString(16).padStart(2, '0')).join(' ')}`;
}

/** Width and height from a PNG's IHDR, or a JPEG's frame header; null when the header has no size. */
export function imageHeaderSize(b: Uint8Array): { width: number; height: number } | null {
  if (isPng(b)) {
    // IHDR is the first chunk: length (4), 'IHDR' (4), width (4), height (4), big-endian
    if (b.length < 24 || String.fromCharCode(b[12], b[13], b[14], b[15]) !== 'IHDR') return null;
    const u32 = (o: number) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
    return { width: u32(16), height: u32(20) };
  }
  if (isJpeg(b)) {
    // markers up to a start of frame (SOF0..SOF15 but DHT C4, JPG C8, DAC CC): height, width at +5, +7
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const m = b[i + 1];
      if (m === 0xff) {
        i++;
        continue;
      }
      const len = (b[i + 2] << 8) | b[i + 3];
      if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc)
        return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
      i += 2 + len;
    }
  }
  return null;
}

/**
 * The bytes of an image the puppet reads, checked: a `.png` (or a folder's texture.png / mask.png) that is
 * not a PNG is refused as such; an image above PUPPET_MAX_PIXELS is refused naming its size.
 * @returns the bytes and the size from the header (null when the header does not say).
 */
export function readCheckedImage(
  file: string,
  expect: 'png' | 'png-or-jpeg',
): { bytes: Uint8Array; size: { width: number; height: number } | null } {
  const bytes = readInput(file);
  if (!isPng(bytes) && (expect === 'png' || (/\.png$/i.test(file) && !isJpeg(bytes))))
    throw new PuppetInputError(`not a PNG (${startText(bytes)})`, file);
  if (expect === 'png-or-jpeg' && !isPng(bytes) && !isJpeg(bytes))
    throw new PuppetInputError(`not a PNG or JPEG image (${startText(bytes)})`, file);
  const size = imageHeaderSize(bytes);
  if (size && size.width * size.height > PUPPET_MAX_PIXELS)
    throw new PuppetInputError(
      `${size.width}x${size.height} px (${mp(size.width * size.height)} MP) is more than the ${mp(PUPPET_MAX_PIXELS)} MP the puppet reads; scale the drawing down first (it is drawn at most ${mp(PUPPET_WORK_PIXELS)} MP anyway)`,
      file,
    );
  return { bytes, size };
}

const mp = (n: number) => (n / 1e6).toFixed(1).replace(/\.0$/, '');

/** Decode a PNG without blocking the event loop for the whole image (pngjs's stream parser). */
function decodePngAsync(bytes: Uint8Array, file: string): Promise<RgbaImage> {
  return new Promise((resolve, reject) => {
    new PNG().parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), (err, png) => {
      if (err) reject(pngReadError(err.message, bytes.byteLength, file));
      else
        resolve({
          width: png.width,
          height: png.height,
          data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length),
        });
    });
  });
}

export interface PuppetCharacterLoad {
  character: Character;
  /** Set when the drawing was scaled down (PUPPET_WORK_PIXELS): its file, size and the factor. */
  scaled?: { file: string; width: number; height: number; factor: number };
}

/**
 * Load a character as io/node loadCharacter does, with the checks of this module's header. `onScaled` is
 * called with the one line that says a drawing is being scaled down, before the slow decode starts.
 * @throws as loadCharacter; PuppetInputError `<file>: not a PNG (...)`, or naming a size above the limit.
 */
export async function loadPuppetCharacter(
  where: string,
  options: { name?: string; retargetCfgFile?: string; onScaled?: (line: string) => void } = {},
): Promise<PuppetCharacterLoad> {
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch (e) {
    throw new Error(describeFsError(where, e));
  }
  const folder = st.isDirectory() && isAnimatedDrawingsFolder(where);
  const load = { name: options.name, retargetCfgFile: options.retargetCfgFile };
  // a folder missing files, a retarget config with an image: the reader's own errors
  if (st.isDirectory() && !folder) return { character: loadCharacter(where, load) };
  if (!st.isDirectory() && options.retargetCfgFile) return { character: loadCharacter(where, load) };
  const textureFile = folder ? path.join(where, 'texture.png') : where;
  const texture = readCheckedImage(textureFile, folder ? 'png' : 'png-or-jpeg');
  const mask = folder ? readCheckedImage(path.join(where, 'mask.png'), 'png') : null;
  const size = texture.size;
  if (!size || size.width * size.height <= PUPPET_WORK_PIXELS)
    return { character: loadCharacter(where, load) };

  const k = workScale(size.width, size.height);
  const to = { width: Math.ceil(size.width / k), height: Math.ceil(size.height / k) };
  options.onScaled?.(
    `${textureFile} is ${size.width}x${size.height} px (${mp(size.width * size.height)} MP), more than the ${mp(PUPPET_WORK_PIXELS)} MP the puppet works at: scaled down 1/${k} to ${to.width}x${to.height}`,
  );
  const name = options.name ?? path.basename(where.replace(/[/\\]+$/, '')).replace(/\.(png|jpe?g)$/i, '');
  const decode = async (c: { bytes: Uint8Array }, file: string, alphaWeighted: boolean) => {
    const img = isPng(c.bytes) ? await decodePngAsync(c.bytes, file) : decodeImage(c.bytes, file);
    await interruptPoint();
    const small = downscaleImage(img, k, alphaWeighted);
    await interruptPoint();
    return small;
  };
  const tex = await decode(texture, textureFile, true);
  if (!folder || !mask)
    return {
      character: characterFromImage(tex, undefined, { name, source: where }),
      scaled: { file: textureFile, ...size, factor: k },
    };
  const maskFile = path.join(where, 'mask.png');
  // texture and mask of different sizes: the reader's own message, with the sizes as the files give them
  if (!mask.size || mask.size.width !== size.width || mask.size.height !== size.height)
    throw new PuppetInputError(
      `texture is ${size.width}x${size.height} but mask is ${mask.size ? `${mask.size.width}x${mask.size.height}` : 'of unknown size'}; they must be the same size`,
      `${where}: mask.png`,
    );
  const m = await decode(mask, maskFile, false);
  const cfgFile = path.join(where, 'char_cfg.yaml');
  const cfgText = new TextDecoder().decode(readInput(cfgFile));
  const rf = options.retargetCfgFile;
  const retargetCfg = rf ? { text: new TextDecoder().decode(readInput(rf)), source: rf } : undefined;
  const scaledCfg = scaleCharCfgText(cfgText, k, size, to, cfgFile);
  const character = characterFromAnimatedDrawings(tex, m, scaledCfg, where, { name, retargetCfg });
  return { character, scaled: { file: textureFile, ...size, factor: k } };
}
