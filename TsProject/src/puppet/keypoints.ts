/**
 * Reader of tfjs-models pose-detection output (MoveNet, PoseNet: 17 COCO keypoints; BlazePose: 33) as people
 * save it, converted to the recording format of landmarks.ts (33 BlazePose landmarks per frame). Engine-free:
 * the host reads the file and passes the parsed JSON and its name.
 *
 * Source: tfjs-models pose-detection README ("How to Run It", "Keypoint Diagram"): `estimatePoses` returns a
 * list of poses `[{ score?, keypoints: [{ x, y, z?, score?, name? }], keypoints3D? }]`; `keypoints` x, y are
 * pixels of the input image unless converted with `keypointsToNormalizedKeypoints` (then [0, 1]);
 * `keypoints3D` (BlazePose only) are metres, hip-centred. COCO keypoint order 0 nose ... 16 right_ankle.
 * tfjs-models' own test data (pose-detection/test_data/pose_1.json) stores a video as one object per frame
 * keyed by keypoint name, `{ "nose": { "x", "y" }, ... }`, normalised, without scores.
 *
 * A file is a top-level JSON array of frames; each frame is one of
 * - a pose `{ keypoints: [...], score?, keypoints3D? }` (optionally with `timestampMs`);
 * - a list of poses (one `estimatePoses` result; `[]` = no person). With several, the pose with the highest
 *   `score` is taken (else the highest mean keypoint score, else the first), and the reader says how often;
 * - a bare keypoint list `[{ x, y, score?, name? }, ...]`;
 * - an object keyed by keypoint name `{ "nose": { x, y, score? }, ... }`.
 * Keypoint names are matched without case and underscores (`left_eye`, `leftEye`); a list without names is
 * taken in order (17: COCO, 33: BlazePose). A pose may give a subset of the keypoints (a missing one is read
 * as not visible).
 *
 * Coordinates: normalised when every |x| and |y| in the file is at most 2 (no camera image is 2 pixels
 * wide), else pixels; both need the camera image size (pixels to normalise; normalised ones for the aspect).
 * score -> visibility; no score = unknown (not 0; the pose side's `unknownVisibilityConfidence`).
 *
 * COCO 17 -> BlazePose 33: nose 0, left/right eye 2/5, ear 7/8, shoulder 11/12, elbow 13/14, wrist 15/16,
 * hip 23/24, knee 25/26, ankle 27/28. The landmarks COCO lacks (eye inner/outer, mouth, pinky, index, thumb,
 * heel, foot index) are written at their nearest present landmark with visibility 0: the pose side never
 * measures them, so the joints made only of them (Left/RightHandTip, Left/RightToes) are filled by the
 * occlusion chain (occlusion.ts) with its low confidences every frame ({@link jointsWithoutLandmarks}).
 */
import { JOINT_LANDMARKS } from './joints';
import { makeLandmark, makePoseFrame, POSE_LANDMARK_COUNT } from './landmarks';
import {
  type Landmark,
  type LandmarkRecording,
  type PoseFrame,
  PUPPET_JOINTS,
  PuppetInputError,
} from './types';

/** COCO keypoint names in MoveNet / PoseNet order (tfjs-models pose-detection README, "COCO Keypoints"). */
export const COCO_KEYPOINTS = [
  'nose',
  'left_eye',
  'right_eye',
  'left_ear',
  'right_ear',
  'left_shoulder',
  'right_shoulder',
  'left_elbow',
  'right_elbow',
  'left_wrist',
  'right_wrist',
  'left_hip',
  'right_hip',
  'left_knee',
  'right_knee',
  'left_ankle',
  'right_ankle',
] as const;

/** BlazePose landmark index of each COCO keypoint (same order as {@link COCO_KEYPOINTS}). */
export const COCO_TO_BLAZEPOSE: readonly number[] = [
  0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28,
];

/** BlazePose's 33 landmark names (MediaPipe Pose Landmarker model card; tfjs-models' BlazePose keypoint names). */
export const BLAZEPOSE_KEYPOINTS = [
  'nose',
  'left_eye_inner',
  'left_eye',
  'left_eye_outer',
  'right_eye_inner',
  'right_eye',
  'right_eye_outer',
  'left_ear',
  'right_ear',
  'mouth_left',
  'mouth_right',
  'left_shoulder',
  'right_shoulder',
  'left_elbow',
  'right_elbow',
  'left_wrist',
  'right_wrist',
  'left_pinky',
  'right_pinky',
  'left_index',
  'right_index',
  'left_thumb',
  'right_thumb',
  'left_hip',
  'right_hip',
  'left_knee',
  'right_knee',
  'left_ankle',
  'right_ankle',
  'left_heel',
  'right_heel',
  'left_foot_index',
  'right_foot_index',
] as const;

