/**
 * 33 BlazePose landmarks -> the 21 PUPPET_JOINTS in pose space, each with a confidence. Engine-free,
 * allocation-free per frame (module-level scratch).
 *
 * Map (landmark indices: MediaPipe Pose Landmarker model card, BlazePose 33):
 * | joint | from |
 * |---|---|
 * | Hips | mean of hips 23, 24 |
 * | Spine, Chest | 1/3 and 2/3 of the way from Hips to Neck |
 * | Neck | mean of shoulders 11, 12 |
 * | Head | mean of ears 7, 8; nose 0 when neither ear is usable |
 * | Left/RightUpperArm | shoulder 11 / 12 |
 * | Left/RightLowerArm | elbow 13 / 14 |
 * | Left/RightHand | wrist 15 / 16 |
 * | Left/RightHandTip | mean of pinky 17 / 18 and index 19 / 20 |
 * | Left/RightUpperLeg | hip 23 / 24 |
 * | Left/RightLowerLeg | knee 25 / 26 |
 * | Left/RightFoot | ankle 27 / 28 |
 * | Left/RightToes | foot index 31 / 32 |
 * A composite joint (mean of several landmarks) averages only those at or above the visibility threshold;
 * when some were left out its confidence is the mean of the used ones times `partialCompositeFactor`; when
 * none is usable it is the plain mean with the mean (sub-threshold) confidence, so it is not used downstream.
 *
 * Pose space: y down, aspect-correct (types.ts header): image landmarks as (x * width, y * height) pixels, or
 * world landmarks as (x, y) metres.
 */
import { personSpace } from './landmarks';
import type { PoseOptions } from './options';
import { type JointSet, JointStateCode, type Landmark, type PoseFrame, type PuppetJointName } from './types';

/** What landmarksToJoints saw in a frame (reused object when passed in). */
export interface LandmarkFrameInfo {
  /** False when the frame has no landmarks in the chosen space (`landmarks: []`): all confidences are 0. */
  personFound: boolean;
  /** True when some landmark had neither `visibility` nor `presence`: its confidence is the default. */
  visibilityUnknown: boolean;
  /** The space the joints are in. */
  space: 'image' | 'world';
  /**
   * This frame's body scale in pose-space units: the Hips-Neck distance (torso length) when both are usable,
   * else the shoulder width / 0.6 (shoulder width is 0.6 torso lengths in the squat recording), else 0.
   */
  bodyScale: number;
}

/** A fresh {@link LandmarkFrameInfo} (no person, image space, body scale 0), to be filled per frame. */
export function createFrameInfo(): LandmarkFrameInfo {
  return { personFound: false, visibilityUnknown: false, space: 'image', bodyScale: 0 };
}

/** Landmark indices per joint (composites: averaged over the usable ones); Spine and Chest are [] (interpolated). */
export const JOINT_LANDMARKS: readonly (readonly number[])[] = [
  [23, 24], // Hips
  [], // Spine
  [], // Chest
  [11, 12], // Neck
  [7, 8], // Head (nose 0 as fallback)
  [11],
  [13],
  [15],
  [17, 19],
  [12],
  [14],
  [16],
  [18, 20],
  [23],
  [25],
  [27],
  [31],
  [24],
  [26],
  [28],
  [32],
];

/** Shoulder width over torso length (Hips-Neck), measured on the squat recording (0.58-0.60). */
export const SHOULDER_WIDTH_PER_TORSO = 0.6;

/**
 * AnimatedDrawings' 16-joint `char_cfg.yaml` skeleton -> PUPPET_JOINTS. Verified on the four characters in
 * ../shared/data/animated-drawings: `root` and `hip` sit at the mean of the two hips (our Hips), `torso` at
 * the mean of the two shoulders (our Neck, within 0.5 px), and `neck` at the head (above the shoulders, the
 * nose of AnimatedDrawings' keypoints). `left_*` is the character's left (image right for a drawing facing
 * the viewer), as ours.
 */
export const ANIMATED_DRAWINGS_JOINT_MAP: Readonly<Record<string, PuppetJointName>> = Object.freeze({
  root: 'Hips',
  hip: 'Hips',
  torso: 'Neck',
  neck: 'Head',
  left_shoulder: 'LeftUpperArm',
  left_elbow: 'LeftLowerArm',
  left_hand: 'LeftHand',
  right_shoulder: 'RightUpperArm',
  right_elbow: 'RightLowerArm',
  right_hand: 'RightHand',
  left_hip: 'LeftUpperLeg',
  left_knee: 'LeftLowerLeg',
  left_foot: 'LeftFoot',
  right_hip: 'RightUpperLeg',
  right_knee: 'RightLowerLeg',
  right_foot: 'RightFoot',
});

