/**
 * The mocap stream's wire format (issue 23 item 5; STREAM.md): how the webcam page sends SOLVED source
 * poses to `kind live --source browser` and to the Unity package's KindBrowserMocapSource over a WebSocket.
 * Engine-free (no Node or DOM API): the page (encoder) and the live server (decoder) share this file; the
 * C# side (Runtime/Sources/KindBrowserMocapSource.cs) reads the same bytes.
 *
 * Two messages:
 * - text, once per calibration: {@link mocapSkeletonMessage}, JSON
 *   `{"type":"mocap-skeleton","protocol":1,"id":<1..2^32-1>,"bones":[HumanBodyBones names],"parents":[...],
 *   "offsets":[x,y,z per bone]}`: parents first (parent index < own index, the root's -1, the root Hips),
 *   offsets = rest local translations in metres in the internal frame (DESIGN.md: right-handed, Y up, faces
 *   +Z, left +X), rest rotations the identity (the rest pose is the T-pose facing +Z). A new id restarts
 *   the receiver's hubs (a re-calibration).
 * - binary, once per solved frame ({@link MocapPoseWriter}, {@link readMocapPose}), little-endian, for N
 *   bones of the last skeleton, `MOCAP_POSE_HEADER_BYTES + 21 N` bytes (485 for the 21 mocap bones):
 *
 * | offset       | type         | field                                                                  |
 * | ------------ | ------------ | ---------------------------------------------------------------------- |
 * | 0            | 3 x uint8    | magic `K` `M` `P` (0x4B 0x4D 0x50)                                     |
 * | 3            | uint8        | protocol version (1)                                                   |
 * | 4            | uint32       | skeleton id (the skeleton message's `id` this pose belongs to)          |
 * | 8            | uint32       | frame number (the sender's count; gaps = frames lost)                  |
 * | 12           | uint32       | flags: bit 0 = a person was found in this frame                        |
 * | 16           | float64      | frame time, ms (the camera/video timestamp; gives the hub's dt)        |
 * | 24           | float64      | sent at, ms since the Unix epoch (sender clock; latency on one machine) |
 * | 32           | 3 x float32  | hips (root) local translation, metres, internal frame                  |
 * | 44           | 4N x float32 | local rotations `[x, y, z, w]` per bone (parent frame; root = world)   |
 * | 44 + 16N     | N x float32  | confidence per bone, [0, 1]                                            |
 * | 44 + 20N     | N x uint8    | state per bone: 0 measured, 1 held, 2 filled (MocapStateCode)          |
 */
import { HUMAN_BONE_COUNT, humanBoneIndex } from '../core/humanBodyBones';
import { createSkeleton, type Skeleton } from '../core/skeleton';
import { MB, MOCAP_BONE_COUNT, MOCAP_BONES, MOCAP_PARENTS } from './bones';

/** Protocol version of both messages. */
export const MOCAP_STREAM_PROTOCOL = 1;
/** Bytes before the per-bone arrays of a pose message. */
export const MOCAP_POSE_HEADER_BYTES = 44;
/** `type` of the skeleton message. */
export const MOCAP_SKELETON_TYPE = 'mocap-skeleton';
/** Largest accepted |offset| or |hips| coordinate, metres (a bad unit, not a person). */
const MAX_METRES = 100;
/** A rotation whose norm is off 1 by more than this is refused (float32 rounding is ~1e-7). */
const NORM_TOLERANCE = 1e-3;

/** Bytes of a pose message for `boneCount` bones: 44 + 21 N. */
export function mocapPoseBytes(boneCount: number): number {
  return MOCAP_POSE_HEADER_BYTES + 21 * boneCount;
}

/** A malformed skeleton message: the message names the field. */
export class MocapStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MocapStreamError';
  }
}

/** A parsed skeleton message. */
export interface MocapStreamSkeleton {
  /** The message's id (poses carry it). */
  id: number;
  /** The source skeleton: these bones, rest rotations identity, rest translations = offsets, humanoid by name. */
  skeleton: Skeleton;
}

/**
 * The skeleton message for `skeleton` (rest rotations must be the identity, as `mocapSkeleton` makes them;
 * names HumanBodyBones names, parents first). Allocates (once per calibration).
 * @throws MocapStreamError for an id outside 1..2^32-1 or a skeleton the receiver would refuse.
 */