/**
 * Where an absent landmark is written (its nearest landmark a COCO pose has): eye inner/outer at the eye,
 * mouth at the nose, hand points at the wrist, heel and foot index at the ankle. Visibility 0 all the same.
 */
const FILL_FROM: readonly number[] = [
  -1, 2, -1, 2, 5, -1, 5, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, 15, 16, 15, 16, 15, 16, -1, -1, -1, -1, -1,
  -1, 27, 28, 27, 28,
];

/** How a tfjs keypoint file was read (for notes and puppet.json `input.keypoints`). */
export interface KeypointFileInfo {
  /** 'coco17': MoveNet / PoseNet keypoints; 'blazepose33': BlazePose's. */
  set: 'coco17' | 'blazepose33';
  coordinates: 'pixels' | 'normalized';
  /** Frame shapes met: 'pose', 'poses' (lists of poses), 'keypoints' (bare lists), 'named' (keyed by name). */
  shapes: ('pose' | 'poses' | 'keypoints' | 'named')[];
  /** BlazePose landmarks the input never gives (written with visibility 0), ascending. */
  absentLandmarks: number[];
  /** Joints made only of absent landmarks: never measured, always filled (occlusion chain). */
  filledJoints: string[];
  /** Frames holding more than one pose (the highest-scoring one was taken). */
  multiPoseFrames: number;
  /** Frames with no pose (`[]`): no person. */
  emptyFrames: number;
  /** True when no keypoint of the file has a score (visibility unknown). */
  scoresAbsent: boolean;
}

/**
 * A tfjs-models keypoint file read as a landmark recording ({@link tfjsKeypointsToRecording}), with what was
 * found and the notes for the terminal.
 */
export interface KeypointRecording {
  recording: LandmarkRecording;
  info: KeypointFileInfo;
  /** What was assumed or found, one sentence each, for the terminal. */
  notes: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string =>
  v === null
    ? 'null'
    : v === undefined
      ? 'missing'
      : Array.isArray(v)
        ? 'an array'
        : typeof v === 'object'
          ? 'an object'
          : typeof v === 'string'
            ? `the string ${JSON.stringify(v.slice(0, 20))}`
            : String(v);

/** `left_eye`, `leftEye`, `LEFT_EYE` -> `lefteye`. */
const key = (name: string) => name.toLowerCase().replace(/[_\s-]/g, '');
const BLAZE_INDEX = new Map<string, number>(BLAZEPOSE_KEYPOINTS.map((n, i) => [key(n), i]));
const COCO_SET = new Set<number>(COCO_TO_BLAZEPOSE);

/** Whether a frame value looks like a keypoint (has x). */
const isKeypoint = (v: unknown): boolean => isObj(v) && 'x' in v;
const isPose = (v: unknown): boolean => isObj(v) && Array.isArray(v.keypoints);

/**
 * Whether `value` (a parsed JSON file) is tfjs keypoint output as this module reads it, rather than the
 * tfjs BlazePose reference format (`[frames][33][x, y, z]`, landmarks.ts parseTfjsReference) or the recording
 * format (an object): a top-level array whose first frame that is not `[]` is a pose, a list of poses, a
 * keypoint list or an object keyed by name; or whose frames are all `[]` (nobody found).
 */
export function isTfjsKeypointFile(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const f of value) {
    if (Array.isArray(f)) {
      if (f.length === 0) continue;
      return isPose(f[0]) || isKeypoint(f[0]);
    }
    return isObj(f);
  }
  return true; // every frame `[]`: estimatePoses found nobody (a reference frame is never empty)
}

/** One keypoint read: BlazePose index, x, y, z (0 when absent), score (undefined when absent). */
interface Kp {
  i: number;
  x: number;
  y: number;
  z: number;
  score: number | undefined;
}

function num(v: unknown, where: string, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new PuppetInputError(
      `${field} must be a finite number, got ${v === null ? 'null (a NaN written by JSON.stringify?)' : describe(v)}`,
      `${where}, field ${field}`,
    );
  return v;
}

