/**
 * Readers of recorded pose landmarks (issue 12, "Recorded landmark files"): strings in, checked objects out.
 * Engine-free (no fs): the host reads the file and passes its text and name.
 *
 * Recording format (JSON):
 * `{ "image": { "width": W, "height": H }, "frames": [ { "timestampMs": t, "landmarks": [33 x { "x", "y", "z",
 * "visibility"?, "presence"? }], "worldLandmarks": [33 x { "x", "y", "z", "visibility"?, "presence"? }] } ] }`.
 * `landmarks` are MediaPipe NormalizedLandmarks (x, y fractions of the image width and height, origin top-left,
 * z relative depth scaled like x); `worldLandmarks` are MediaPipe Landmarks (metres, hip-centred, y down).
 * Either may be absent; a frame with no person has `"landmarks": []` (and no or empty world landmarks).
 * Landmark order: BlazePose's 33 (0 nose ... 32 right foot index; MediaPipe pose_landmarker model card).
 */
import { locateJsonError } from '../core/json';
import { type Landmark, type LandmarkRecording, type PoseFrame, PuppetInputError } from './types';

/** Number of BlazePose landmarks (MediaPipe Pose Landmarker model card). */
export const POSE_LANDMARK_COUNT = 33;

/** `1 frame`, `0 frames`, `65 frames`: a frame count for messages. */
export function framesText(n: number): string {
  return `${n} frame${n === 1 ? '' : 's'}`;
}

/**
 * A landmark object with every field present, in one order (`visibility`, `presence` undefined when
 * unknown). The readers build every landmark and frame with these two, so all of them share one shape
 * (hidden class) in V8 whatever fields the file had, and the per-frame code reads them through monomorphic
 * loads (joints.ts stores each confidence straight into a typed array, with no local merging a possibly
 * undefined field and a number). Measured (test/puppet.pose.test.ts, the PuppetSession probe): objects built
 * field by field as each file had them allocated 968 bytes per frame once a recording with visibility ran
 * after one without in the same process (polymorphic loads boxed the numbers read); this: 0.
 */
export function makeLandmark(
  x: number,
  y: number,
  z: number,
  visibility?: number,
  presence?: number,
): Landmark {
  return { x, y, z, visibility, presence };
}

/**
 * Where the pose side finds the person of `frame` (joints.ts `landmarksToJoints` reads it from there):
 * 'image' for 33 image landmarks; with space 'auto', 'world' for 33 world landmarks in a frame without a
 * `landmarks` field (`landmarks: []` is a frame with no person, whatever else it carries); with 'world',
 * 'world' for 33 world landmarks; null when there is no person in that space.
 */
export function personSpace(
  frame: PoseFrame,
  space: 'auto' | 'image' | 'world' = 'auto',
): 'image' | 'world' | null {
  const world = frame.worldLandmarks?.length === POSE_LANDMARK_COUNT;
  if (space === 'world') return world ? 'world' : null;
  if (frame.landmarks?.length === POSE_LANDMARK_COUNT) return 'image';
  return space === 'auto' && frame.landmarks === undefined && world ? 'world' : null;
}

/** Whether the pose side finds a person in `frame` in this pose space ({@link personSpace}). */
export function frameHasPerson(frame: PoseFrame, space: 'auto' | 'image' | 'world' = 'auto'): boolean {
  return personSpace(frame, space) !== null;
}