export function mocapSkeletonMessage(skeleton: Skeleton, id: number): string {
  const text = JSON.stringify({
    type: MOCAP_SKELETON_TYPE,
    protocol: MOCAP_STREAM_PROTOCOL,
    id,
    bones: [...skeleton.names],
    parents: Array.from(skeleton.parents),
    offsets: Array.from(skeleton.restTranslations),
  });
  parseMocapSkeletonMessage(text); // the same checks the receiver makes
  return text;
}

/**
 * Parse and check a skeleton message (see the module header).
 * @throws MocapStreamError naming the field: not JSON, wrong type or protocol, an id outside 1..2^32-1, a
 * bone that is no HumanBodyBones name or repeats, a root that is not Hips, a parent not before its child,
 * offsets not 3 finite numbers per bone within 100 m.
 */
export function parseMocapSkeletonMessage(text: string): MocapStreamSkeleton {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(text);
  } catch {
    throw new MocapStreamError('mocap skeleton: not JSON');
  }
  if (m === null || typeof m !== 'object' || Array.isArray(m))
    throw new MocapStreamError('mocap skeleton: need a JSON object');
  if (m.type !== MOCAP_SKELETON_TYPE)
    throw new MocapStreamError(
      `mocap skeleton.type: ${JSON.stringify(m.type)}, expected "${MOCAP_SKELETON_TYPE}"`,
    );
  if (m.protocol !== MOCAP_STREAM_PROTOCOL)
    throw new MocapStreamError(
      `mocap skeleton.protocol: ${JSON.stringify(m.protocol)}, this receiver reads ${MOCAP_STREAM_PROTOCOL}`,
    );
  const id = m.id;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > 0xffffffff)
    throw new MocapStreamError(`mocap skeleton.id: ${JSON.stringify(id)}, need an integer 1..4294967295`);
  const bones = m.bones;
  if (!Array.isArray(bones) || bones.length < 1 || bones.length > HUMAN_BONE_COUNT)
    throw new MocapStreamError(`mocap skeleton.bones: need 1..${HUMAN_BONE_COUNT} HumanBodyBones names`);
  const n = bones.length;
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  for (let i = 0; i < n; i++) {
    const h = typeof bones[i] === 'string' ? humanBoneIndex(bones[i]) : -1;
    if (h < 0)
      throw new MocapStreamError(
        `mocap skeleton.bones[${i}]: ${JSON.stringify(bones[i])} is no HumanBodyBones name`,
      );
    if (humanoid[h] >= 0) throw new MocapStreamError(`mocap skeleton.bones[${i}]: ${bones[i]} repeats`);
    humanoid[h] = i;
  }
  if (bones[0] !== 'Hips')
    throw new MocapStreamError(`mocap skeleton.bones[0]: ${bones[0]}, the root must be Hips`);
  const parents = m.parents;
  if (!Array.isArray(parents) || parents.length !== n)
    throw new MocapStreamError(`mocap skeleton.parents: need ${n} parent indices`);
  for (let i = 0; i < n; i++) {
    const p = parents[i];
    const ok = i === 0 ? p === -1 : Number.isInteger(p) && p >= 0 && p < i;
    if (!ok)
      throw new MocapStreamError(
        `mocap skeleton.parents[${i}]: ${JSON.stringify(p)}, need ${i === 0 ? '-1 (the root)' : `an index 0..${i - 1} (parents first)`}`,
      );
  }
  const offsets = m.offsets;
  if (!Array.isArray(offsets) || offsets.length !== 3 * n)
    throw new MocapStreamError(`mocap skeleton.offsets: need ${3 * n} numbers (x, y, z per bone, metres)`);
  for (let i = 0; i < 3 * n; i++) {
    const v = offsets[i];
    if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > MAX_METRES)
      throw new MocapStreamError(
        `mocap skeleton.offsets[${i}]: ${JSON.stringify(v)}, need a finite number of metres within ${MAX_METRES}`,
      );
  }
  const rr = new Float64Array(4 * n);
  for (let i = 0; i < n; i++) rr[4 * i + 3] = 1;
  const skeleton = createSkeleton({
    names: bones as string[],
    parents: parents as number[],
    restTranslations: offsets as number[],
    restRotations: rr,
    humanoid,
  });
  return { id, skeleton };
}