function score(v: unknown, where: string): number | undefined {
  if (v === undefined) return undefined;
  const s = num(v, where, 'score');
  if (s < 0 || s > 1)
    throw new PuppetInputError(`score must be in [0, 1], got ${s}`, `${where}, field score`);
  return s;
}

function nameIndex(name: unknown, where: string): number {
  if (typeof name !== 'string')
    throw new PuppetInputError(`name must be a string, got ${describe(name)}`, where);
  const i = BLAZE_INDEX.get(key(name));
  if (i === undefined)
    throw new PuppetInputError(
      `unknown keypoint name ${JSON.stringify(name)} (COCO: ${COCO_KEYPOINTS.join(', ')}; or BlazePose's 33)`,
      where,
    );
  return i;
}

function readKeypoint(p: unknown, i: number, where: string): Kp {
  if (!isObj(p))
    throw new PuppetInputError(`must be an object { x, y, score?, name? }, got ${describe(p)}`, where);
  return {
    i,
    x: num(p.x, where, 'x'),
    y: num(p.y, where, 'y'),
    z: p.z === undefined ? 0 : num(p.z, where, 'z'),
    score: score(p.score, where),
  };
}

/** A keypoint list: by name when every keypoint has one, else in order (17 COCO or 33 BlazePose). */
function readList(list: unknown[], where: string): Kp[] {
  const named = list.some((p) => isObj(p) && p.name !== undefined);
  if (!named && list.length !== 17 && list.length !== POSE_LANDMARK_COUNT)
    throw new PuppetInputError(
      `has ${list.length} keypoints without names; need 17 (MoveNet / PoseNet, COCO order) or 33 (BlazePose), or a name on each`,
      where,
    );
  const out: Kp[] = [];
  const seen = new Set<number>();
  for (let k = 0; k < list.length; k++) {
    const at = `${where}, keypoint ${k}`;
    const p = list[k];
    const i = named
      ? nameIndex(isObj(p) ? p.name : undefined, `${at}, field name`)
      : list.length === 17
        ? COCO_TO_BLAZEPOSE[k]
        : k;
    if (seen.has(i)) throw new PuppetInputError(`keypoint ${BLAZEPOSE_KEYPOINTS[i]} given twice`, at);
    seen.add(i);
    out.push(readKeypoint(p, i, at));
  }
  return out;
}

function readNamed(o: Obj, where: string): Kp[] {
  const out: Kp[] = [];
  const seen = new Set<number>();
  for (const [name, p] of Object.entries(o)) {
    if (name === 'timestampMs' || name === 'score') continue;
    const at = `${where}, keypoint ${name}`;
    const i = nameIndex(name, at);
    if (seen.has(i)) throw new PuppetInputError(`keypoint ${BLAZEPOSE_KEYPOINTS[i]} given twice`, at);
    seen.add(i);
    out.push(readKeypoint(p, i, at));
  }
  if (out.length === 0) throw new PuppetInputError('an object with no keypoints', where);
  return out;
}

function poseScore(p: Obj): number {
  if (typeof p.score === 'number' && Number.isFinite(p.score)) return p.score;
  const kps = p.keypoints as unknown[];
  let s = 0;
  let n = 0;
  for (const k of kps)
    if (isObj(k) && typeof k.score === 'number') {
      s += k.score;
      n++;
    }
  return n > 0 ? s / n : Number.NEGATIVE_INFINITY;
}

interface FrameRead {
  kps: Kp[] | null;
  world: Kp[] | null;
  shape: KeypointFileInfo['shapes'][number];
  poses: number;
  timestampMs?: number;
}

function readPose(p: Obj, where: string): { kps: Kp[]; world: Kp[] | null } {
  const kps = readList(p.keypoints as unknown[], `${where}, keypoints`);
  let world: Kp[] | null = null;
  if (p.keypoints3D !== undefined) {
    if (!Array.isArray(p.keypoints3D))
      throw new PuppetInputError(`must be an array, got ${describe(p.keypoints3D)}`, `${where}, keypoints3D`);
    world = readList(p.keypoints3D, `${where}, keypoints3D`);
  }
  return { kps, world };
}

