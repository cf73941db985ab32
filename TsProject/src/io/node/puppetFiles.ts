/**
 * Node file loading for the drawing puppet: PNG decoding/encoding (pngjs) and AnimatedDrawings character
 * folders. The engine-free builders in src/puppet take the decoded images; writing files atomically is the
 * host's job (src/cli/files.ts writeFilesAtomically takes the bytes of {@link encodePng}).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import {
  type Character,
  type CharacterOptions,
  characterFromAnimatedDrawings,
  characterFromImage,
  checkRecordingImageSize,
  type ImageSizeCheck,
  isTfjsKeypointFile,
  type KeypointFileInfo,
  type LandmarkRecording,
  PuppetInputError,
  parseJsonText,
  parseLandmarkRecording,
  parseTfjsReference,
  type RgbaImage,
  tfjsKeypointsToRecording,
} from '../../puppet';
import { describeFsError, readInput } from './files';

/**
 * The error of PNG bytes pngjs cannot decode, in the user's words: a file cut short (pngjs says "There are
 * some read requests waitng on finished stream" or "Unexpected end of input") or a chunk whose checksum
 * fails is "truncated or damaged"; anything else keeps pngjs's reason.
 */
export function pngReadError(message: string, byteLength: number, source: string): PuppetInputError {
  if (/read requests wait|unexpected end of (input|file)/i.test(message))
    return new PuppetInputError(
      `truncated or damaged PNG (its data ends early, after ${byteLength} bytes: an interrupted copy or download?)`,
      source,
    );
  if (/^crc error/i.test(message))
    return new PuppetInputError(
      `truncated or damaged PNG (a chunk's checksum does not match its data)`,
      source,
    );
  return new PuppetInputError(`not a readable PNG (${message})`, source);
}