/** One decoded pose message (preallocated for a skeleton; {@link readMocapPose} fills it). */
export class MocapStreamFrame {
  readonly boneCount: number;
  skeletonId = 0;
  frameNumber = 0;
  flags = 0;
  /** Frame time, ms (sender's camera/video clock). */
  timeMs = 0;
  /** Sent at, ms since the Unix epoch (sender's clock). */
  sentAtMs = 0;
  /** Local rotations `4 N` `[x, y, z, w]` (float32 values). */
  readonly rotations: Float64Array;
  /** Local translations `3 N`, metres: the skeleton's rest offsets, the root's = the hips translation. */
  readonly translations: Float64Array;
  /** Confidence per bone, [0, 1]. */
  readonly confidence: Float64Array;
  /** State per bone (0 measured, 1 held, 2 filled). */
  readonly state: Uint8Array;
  /** The last message's bytes, copied (so reading allocates no DataView per message). */
  readonly raw: Uint8Array;
  readonly view: DataView;

  constructor(skeleton: Skeleton) {
    const n = skeleton.names.length;
    this.boneCount = n;
    this.rotations = Float64Array.from(skeleton.restRotations);
    this.translations = Float64Array.from(skeleton.restTranslations);
    this.confidence = new Float64Array(n);
    this.state = new Uint8Array(n);
    this.raw = new Uint8Array(mocapPoseBytes(n));
    this.view = new DataView(this.raw.buffer);
  }
}

/**
 * Decode a pose message into `out` (made for the current skeleton, whose id is `skeletonId`). Allocates
 * nothing when the message is good. Returns null, or why the message was refused (one line; `out` may then
 * be partly written): wrong length, magic or version, a pose of another skeleton, a non-finite number, a
 * rotation whose norm is off 1 by more than 1e-3, a hips coordinate over 100 m, a confidence outside [0, 1],
 * a state over 2.
 */
export function readMocapPose(bytes: Uint8Array, skeletonId: number, out: MocapStreamFrame): string | null {
  const n = out.boneCount;
  const want = mocapPoseBytes(n);
  if (bytes.length !== want) return `pose message of ${bytes.length} bytes, expected ${want} for ${n} bones`;
  if (bytes[0] !== 0x4b || bytes[1] !== 0x4d || bytes[2] !== 0x50) return 'pose message: bad magic (not KMP)';
  if (bytes[3] !== MOCAP_STREAM_PROTOCOL)
    return `pose message: protocol ${bytes[3]}, expected ${MOCAP_STREAM_PROTOCOL}`;
  out.raw.set(bytes);
  const dv = out.view;
  const sid = dv.getUint32(4, true);
  if (sid !== skeletonId) return `pose message of skeleton ${sid}, the current skeleton is ${skeletonId}`;
  const time = dv.getFloat64(16, true);
  const sent = dv.getFloat64(24, true);
  if (!Number.isFinite(time) || !Number.isFinite(sent)) return 'pose message: non-finite time';
  for (let c = 0; c < 3; c++) {
    const v = dv.getFloat32(32 + 4 * c, true);
    if (!(Math.abs(v) <= MAX_METRES))
      return `pose message: hips coordinate ${v} is not within ${MAX_METRES} m`;
    out.translations[c] = v;
  }
  const rot = out.rotations;
  for (let b = 0; b < n; b++) {
    let norm = 0;
    for (let c = 0; c < 4; c++) {
      const v = dv.getFloat32(44 + 16 * b + 4 * c, true);
      rot[4 * b + c] = v;
      norm += v * v;
    }
    if (!(Math.abs(Math.sqrt(norm) - 1) <= NORM_TOLERANCE))
      return `pose message: bone ${b} rotation is not a unit quaternion`;
  }
  const co = 44 + 16 * n;
  for (let b = 0; b < n; b++) {
    const v = dv.getFloat32(co + 4 * b, true);
    if (!(v >= 0 && v <= 1)) return `pose message: bone ${b} confidence ${v} is outside [0, 1]`;
    out.confidence[b] = v;
  }
  const so = 44 + 20 * n;
  for (let b = 0; b < n; b++) {
    const s = bytes[so + b];
    if (s > 2) return `pose message: bone ${b} state ${s} is not 0, 1 or 2`;
    out.state[b] = s;
  }
  out.skeletonId = sid;
  out.frameNumber = dv.getUint32(8, true);
  out.flags = dv.getUint32(12, true);
  out.timeMs = time;
  out.sentAtMs = sent;
  return null;
}

/** Writes pose messages into one reused buffer (the sender's side; allocates nothing per frame). */
export class MocapPoseWriter {
  /** The message bytes (reused: send or copy before the next write). */
  readonly bytes: Uint8Array;
  private readonly dv: DataView;
  private readonly n: number;

  constructor(boneCount: number) {
    this.n = boneCount;
    this.bytes = new Uint8Array(mocapPoseBytes(boneCount));
    this.dv = new DataView(this.bytes.buffer);
    this.bytes[0] = 0x4b;
    this.bytes[1] = 0x4d;
    this.bytes[2] = 0x50;
    this.bytes[3] = MOCAP_STREAM_PROTOCOL;
  }