function readFrame(fr: unknown, where: string): FrameRead {
  if (Array.isArray(fr)) {
    if (fr.length === 0) return { kps: null, world: null, shape: 'poses', poses: 0 };
    if (isKeypoint(fr[0])) return { kps: readList(fr, where), world: null, shape: 'keypoints', poses: 1 };
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < fr.length; k++) {
      const p = fr[k];
      if (!isPose(p))
        throw new PuppetInputError(
          `must be a pose { keypoints: [...] }, got ${describe(p)}`,
          `${where}, pose ${k}`,
        );
      const s = poseScore(p as Obj);
      if (best < 0 || s > bestScore) {
        best = k;
        bestScore = s;
      }
    }
    return { ...readPose(fr[best] as Obj, `${where}, pose ${best}`), shape: 'poses', poses: fr.length };
  }
  if (!isObj(fr))
    throw new PuppetInputError(
      `must be a pose { keypoints }, a list of poses, a keypoint list or an object keyed by keypoint name, got ${describe(fr)}`,
      where,
    );
  const t = fr.timestampMs === undefined ? undefined : num(fr.timestampMs, where, 'timestampMs');
  if (Array.isArray(fr.keypoints)) return { ...readPose(fr, where), shape: 'pose', poses: 1, timestampMs: t };
  if (fr.keypoints !== undefined)
    throw new PuppetInputError(`must be an array, got ${describe(fr.keypoints)}`, `${where}, keypoints`);
  return { kps: readNamed(fr, where), world: null, shape: 'named', poses: 1, timestampMs: t };
}

/** Joints of PUPPET_JOINTS made only of landmarks in `absent` (Spine and Chest are never listed). */
export function jointsWithoutLandmarks(absent: readonly number[]): string[] {
  const a = new Set(absent);
  return PUPPET_JOINTS.filter(
    (_, j) => JOINT_LANDMARKS[j].length > 0 && JOINT_LANDMARKS[j].every((i) => a.has(i)),
  );
}

/** 33 landmarks from the keypoints of one frame: absent ones at their FILL_FROM landmark with visibility 0. */
function toLandmarks(kps: Kp[], sx: number, sy: number, sz: number): Landmark[] {
  const at: (Kp | undefined)[] = new Array(POSE_LANDMARK_COUNT);
  for (const k of kps) at[k.i] = k;
  let mx = 0;
  let my = 0;
  for (const k of kps) {
    mx += k.x / kps.length;
    my += k.y / kps.length;
  }
  const out: Landmark[] = new Array(POSE_LANDMARK_COUNT);
  for (let i = 0; i < POSE_LANDMARK_COUNT; i++) {
    const k = at[i];
    if (k) {
      out[i] = makeLandmark(k.x * sx, k.y * sy, k.z * sz, k.score, undefined);
      continue;
    }
    const f = FILL_FROM[i] >= 0 ? at[FILL_FROM[i]] : undefined;
    out[i] = makeLandmark((f ? f.x : mx) * sx, (f ? f.y : my) * sy, 0, 0, undefined);
  }
  return out;
}

/**
 * Read tfjs-models pose-detection keypoints (see the module header for the shapes) into a recording.
 * @param value the parsed JSON file (a top-level array of frames). @param source the file's name, for errors.
 * @param o.image the camera image size in pixels (required: pixels are divided by it; normalised
 *   coordinates need it for the aspect). @param o.fps frame rate for files without `timestampMs` (frame i at
 *   i * 1000 / fps ms).
 * @returns the recording (33 normalised landmarks per frame, `landmarks: []` for a frame without a pose,
 *   world landmarks from BlazePose's `keypoints3D`), what was read, and notes.
 * @throws PuppetInputError naming the file, frame, pose, keypoint and field: not an array, no frames, a
 *   keypoint list of another length than 17 or 33 without names, an unknown or repeated name, a coordinate
 *   or score that is not a finite number (score outside [0, 1]), timestamps that decrease or only some frames
 *   with one, no image size.
 */