/** A frame with both landmark fields present (undefined when absent): see {@link makeLandmark}. */
export function makePoseFrame(
  timestampMs: number,
  landmarks: Landmark[] | undefined,
  worldLandmarks: Landmark[] | undefined,
): PoseFrame {
  return { timestampMs, landmarks, worldLandmarks };
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'missing';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.slice(0, 20))}`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

function finite(v: unknown, where: string, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new PuppetInputError(
      `${what} must be a finite number, got ${v === null ? 'null (a NaN or infinity written by JSON.stringify?)' : describe(v)}`,
      where,
    );
  return v;
}

function unit(v: unknown, where: string, what: string): number | undefined {
  if (v === undefined) return undefined;
  const x = finite(v, where, what);
  if (x < 0 || x > 1) throw new PuppetInputError(`${what} must be in [0, 1], got ${x}`, where);
  return x;
}

function checkImage(v: unknown, source: string): { width: number; height: number } {
  if (!isObj(v))
    throw new PuppetInputError(
      `need "image": { "width", "height" } in pixels, got ${describe(v)}`,
      `${source}: image`,
    );
  const size = (k: 'width' | 'height') => {
    const x = finite(v[k], `${source}: image.${k}`, `image ${k}`);
    if (x <= 0) throw new PuppetInputError(`image ${k} must be positive, got ${x}`, `${source}: image.${k}`);
    return x;
  };
  return { width: size('width'), height: size('height') };
}

function checkLandmarks(v: unknown, where: string, allowEmpty: boolean): Landmark[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v))
    throw new PuppetInputError(`must be an array of 33 landmarks, got ${describe(v)}`, where);
  if (v.length === 0 && allowEmpty) return [];
  if (v.length !== POSE_LANDMARK_COUNT)
    throw new PuppetInputError(
      `has ${v.length} landmarks; BlazePose gives exactly ${POSE_LANDMARK_COUNT} (or [] for no person)`,
      where,
    );
  const out: Landmark[] = new Array(POSE_LANDMARK_COUNT);
  for (let i = 0; i < POSE_LANDMARK_COUNT; i++) {
    const p = v[i];
    const at = `${where}, landmark ${i}`;
    if (!isObj(p)) throw new PuppetInputError(`must be an object { x, y, z }, got ${describe(p)}`, at);
    out[i] = makeLandmark(
      finite(p.x, `${at}, field x`, 'x'),
      finite(p.y, `${at}, field y`, 'y'),
      finite(p.z, `${at}, field z`, 'z'),
      unit(p.visibility, `${at}, field visibility`, 'visibility'),
      unit(p.presence, `${at}, field presence`, 'presence'),
    );
  }
  return out;
}

/**
 * Check an in-memory recording (e.g. what the page recorded) and return a checked deep copy.
 * @param source names the recording in errors (a file name).
 * @throws PuppetInputError naming the source, frame, landmark index and field: image size not positive,
 *   a landmark array of other than 33 points (a no-person frame has `landmarks: []`), a coordinate that is
 *   not a finite number (null, as JSON.stringify writes NaN, or missing), visibility/presence outside [0, 1],
 *   timestamps not finite or decreasing, no frames.
 */
export function validateLandmarkRecording(value: unknown, source: string): LandmarkRecording {
  if (!isObj(value))
    throw new PuppetInputError(`need a JSON object { "image", "frames" }, got ${describe(value)}`, source);
  const image = checkImage(value.image, source);
  const frames = value.frames;
  if (!Array.isArray(frames))
    throw new PuppetInputError(`need an array of frames, got ${describe(frames)}`, `${source}: frames`);
  if (frames.length === 0) throw new PuppetInputError('the recording has no frames', `${source}: frames`);
  const out: PoseFrame[] = new Array(frames.length);
  let last = Number.NEGATIVE_INFINITY;
  for (let f = 0; f < frames.length; f++) {
    const fr = frames[f];
    const where = `${source}: frame ${f}`;
    if (!isObj(fr)) throw new PuppetInputError(`must be an object, got ${describe(fr)}`, where);
    const t = finite(fr.timestampMs, `${where}, field timestampMs`, 'timestampMs');
    if (t < last)
      throw new PuppetInputError(
        `timestampMs ${t} is before the previous frame's ${last}; timestamps must not decrease`,
        `${where}, field timestampMs`,
      );
    last = t;
    out[f] = makePoseFrame(
      t,
      checkLandmarks(fr.landmarks, `${where}, landmarks`, true),
      checkLandmarks(fr.worldLandmarks, `${where}, worldLandmarks`, true),
    );
  }
  return { image, frames: out, source };
}

/** Line `line` (1-based) of `text`, without its end of line. */
function lineText(text: string, line: number): string {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return '';
    start = nl + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end).replace(/\r$/, '');
}

/**
 * JSON.parse with a syntax error named `source:line:column` (PuppetInputError); a bare NaN or Infinity (what
 * Python's json.dump writes for such floats) is named as such, with null as the fix.
 */
export function parseJsonText(text: string, source: string): unknown {
  if (typeof text !== 'string')
    throw new PuppetInputError(`need the file's text as a string, got ${typeof text}`, source);
  try {
    return JSON.parse(text);
  } catch (e) {
    const at = locateJsonError(text);
    if (at) {
      // Python's json.dump writes a float nan or inf as a bare NaN / Infinity, which JSON has no word for
      const word = /^-?(NaN|Infinity)\b/.exec(lineText(text, at.line).slice(at.column - 1))?.[0];
      throw new PuppetInputError(
        word
          ? `not valid JSON: ${word} is not a JSON value (Python's json.dump writes a nan or inf float so); write null for a missing number`
          : `not valid JSON: ${at.detail}`,
        `${source}:${at.line}:${at.column}`,
      );
    }
    throw new PuppetInputError(`not valid JSON: ${(e as Error).message}`, source);
  }
}

/**
 * Read a recorded landmark file (format in this module's header).
 * @param text the file's text. @param source its name, used in errors.
 * @throws PuppetInputError: JSON syntax errors as `source:line:column`; content errors as in
 *   {@link validateLandmarkRecording}.
 */
export function parseLandmarkRecording(text: string, source: string): LandmarkRecording {
  return validateLandmarkRecording(parseJsonText(text, source), source);
}