  /**
   * Write one frame. `localRotations` `4 N`, `localTranslations` `3 N` (only the root's three are sent: the
   * hips, metres), `confidence` `N`, `state` `N` (the MocapSolver's arrays fit as they are).
   * @returns {@link MocapPoseWriter.bytes}
   */
  write(
    skeletonId: number,
    frameNumber: number,
    personFound: boolean,
    timeMs: number,
    sentAtMs: number,
    localRotations: ArrayLike<number>,
    localTranslations: ArrayLike<number>,
    confidence: ArrayLike<number>,
    state: ArrayLike<number>,
  ): Uint8Array {
    const dv = this.dv;
    const n = this.n;
    dv.setUint32(4, skeletonId >>> 0, true);
    dv.setUint32(8, frameNumber >>> 0, true);
    dv.setUint32(12, personFound ? 1 : 0, true);
    dv.setFloat64(16, timeMs, true);
    dv.setFloat64(24, sentAtMs, true);
    for (let c = 0; c < 3; c++) dv.setFloat32(32 + 4 * c, localTranslations[c], true);
    for (let i = 0; i < 4 * n; i++) dv.setFloat32(44 + 4 * i, localRotations[i], true);
    const co = 44 + 16 * n;
    for (let b = 0; b < n; b++) dv.setFloat32(co + 4 * b, confidence[b], true);
    const so = 44 + 20 * n;
    for (let b = 0; b < n; b++) this.bytes[so + b] = state[b];
    return this.bytes;
  }
}

/**
 * A mocap skeleton of typical proportions (torso 0.49 m, upper arm 0.26, forearm 0.23, thigh 0.37, shin 0.40,
 * neck 0.20, hip width 0.17, shoulder width 0.32: the real squat's calibration, calibrate.ts
 * DEFAULT_PROPORTIONS' note), laid out as `calibrateMocap` lays out a calibration. A receiver's stand-in until
 * the page's first skeleton message (`kind live --source browser` builds its hubs and viewer scene on it).
 */
export function placeholderMocapSkeleton(): Skeleton {
  const T = 0.49;
  const L = {
    upperArm: 0.26,
    forearm: 0.23,
    thigh: 0.37,
    shin: 0.4,
    neck: 0.2,
    hipWidth: 0.17,
    shoulderWidth: 0.32,
  };
  const ankle = 0.07;
  const rt = new Float64Array(3 * MOCAP_BONE_COUNT);
  const set = (b: number, x: number, y: number, z: number) => {
    rt[3 * b] = x;
    rt[3 * b + 1] = y;
    rt[3 * b + 2] = z;
  };
  set(MB.Hips, 0, L.thigh + L.shin + ankle, 0);
  set(MB.Spine, 0, 0.1 * T, 0);
  set(MB.Chest, 0, 0.35 * T, 0);
  set(MB.Neck, 0, 0.55 * T, 0);
  set(MB.Head, 0, L.neck, 0);
  for (const [left, sign] of [
    [true, 1],
    [false, -1],
  ] as const) {
    set(left ? MB.LeftShoulder : MB.RightShoulder, 0, 0.55 * T, 0);
    set(left ? MB.LeftUpperArm : MB.RightUpperArm, (sign * L.shoulderWidth) / 2, 0, 0);
    set(left ? MB.LeftLowerArm : MB.RightLowerArm, sign * L.upperArm, 0, 0);
    set(left ? MB.LeftHand : MB.RightHand, sign * L.forearm, 0, 0);
    set(left ? MB.LeftUpperLeg : MB.RightUpperLeg, (sign * L.hipWidth) / 2, 0, 0);
    set(left ? MB.LeftLowerLeg : MB.RightLowerLeg, 0, -L.thigh, 0);
    set(left ? MB.LeftFoot : MB.RightFoot, 0, -L.shin, 0);
    set(left ? MB.LeftToes : MB.RightToes, 0, -ankle, 0.16);
  }
  const rr = new Float64Array(4 * MOCAP_BONE_COUNT);
  for (let i = 0; i < MOCAP_BONE_COUNT; i++) rr[4 * i + 3] = 1;
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  MOCAP_BONES.forEach((n, i) => {
    humanoid[humanBoneIndex(n)] = i;
  });
  return createSkeleton({
    names: MOCAP_BONES,
    parents: MOCAP_PARENTS,
    restTranslations: rt,
    restRotations: rr,
    humanoid,
  });
}