export function tfjsKeypointsToRecording(
  value: unknown,
  source: string,
  o: { image?: { width: number; height: number }; fps: number },
): KeypointRecording {
  if (!Array.isArray(value) || value.length === 0)
    throw new PuppetInputError(
      `need a JSON array of frames (tfjs-models poses), got ${describe(value)}`,
      source,
    );
  const read = value.map((fr, f) => readFrame(fr, `${source}: frame ${f}`));
  // the keypoint set and the coordinates, over the whole file
  let blaze = false;
  let maxAbs = 0;
  let anyScore = false;
  const present = new Set<number>();
  for (const r of read)
    for (const k of r.kps ?? []) {
      present.add(k.i);
      if (!COCO_SET.has(k.i)) blaze = true;
      maxAbs = Math.max(maxAbs, Math.abs(k.x), Math.abs(k.y));
      if (k.score !== undefined) anyScore = true;
    }
  const set: KeypointFileInfo['set'] = blaze ? 'blazepose33' : 'coco17';
  const coordinates: KeypointFileInfo['coordinates'] = maxAbs <= 2 ? 'normalized' : 'pixels';
  const what = `a tfjs-models keypoint file (${set === 'coco17' ? '17 COCO keypoints' : 'BlazePose keypoints'}, ${coordinates === 'pixels' ? 'x, y in pixels' : 'normalised x, y'})`;
  if (!o.image)
    throw new PuppetInputError(
      `${what} needs the camera image size${coordinates === 'pixels' ? '' : ' for its aspect'}: give --image-size WxH`,
      source,
    );
  const { width, height } = o.image;
  if (!(width > 0 && height > 0))
    throw new PuppetInputError(
      `the image size must be positive, got ${width}x${height}`,
      `${source} (--image-size)`,
    );
  if (!(o.fps > 0)) throw new PuppetInputError(`fps must be positive, got ${o.fps}`, `${source} (fps)`);
  const withTime = read.filter((r) => r.timestampMs !== undefined).length;
  if (withTime > 0 && withTime < read.length) {
    const f = read.findIndex((r) => r.timestampMs === undefined);
    throw new PuppetInputError('has no timestampMs while other frames have one', `${source}: frame ${f}`);
  }
  const sx = coordinates === 'pixels' ? 1 / width : 1;
  const sy = coordinates === 'pixels' ? 1 / height : 1;
  const frames: PoseFrame[] = new Array(read.length);
  let last = Number.NEGATIVE_INFINITY;
  for (let f = 0; f < read.length; f++) {
    const r = read[f];
    const t = withTime ? (r.timestampMs as number) : (f * 1000) / o.fps;
    if (t < last)
      throw new PuppetInputError(
        `timestampMs ${t} is before the previous frame's ${last}; timestamps must not decrease`,
        `${source}: frame ${f}, field timestampMs`,
      );
    last = t;
    frames[f] = makePoseFrame(
      t,
      r.kps ? toLandmarks(r.kps, sx, sy, sx) : [],
      r.world && r.world.length === POSE_LANDMARK_COUNT ? toLandmarks(r.world, 1, 1, 1) : undefined,
    );
  }
  const absentLandmarks: number[] = [];
  for (let i = 0; i < POSE_LANDMARK_COUNT; i++) if (!present.has(i)) absentLandmarks.push(i);
  const filledJoints = jointsWithoutLandmarks(absentLandmarks);
  const shapes = [...new Set(read.map((r) => r.shape))];
  const multiPoseFrames = read.filter((r) => r.poses > 1).length;
  const emptyFrames = read.filter((r) => r.kps === null).length;
  const info: KeypointFileInfo = {
    set,
    coordinates,
    shapes,
    absentLandmarks,
    filledJoints,
    multiPoseFrames,
    emptyFrames,
    scoresAbsent: !anyScore,
  };
  const base = source.split(/[\\/]/).pop() ?? source;
  const notes = [
    `${base}: read as ${what}, ${read.length} frames${withTime ? '' : ` at ${o.fps} fps (--fps)`}`,
  ];
  if (filledJoints.length > 0)
    notes.push(
      `${base} has no ${absentLandmarks.length === POSE_LANDMARK_COUNT - 17 ? 'heel, foot index, hand or mouth points (COCO has none)' : `landmarks ${absentLandmarks.join(', ')}`}: ${filledJoints.join(', ')} are never measured and always filled by the occlusion chain (low confidence; puppet.json input.keypoints.filledJoints)`,
    );
  if (multiPoseFrames > 0)
    notes.push(
      `${base}: ${multiPoseFrames} frame(s) hold several poses; the one with the highest score was taken in each`,
    );
  if (!anyScore) notes.push(`${base} has no keypoint scores: visibility unknown`);
  return { recording: { image: { width, height }, frames, source }, info, notes };
}