/** The recording as JSON text in the format {@link parseLandmarkRecording} reads (round trip: equal values). */
export function serializeLandmarkRecording(rec: LandmarkRecording): string {
  const lm = (l: Landmark) => {
    const o: Obj = { x: l.x, y: l.y, z: l.z };
    if (l.visibility !== undefined) o.visibility = l.visibility;
    if (l.presence !== undefined) o.presence = l.presence;
    return o;
  };
  return JSON.stringify({
    image: { width: rec.image.width, height: rec.image.height },
    frames: rec.frames.map((f) => {
      const o: Obj = { timestampMs: f.timestampMs };
      if (f.landmarks) o.landmarks = f.landmarks.map(lm);
      if (f.worldLandmarks) o.worldLandmarks = f.worldLandmarks.map(lm);
      return o;
    }),
  });
}

function tfjsFrames(text: string, source: string): number[][][] {
  const v = parseJsonText(text, source);
  if (!Array.isArray(v) || v.length === 0)
    throw new PuppetInputError(`need [frames][33][x, y, z], got ${describe(v)}`, source);
  for (let f = 0; f < v.length; f++) {
    const fr = v[f];
    const where = `${source}: frame ${f}`;
    if (!Array.isArray(fr) || fr.length !== POSE_LANDMARK_COUNT)
      throw new PuppetInputError(
        `need ${POSE_LANDMARK_COUNT} landmarks, got ${Array.isArray(fr) ? fr.length : describe(fr)}${Array.isArray(fr) && fr.length === 17 ? ' (17 MoveNet / PoseNet keypoints are read as tfjs-models poses, { keypoints: [{ x, y, score, name }] }, or objects keyed by name: keypoints.ts; a raw [17][3] tensor is not)' : ''}`,
        where,
      );
    for (let i = 0; i < POSE_LANDMARK_COUNT; i++) {
      const p = fr[i];
      if (!Array.isArray(p) || p.length !== 3)
        throw new PuppetInputError(`need [x, y, z], got ${describe(p)}`, `${where}, landmark ${i}`);
      for (let k = 0; k < 3; k++) finite(p[k], `${where}, landmark ${i}, field ${'xyz'[k]}`, 'xyz'[k]);
    }
  }
  return v as number[][][];
}

/**
 * Read the tfjs-models BlazePose reference files (tfjs-models pose-detection test data, as copied into
 * ../shared/data/pose-landmarks): `pixelsText` = `[frames][33][x, y, z]` with x, y in PIXELS of the image
 * (origin top-left, y down) and z in the same pixel scale as x; `worldText` = `[frames][33][x, y, z]` in metres
 * (hip-centred, y down). Neither has visibility (so the recording's visibility is unknown, not 0).
 * Converts to the recording format: landmarks x / width, y / height, z / width (MediaPipe's z scale is the
 * image width); timestamps `i * 1000 / fps` ms.
 * @param image the video's size in pixels (pose_squats: 720 x 1280). @param fps frames per second (pose_squats: 5).
 * @throws PuppetInputError naming the file, frame, landmark and field; both texts absent; frame counts differ;
 *   image size or fps not positive.
 */
export function parseTfjsReference(
  pixelsText: string | undefined,
  worldText: string | undefined,
  source: string,
  image: { width: number; height: number },
  fps: number,
  /** The world file's name for messages (default: `source (world)`). */
  worldSource?: string,
): LandmarkRecording {
  const img = checkImage(image, `${source} (--image-size)`);
  if (!(typeof fps === 'number' && Number.isFinite(fps) && fps > 0))
    throw new PuppetInputError(`fps must be a positive number, got ${describe(fps)}`, `${source} (fps)`);
  if (pixelsText === undefined && worldText === undefined)
    throw new PuppetInputError('need the pixel landmarks, the world landmarks or both', source);
  const px = pixelsText === undefined ? undefined : tfjsFrames(pixelsText, `${source} (pixels)`);
  const world =
    worldText === undefined ? undefined : tfjsFrames(worldText, worldSource ?? `${source} (world)`);
  if (px && world && px.length !== world.length)
    throw new PuppetInputError(
      `the pixel file has ${px.length} frames and the world file${worldSource ? ` ${worldSource}` : ''} ${world.length}; they must match`,
      source,
    );
  const n = (px ?? world)!.length;
  const frames: PoseFrame[] = new Array(n);
  for (let f = 0; f < n; f++) {
    frames[f] = makePoseFrame(
      (f * 1000) / fps,
      px?.[f].map((p) => makeLandmark(p[0] / img.width, p[1] / img.height, p[2] / img.width)),
      world?.[f].map((p) => makeLandmark(p[0], p[1], p[2])),
    );
  }
  return { image: img, frames, source };
}
