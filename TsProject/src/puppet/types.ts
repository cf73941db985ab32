/**
 * Shared shapes of the drawing puppet (issue 12). Engine-free: no Node or DOM API.
 *
 * Pipeline, per frame (DESIGN.md "drawing puppet"):
 *   PoseFrame (33 MediaPipe BlazePose landmarks)
 *     -> landmarksToJoints: 21 PUPPET_JOINTS in pose space, each with a confidence   (joints.ts)
 *     -> ConfidenceFilter: confidence-weighted EMA, outlier hold, threshold          (filter.ts)
 *     -> fillOcclusions: parent -> child -> torso -> rest chain, low confidences      (occlusion.ts)
 *     = PoseJoints (pose space)
 *     -> DrawingRig.pose: bone directions onto the drawing's rest skeleton            (rig.ts)
 *     = DrawingJoints (drawing pixels) + one 2-D affine per joint
 *     -> skin: CPU linear blend skinning of the mesh's vertices                       (skinning.ts)
 *
 * Coordinate frames
 * - Pose space: 2-D, y DOWN, aspect-correct. From image landmarks: (x * imageWidth, y * imageHeight) in
 *   pixels of the camera image; from world landmarks: (x, y) in metres (MediaPipe's world frame is
 *   hip-centred with y down). Never normalised x, y directly: a 45-degree forearm on a 1920x1080 frame must
 *   stay 45 degrees, not atan(16/9) = 60.6.
 * - Drawing space: pixels of the drawing's texture, origin top-left, y down (as char_cfg.yaml's `loc`).
 */

/**
 * The 21 animation joints, in this order (index = position in the arrays below). Names follow Unity's
 * HumanBodyBones where the joint exists there (the bone that starts at that joint); `*HandTip` are the
 * ends of the hands (mean of MediaPipe's index and pinky knuckles), like a BVH End Site.
 */
export const PUPPET_JOINTS = [
  'Hips', // 0  mean of hips 23, 24 (synthesised)
  'Spine', // 1  1/3 of the way hips -> shoulder centre (synthesised)
  'Chest', // 2  2/3 of the way (synthesised)
  'Neck', // 3  mean of shoulders 11, 12 (synthesised)
  'Head', // 4  mean of ears 7, 8 (synthesised; nose 0 when the ears are not usable)
  'LeftUpperArm', // 5  11 left shoulder
  'LeftLowerArm', // 6  13 left elbow
  'LeftHand', // 7  15 left wrist
  'LeftHandTip', // 8  mean of 17, 19 (left pinky, index)
  'RightUpperArm', // 9  12
  'RightLowerArm', // 10 14
  'RightHand', // 11 16
  'RightHandTip', // 12 mean of 18, 20
  'LeftUpperLeg', // 13 23 left hip
  'LeftLowerLeg', // 14 25 left knee
  'LeftFoot', // 15 27 left ankle
  'LeftToes', // 16 31 left foot index
  'RightUpperLeg', // 17 24
  'RightLowerLeg', // 18 26
  'RightFoot', // 19 28
  'RightToes', // 20 32
] as const;
/** One of the 21 puppet joints ({@link PUPPET_JOINTS}). */
export type PuppetJointName = (typeof PUPPET_JOINTS)[number];
/** Number of puppet joints (21). */
export const PUPPET_JOINT_COUNT = 21;
/** Parent of each joint (-1 for Hips). Neck's parent is Chest; the upper arms' parent is Neck; the upper legs' parent is Hips. */
export const PUPPET_PARENTS: readonly number[] = [
  -1, 0, 1, 2, 3, 3, 5, 6, 7, 3, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19,
];

/** How a joint's value in a frame was obtained (puppet.json `state`). */
export const JOINT_STATES = ['measured', 'held', 'parent', 'child', 'torso', 'rest'] as const;
/**
 * How a joint's value was found this frame: measured, held, or inferred from its parent, child, the torso or
 * the rest pose.
 */
export type JointState = (typeof JOINT_STATES)[number];
/** Index into JOINT_STATES, stored per joint in a Uint8Array. */
export const JointStateCode = {
  Measured: 0,
  Held: 1,
  Parent: 2,
  Child: 3,
  Torso: 4,
  Rest: 5,
} as const;
export type JointStateCode = (typeof JointStateCode)[keyof typeof JointStateCode];

/** One MediaPipe landmark. Normalised image landmarks: x, y in [0, 1] of the image (may lie outside when off-frame), z relative depth scaled like x. World landmarks: metres, hip-centred, y down. */
export interface Landmark {
  x: number;
  y: number;
  z: number;
  /** [0, 1]; absent = unknown (some tasks-vision builds omit it), which is NOT 0. */
  visibility?: number;
  /** [0, 1]; absent = unknown. */
  presence?: number;
}

/** One frame of a recording (the recorded landmark file format of issue 12). `landmarks: []` = no person. */
export interface PoseFrame {
  timestampMs: number;
  /** 33 normalised landmarks, [] when no person, undefined when the file has only world landmarks. */
  landmarks?: Landmark[];
  /** 33 world landmarks (metres), or undefined. */
  worldLandmarks?: Landmark[];
}

/**
 * A landmark recording (the format the page records and `kind puppet render` reads): the camera size in
 * pixels and the frames.
 */
export interface LandmarkRecording {
  image: { width: number; height: number };
  frames: PoseFrame[];
  /** Where it came from, for messages (file name). */
  source?: string;
}

/**
 * 21 joints in one space for one frame (or the M joints of a character's own skeleton in drawing space:
 * skeleton.ts), structure-of-arrays (allocation-free per frame: owners reuse it).
 * confidence in [0, 1]; state = JointStateCode per joint.
 */
export interface JointSet {
  readonly x: Float64Array; // length 21
  readonly y: Float64Array; // length 21
  readonly confidence: Float64Array; // length 21
  readonly state: Uint8Array; // length 21
}

/**
 * A zeroed {@link JointSet} of `count` joints. @param count joints (default the 21 PUPPET_JOINTS; a
 * character's own skeleton may have more or fewer).
 */
export function createJointSet(count: number = PUPPET_JOINT_COUNT): JointSet {
  return {
    x: new Float64Array(count),
    y: new Float64Array(count),
    confidence: new Float64Array(count),
    state: new Uint8Array(count),
  };
}

/** Copy every field of `src` into `dst` (no allocation). */
export function copyJointSet(dst: JointSet, src: JointSet): void {
  dst.x.set(src.x);
  dst.y.set(src.y);
  dst.confidence.set(src.confidence);
  dst.state.set(src.state);
}

/** A decoded image: 8-bit RGBA, row-major, top row first (what pngjs and ImageData give). */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array | Uint8ClampedArray; // length width * height * 4
}

/** Error naming the place (file, frame, landmark, joint or field) of bad puppet input. */
export class PuppetInputError extends Error {
  constructor(
    message: string,
    /** e.g. 'pose_squats.full.json: frame 12, landmark 31, field x' */
    readonly where: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'PuppetInputError';
  }
}