/** Decode PNG bytes to 8-bit RGBA (greyscale, palette and 16-bit PNGs are converted by pngjs). */
export function decodePng(bytes: Uint8Array, source = 'image.png'): RgbaImage {
  let png: PNG;
  try {
    png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (e) {
    throw pngReadError((e as Error).message, bytes.byteLength, source);
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

/**
 * Decode a PNG or a JPEG (a photo of a drawing on paper) to 8-bit RGBA, told apart by their signatures
 * (PNG `89 50 4E 47`, JPEG `FF D8 FF`); JPEG through the `jpeg-js` package (opaque: alpha 255).
 * @throws PuppetInputError naming `source` for other bytes or a damaged image.
 */
export function decodeImage(bytes: Uint8Array, source = 'image'): RgbaImage {
  if (bytes.length >= 4 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)
    return decodePng(bytes, source);
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    try {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
      return { width: img.width, height: img.height, data: img.data };
    } catch (e) {
      throw new PuppetInputError(`not a readable JPEG (${(e as Error).message})`, source);
    }
  }
  throw new PuppetInputError('not a PNG or JPEG image', source);
}

/** Read and decode a PNG or JPEG file; errors name the file. */
export function readImage(file: string): RgbaImage {
  return decodeImage(readInput(file), file);
}

/**
 * Encode RGBA to PNG bytes. Every row uses the Sub filter (PNG spec 9.2, type 1): pngjs's adaptive choice
 * tries all five filters per row, which made a 508x602 frame 4x slower to write (48 against 12 ms) for a 4 %
 * smaller file (197 against 205 KB), and 100x slower inside jest's sandbox (its Paeth filter).
 */
export function encodePng(img: RgbaImage): Uint8Array {
  const png = new PNG({ width: img.width, height: img.height, filterType: 1 });
  png.data = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength);
  return new Uint8Array(PNG.sync.write(png, { filterType: 1 }));
}

/** True when `dir` is an AnimatedDrawings character folder (texture.png, mask.png and char_cfg.yaml). */
export function isAnimatedDrawingsFolder(dir: string): boolean {
  return ['texture.png', 'mask.png', 'char_cfg.yaml'].every((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * Load a character: an AnimatedDrawings folder (texture.png, mask.png, char_cfg.yaml) or a single image (PNG
 * with alpha, or a photo of a drawing on paper; mask from maskFromImage, default skeleton). The name defaults
 * to the folder's or file's base name. `retargetCfgFile`: an AnimatedDrawings retarget config for the
 * folder's skeleton (src/puppet/retargetCfg.ts).
 * @throws Error naming the path when it cannot be read; PuppetInputError for bad content, or a retarget
 *   config given with an image (it maps a char_cfg.yaml's joints).
 */
export function loadCharacter(
  where: string,
  options: CharacterOptions & { retargetCfgFile?: string } = {},
): Character {
  let st: fs.Stats;
  try {
    st = fs.statSync(where);
  } catch (e) {
    throw new Error(describeFsError(where, e));
  }
  const name = options.name ?? path.basename(where.replace(/[/\\]+$/, '')).replace(/\.(png|jpe?g)$/i, '');
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
    const rf = options.retargetCfgFile;
    const retargetCfg = rf ? { text: new TextDecoder().decode(readInput(rf)), source: rf } : undefined;
    return characterFromAnimatedDrawings(texture, mask, cfg, where, { name, retargetCfg });
  }
  if (options.retargetCfgFile)
    throw new PuppetInputError(
      `a retarget config maps the joints of a char_cfg.yaml; this is an image without one (give an AnimatedDrawings folder)`,
      options.retargetCfgFile,
    );
  return characterFromImage(readImage(where), undefined, { name, source: where });
}

/** How to read a landmark file whose format does not say it: the camera size and frame rate. */
export interface RecordingLoadOptions {
  /** Camera image size in pixels, needed for the tfjs reference format's pixel coordinates. */
  imageSize?: { width: number; height: number };
  /** Frame rate of a tfjs reference file (it has no timestamps); default 30. */
  fps?: number;
  /** The tfjs reference's world file (`[frames][33][x, y, z]` metres); default: the `_3d` sibling if present. */
  world?: string;
}

/** A landmark recording read from a file, with the format it was read as and the notes for the terminal. */
export interface LoadedRecording {
  recording: LandmarkRecording;
  /**
   * 'recording': the recorded landmark format (an object with `image` and `frames`); 'tfjs': the tfjs BlazePose
   * reference (`[frames][33][x, y, z]` pixels); 'tfjs-keypoints': tfjs-models pose-detection output (MoveNet,
   * PoseNet, BlazePose keypoints; src/puppet/keypoints.ts).
   */
  format: 'recording' | 'tfjs' | 'tfjs-keypoints';
  /** What was assumed or found, for the terminal (e.g. the fps a tfjs file was read at). */
  notes: string[];
  /** The tfjs world landmarks file that was read too (`--world`, or the `_3d` sibling), if any. */
  worldFile?: string;
  /** How a tfjs-keypoints file was read: keypoint set, coordinates, the joints always filled. */
  keypoints?: KeypointFileInfo;
  /** The camera image size check that ran (src/puppet/imageSize.ts). */
  imageCheck?: ImageSizeCheck;
  /** Doubts about the file that do not stop the run, for `warning:` lines (e.g. metres read as pixels). */
  warnings?: string[];
}

/**
 * A tfjs reference file (pixels) whose x and y all lie within 2 of 0 while the image is hundreds of pixels:
 * world landmarks (metres, hips-centred) given as --landmarks. @returns the warning, or null.
 */
export function metresAsPixelsWarning(rec: LandmarkRecording, file: string): string | null {
  const { width: W, height: H } = rec.image;
  if (Math.min(W, H) < 100) return null;
  let n = 0;
  let most = 0;
  for (const f of rec.frames)
    for (const l of f.landmarks ?? []) {
      if (!Number.isFinite(l.x) || !Number.isFinite(l.y)) continue;
      n++;
      most = Math.max(most, Math.abs(l.x * W), Math.abs(l.y * H));
    }
  if (n === 0 || most >= 2) return null;
  return `${file}: every x and y is within ${most.toFixed(2)} of 0 with --image-size ${W}x${H}: these look like world landmarks in metres, not pixels (the person would be a dot in the image's corner); give the image landmarks file (pixels) as --landmarks`;
}

/**
 * The tfjs reference's world sibling: `pose_squats.full.json` -> `pose_squats_3d.full.json` (the naming of
 * tfjs-models' test data), or `x.json` -> `x_3d.json`; null when there is none.
 */
export function tfjsWorldSibling(file: string): string | null {
  const m = /^(.*?)((?:\.full)?\.json)$/i.exec(file);
  if (!m || /_3d$/i.test(m[1])) return null;
  const c = `${m[1]}_3d${m[2]}`;
  return fs.existsSync(c) ? c : null;
}

/**
 * Read a landmark recording: the recorded landmark file format (src/puppet/landmarks.ts, an object with
 * `image` and `frames`), the tfjs-models reference format (a top-level array `[frames][33][x, y, z]` of
 * PIXELS, needing `imageSize`; with its `_3d` world file when there is one, or `world`), or tfjs-models
 * pose-detection keypoints (MoveNet / PoseNet 17, BlazePose 33; src/puppet/keypoints.ts; needing
 * `imageSize`). Then the camera image size is checked against the landmarks (src/puppet/imageSize.ts).
 * @throws Error naming the file when it cannot be read; PuppetInputError naming the file, line:column,
 *   frame, landmark or field for bad content (a tfjs file without `imageSize` is one), and naming the likely
 *   right size when the given one does not fit the landmarks.
 */
export function loadLandmarkRecording(file: string, o: RecordingLoadOptions = {}): LoadedRecording {
  const text = new TextDecoder().decode(readInput(file));
  if (!/^\s*\[/.test(text)) {
    const recording = parseLandmarkRecording(text, file);
    const notes: string[] = [];
    if (o.imageSize) notes.push(`--image-size ignored: ${file} gives its own image size`);
    if (o.fps !== undefined) notes.push(`--fps ignored: ${file} has its own timestamps`);
    if (o.world !== undefined) notes.push(`--world ignored: ${file} carries its own world landmarks`);
    const imageCheck = checkRecordingImageSize(recording, {
      coordinates: 'normalized',
      given: 'file',
      source: file,
    });
    notes.push(...imageCheck.notes);
    return { recording, format: 'recording', notes, imageCheck };
  }
  const value = parseJsonText(text, file);
  if (isTfjsKeypointFile(value)) {
    if (o.world !== undefined)
      throw new PuppetInputError(
        '--world applies to the tfjs BlazePose reference ([frames][33][x, y, z]); keypoint files carry BlazePose world points as keypoints3D',
        file,
      );
    const fps = o.fps ?? 30;
    const read = tfjsKeypointsToRecording(value, file, { image: o.imageSize, fps });
    const imageCheck = checkRecordingImageSize(read.recording, {
      coordinates: read.info.coordinates,
      given: 'flag',
      source: file,
    });
    return {
      recording: read.recording,
      format: 'tfjs-keypoints',
      notes: [...read.notes, ...imageCheck.notes],
      keypoints: read.info,
      imageCheck,
    };
  }
  const notes: string[] = [];
  if (!o.imageSize) {
    // a broken file is named as such first (syntax, shape), then the missing size
    parseTfjsReference(text, undefined, file, { width: 1, height: 1 }, 1);
    throw new PuppetInputError(
      'a tfjs reference file ([frames][33][x, y, z] in pixels) needs the camera image size: give --image-size WxH (pose_squats: 720x1280)',
      file,
    );
  }
  const fps = o.fps ?? 30;
  if (o.fps === undefined) notes.push(`${path.basename(file)} has no timestamps: read at 30 fps (--fps)`);
  const world = o.world ?? tfjsWorldSibling(file);
  if (world && !o.world) notes.push(`world landmarks from ${world}`);
  const worldText = world ? new TextDecoder().decode(readInput(world)) : undefined;
  const recording = parseTfjsReference(text, worldText, file, o.imageSize, fps, world ?? undefined);
  // pixels read with the wrong image size put the person outside the image (a swapped size: the legs,
  // never measured; 1x1: every landmark off-frame): refused, naming the likely size
  const imageCheck = checkRecordingImageSize(recording, {
    coordinates: 'pixels',
    given: 'flag',
    source: file,
  });
  notes.push(...imageCheck.notes);
  const metres = metresAsPixelsWarning(recording, file);
  return {
    recording,
    format: 'tfjs',
    notes,
    imageCheck,
    ...(world ? { worldFile: world } : {}),
    ...(metres ? { warnings: [metres] } : {}),
  };
}