const N = 33;
const px = new Float64Array(N);
const py = new Float64Array(N);
const pc = new Float64Array(N);

/**
 * The threshold and partial factor of the frame being read, for {@link composite}: numbers passed to a call
 * that V8 does not inline are boxed (a heap number per argument per call), so they travel in a typed array.
 */
const compositeArgs = new Float64Array(2);

/** Mean of landmarks `ids` into joint j: usable ones only (see module header). Returns false when none is usable. */
function composite(ids: readonly number[], out: JointSet, j: number): boolean {
  const thr = compositeArgs[0];
  const partial = compositeArgs[1];
  let sx = 0;
  let sy = 0;
  let sc = 0;
  let n = 0;
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k];
    if (pc[i] >= thr) {
      sx += px[i];
      sy += py[i];
      sc += pc[i];
      n++;
    }
  }
  if (n > 0) {
    out.x[j] = sx / n;
    out.y[j] = sy / n;
    out.confidence[j] = n < ids.length ? (sc / n) * partial : sc / n;
    return true;
  }
  for (let k = 0; k < ids.length; k++) {
    const i = ids[k];
    sx += px[i];
    sy += py[i];
    sc += pc[i];
  }
  out.x[j] = sx / ids.length;
  out.y[j] = sy / ids.length;
  out.confidence[j] = sc / ids.length;
  return false;
}

/**
 * pc[i] = min(visibility, presence) of `l`, whichever it has; pc[i] unchanged when it has neither. The value
 * goes straight into the typed array and nothing is returned: a returned number (or a ternary merging a
 * possibly undefined field with a number) is boxed when V8 does not inline the call.
 */
function readConfidence(l: Landmark, i: number): void {
  const v = l.visibility;
  const q = l.presence;
  if (v !== undefined) {
    if (q !== undefined && q < v) pc[i] = q;
    else pc[i] = v;
  } else if (q !== undefined) pc[i] = q;
}

/**
 * The 21 joints of one frame in pose space (see the module header for the map).
 * @param frame one recorded frame (33 landmarks, or [] for no person).
 * @param image the camera image size in pixels (scales normalised landmarks; aspect-correct).
 * @param options space, visibilityThreshold, unknownVisibilityConfidence, offFrameMargin, partialCompositeFactor.
 * @param out receives x, y (pose space), confidence in [0, 1] per joint; state is Measured for every joint
 *   (the raw value; whether it is usable is its confidence against the threshold).
 * @param info optional object to reuse for the result (allocation-free use).
 * Landmark confidence: visibility when present, min(visibility, presence) when both, presence alone when only
 * it is, else unknownVisibilityConfidence (info.visibilityUnknown = true). Visibility is read from the image
 * landmarks, or the world landmarks when the image landmarks lack it. An image landmark off-frame (beyond
 * offFrameMargin) gets confidence 0.
 */
export function landmarksToJoints(
  frame: PoseFrame,
  image: { width: number; height: number },
  options: PoseOptions,
  out: JointSet,
  info: LandmarkFrameInfo = createFrameInfo(),
): LandmarkFrameInfo {
  const lms = frame.landmarks;
  const world = frame.worldLandmarks;
  const hasImage = lms !== undefined && lms.length === N;
  const hasWorld = world !== undefined && world.length === N;
  // the image landmarks, or the world ones (landmarks.ts personSpace: the same rule for every caller)
  const found = personSpace(frame, options.space);
  const useWorld = found === 'world';
  info.space = found ?? (options.space === 'world' ? 'world' : 'image');
  info.visibilityUnknown = false;
  info.bodyScale = 0;
  const src = useWorld ? world : lms;
  if (found === null || src === undefined) {
    info.personFound = false;
    out.confidence.fill(0);
    out.state.fill(JointStateCode.Measured);
    return info;
  }
  info.personFound = true;
  const thr = options.visibilityThreshold;
  const m = options.offFrameMargin;
  const sx = useWorld ? 1 : image.width;
  const sy = useWorld ? 1 : image.height;
  const unknownC = options.unknownVisibilityConfidence;
  let unknown = false;
  for (let i = 0; i < N; i++) {
    const p = src[i];
    px[i] = p.x * sx;
    py[i] = p.y * sy;
    // confidence: min(visibility, presence) of the image landmark, whichever it has, else the world
    // landmark's, else unknown. Written into pc[i] branch by branch, never through a local or a ternary
    // merging values of different kinds (a small integer, a field that may be undefined, an unboxed
    // double): V8 keeps such a value tagged and boxes the double, a heap number per landmark (528 bytes per
    // frame on the squat reference, whose visibility is unknown; 421 on the default recording); a helper
    // function returning the number cost the same when not inlined.
    pc[i] = -1;
    if (hasImage) readConfidence(lms[i], i);
    if (pc[i] < 0 && hasWorld) readConfidence(world[i], i);
    if (pc[i] < 0) {
      pc[i] = unknownC;
      unknown = true;
    }
    if (hasImage) {
      const q = lms[i];
      if (q.x < -m || q.x > 1 + m || q.y < -m || q.y > 1 + m) pc[i] = 0;
    }
  }
  info.visibilityUnknown = unknown;
  const partial = options.partialCompositeFactor;
  compositeArgs[0] = thr;
  compositeArgs[1] = partial;
  for (let j = 0; j < 21; j++) {
    const ids = JOINT_LANDMARKS[j];
    if (ids.length === 1) {
      const i = ids[0];
      out.x[j] = px[i];
      out.y[j] = py[i];
      out.confidence[j] = pc[i];
    } else if (j === 4) {
      if (!composite(ids, out, j) && pc[0] >= thr) {
        out.x[j] = px[0];
        out.y[j] = py[0];
        out.confidence[j] = pc[0] * partial;
      }
    } else if (ids.length > 1) composite(ids, out, j);
  }
  // Spine and Chest: 1/3 and 2/3 of the way Hips -> Neck
  const c = Math.min(out.confidence[0], out.confidence[3]);
  for (let k = 1; k <= 2; k++) {
    out.x[k] = out.x[0] + ((out.x[3] - out.x[0]) * k) / 3;
    out.y[k] = out.y[0] + ((out.y[3] - out.y[0]) * k) / 3;
    out.confidence[k] = c;
  }
  out.state.fill(JointStateCode.Measured);
  // body scale, as computeBodyScale (written out here: as a call it cost a boxed number per frame)
  const oc = out.confidence;
  let scale = 0;
  if (oc[0] >= thr && oc[3] >= thr) {
    const ax = out.x[3] - out.x[0];
    const ay = out.y[3] - out.y[0];
    scale = Math.sqrt(ax * ax + ay * ay);
  }
  if (scale === 0 && oc[5] >= thr && oc[9] >= thr) {
    const bx = out.x[5] - out.x[9];
    const by = out.y[5] - out.y[9];
    scale = Math.sqrt(bx * bx + by * by) / SHOULDER_WIDTH_PER_TORSO;
  }
  info.bodyScale = scale;
  return info;
}

/** Output of computeBodyScale (a typed array, so that no number is boxed per frame). */
export const bodyScaleScratch = new Float64Array(1);

/**
 * Body scale of a joint set in its own units, written to bodyScaleScratch[0]: |Neck - Hips| when both are at
 * or above `threshold`, else the shoulder width / SHOULDER_WIDTH_PER_TORSO when both upper arms are, else 0
 * (unknown). (Per-frame callers read the scratch: a double returned from a call V8 does not inline, or
 * stored through a polymorphic site, is boxed on the heap.)
 */
export function computeBodyScale(j: JointSet, threshold: number): void {
  bodyScaleScratch[0] = 0;
  const c = j.confidence;
  if (c[0] >= threshold && c[3] >= threshold) {
    const ax = j.x[3] - j.x[0];
    const ay = j.y[3] - j.y[0];
    bodyScaleScratch[0] = Math.sqrt(ax * ax + ay * ay);
  }
  if (bodyScaleScratch[0] === 0 && c[5] >= threshold && c[9] >= threshold) {
    const bx = j.x[5] - j.x[9];
    const by = j.y[5] - j.y[9];
    bodyScaleScratch[0] = Math.sqrt(bx * bx + by * by) / SHOULDER_WIDTH_PER_TORSO;
  }
}

/** computeBodyScale's value, returned (convenience; not for per-frame code). */
export function bodyScaleOf(j: JointSet, threshold: number): number {
  computeBodyScale(j, threshold);
  return bodyScaleScratch[0];
}
