/**
 * A reusable NatNet frame of data (NAT_FRAMEOFDATA), stored as structure-of-arrays typed arrays so that
 * decoding frame after frame into the same object allocates nothing once its capacity fits the stream.
 *
 * Capacity grows (doubling) only when a larger packet that passed every bounds check arrives; a packet's
 * payload is at most 65535 bytes (16-bit length field), so every array is capped by what one packet can hold
 * (e.g. at most 1724 rigid bodies or bones of 38 bytes each).
 *
 * Field meanings follow NATNET.md §5 (sources: whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 :
 * samples/PacketClient/PacketClient.cpp `UnpackFrameData`; Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 :
 * natnetsdk/NatNetClient.py `__unpack_mocap_data`). Positions are metres, quaternions `[qx, qy, qz, qw]`,
 * Motive's frame (Y up, right-handed), i.e. our internal frame.
 */

function grow<T extends Int32Array | Float32Array | Int16Array>(
  a: T,
  need: number,
  make: (n: number) => T,
): T {
  if (a.length >= need) return a;
  let cap = Math.max(8, a.length * 2);
  while (cap < need) cap *= 2;
  return make(cap);
}

/** Indices into {@link NatNetFrame.scalars}. */
export const FrameScalar = {
  SoftwareLatency: 0,
  Timecode: 1,
  TimecodeSubframe: 2,
  Timestamp: 3,
  StampCameraMidExposure: 4,
  StampDataReceived: 5,
  StampTransmit: 6,
  PrecisionSeconds: 7,
  PrecisionFraction: 8,
} as const;

/** Elements per pose record: position x, y, z, then quaternion qx, qy, qz, qw. */
export const POSE_STRIDE = 7;

export class NatNetFrame {
  constructor() {
    this.scalars[FrameScalar.SoftwareLatency] = Number.NaN;
  }

  /** Motive's frame counter (`int32`). */
  frameNumber = 0;
  /** Marker sets in the frame (decoded only far enough to skip them). */
  markerSetCount = 0;
  /** "Other"/legacy unlabeled markers (skipped). */
  otherMarkerCount = 0;

  rigidBodyCount = 0;
  /** Rigid body ids, `rigidBodyCount` used. */
  rigidBodyIds = new Int32Array(8);
  /** Pose per rigid body: `[x, y, z, qx, qy, qz, qw]` at `7 * i`, metres. */
  rigidBodyPose = new Float32Array(8 * POSE_STRIDE);
  /** Mean marker error per rigid body (metres). */
  rigidBodyError = new Float32Array(8);
  /** Params per rigid body (bit 0: tracking valid; NatNet >= 2.6, else 1). */
  rigidBodyParams = new Int16Array(8);

  skeletonCount = 0;
  skeletonIds = new Int32Array(4);
  /** Index of the skeleton's first bone in the bone arrays. */
  skeletonBoneStart = new Int32Array(4);
  skeletonBoneCount = new Int32Array(4);

  /** Bones of all skeletons, in order. */
  boneCount = 0;
  /** Raw bone ids as streamed: `(skeletonId << 16) | boneId` (NATNET.md §5.2). */
  boneIds = new Int32Array(32);
  /** Pose per bone `[x, y, z, qx, qy, qz, qw]` at `7 * i` (parent-relative when Motive streams local). */
  bonePose = new Float32Array(32 * POSE_STRIDE);
  boneError = new Float32Array(32);
  boneParams = new Int16Array(32);

  /** Assets (NatNet >= 4.1; skipped). */
  assetCount = 0;

  labeledMarkerCount = 0;
  /** Labeled marker ids: high 16 bits model/asset id, low 16 bits marker id. */
  labeledMarkerIds = new Int32Array(16);
  /** Positions `[x, y, z]` at `3 * i`, metres. */
  labeledMarkerPos = new Float32Array(48);
  labeledMarkerSize = new Float32Array(16);
  labeledMarkerParams = new Int16Array(16);
  /** Residual (NatNet >= 3.0; 0 before). */
  labeledMarkerResidual = new Float32Array(16);

  /** Force plates and devices (NatNet >= 2.9 / 2.11; skipped). */
  forcePlateCount = 0;
  deviceCount = 0;

  /**
   * The double-valued suffix fields, stored in a typed array: V8 boxes every double stored in an object
   * field (a heap number per store), a typed array element is written in place. Use the accessors below;
   * the decoder writes the array directly. Indices: {@link FrameScalar}.
   */
  readonly scalars = new Float64Array(10);
  /** NatNet < 3.0 only: software latency field (NaN from 3.0). */
  get softwareLatency(): number {
    return this.scalars[FrameScalar.SoftwareLatency];
  }
  set softwareLatency(v: number) {
    this.scalars[FrameScalar.SoftwareLatency] = v;
  }
  get timecode(): number {
    return this.scalars[FrameScalar.Timecode];
  }
  set timecode(v: number) {
    this.scalars[FrameScalar.Timecode] = v;
  }
  get timecodeSubframe(): number {
    return this.scalars[FrameScalar.TimecodeSubframe];
  }
  set timecodeSubframe(v: number) {
    this.scalars[FrameScalar.TimecodeSubframe] = v;
  }
  /** Seconds since the start of the take (float before 2.7, double from 2.7; NaN before 2.6). */
  get timestamp(): number {
    return this.scalars[FrameScalar.Timestamp];
  }
  set timestamp(v: number) {
    this.scalars[FrameScalar.Timestamp] = v;
  }
  /** NatNet >= 3.0: high-resolution ticks (divide by ServerInfo.highResClockFrequency); 0 before. */
  get stampCameraMidExposure(): number {
    return this.scalars[FrameScalar.StampCameraMidExposure];
  }
  set stampCameraMidExposure(v: number) {
    this.scalars[FrameScalar.StampCameraMidExposure] = v;
  }
  get stampDataReceived(): number {
    return this.scalars[FrameScalar.StampDataReceived];
  }
  set stampDataReceived(v: number) {
    this.scalars[FrameScalar.StampDataReceived] = v;
  }
  get stampTransmit(): number {
    return this.scalars[FrameScalar.StampTransmit];
  }
  set stampTransmit(v: number) {
    this.scalars[FrameScalar.StampTransmit] = v;
  }
  /** NatNet >= 4.1 (and 4.0 when the packet length shows it): precision timestamp. */
  hasPrecisionTimestamp = false;
  get precisionTimestampSeconds(): number {
    return this.scalars[FrameScalar.PrecisionSeconds];
  }
  set precisionTimestampSeconds(v: number) {
    this.scalars[FrameScalar.PrecisionSeconds] = v;
  }
  get precisionTimestampFraction(): number {
    return this.scalars[FrameScalar.PrecisionFraction];
  }
  set precisionTimestampFraction(v: number) {
    this.scalars[FrameScalar.PrecisionFraction] = v;
  }
  /** Frame params: bit 0 recording, bit 1 tracked models changed, bit 2 bitstream version changed. */
  params = 0;

  /** Make room for `n` rigid bodies (keeps the first `rigidBodyCount`) and set the count. */
  setRigidBodyCount(n: number): void {
    if (n > this.rigidBodyIds.length) {
      const ids = grow(this.rigidBodyIds, n, (c) => new Int32Array(c));
      const c = ids.length;
      const pose = new Float32Array(c * POSE_STRIDE);
      const err = new Float32Array(c);
      const par = new Int16Array(c);
      ids.set(this.rigidBodyIds.subarray(0, this.rigidBodyCount));
      pose.set(this.rigidBodyPose.subarray(0, this.rigidBodyCount * POSE_STRIDE));
      err.set(this.rigidBodyError.subarray(0, this.rigidBodyCount));
      par.set(this.rigidBodyParams.subarray(0, this.rigidBodyCount));
      this.rigidBodyIds = ids;
      this.rigidBodyPose = pose;
      this.rigidBodyError = err;
      this.rigidBodyParams = par;
    }
    this.rigidBodyCount = n;
  }

  /** Make room for `n` skeletons (keeps the first `skeletonCount`) and set the count. */
  setSkeletonCount(n: number): void {
    if (n > this.skeletonIds.length) {
      const ids = grow(this.skeletonIds, n, (c) => new Int32Array(c));
      const start = new Int32Array(ids.length);
      const count = new Int32Array(ids.length);
      ids.set(this.skeletonIds.subarray(0, this.skeletonCount));
      start.set(this.skeletonBoneStart.subarray(0, this.skeletonCount));
      count.set(this.skeletonBoneCount.subarray(0, this.skeletonCount));
      this.skeletonIds = ids;
      this.skeletonBoneStart = start;
      this.skeletonBoneCount = count;
    }
    this.skeletonCount = n;
  }

  /** Make room for `n` bones in total (keeps the first `boneCount`) and set the count. */
  setBoneCount(n: number): void {
    if (n > this.boneIds.length) {
      const ids = grow(this.boneIds, n, (c) => new Int32Array(c));
      const c = ids.length;
      const pose = new Float32Array(c * POSE_STRIDE);
      const err = new Float32Array(c);
      const par = new Int16Array(c);
      ids.set(this.boneIds.subarray(0, this.boneCount));
      pose.set(this.bonePose.subarray(0, this.boneCount * POSE_STRIDE));
      err.set(this.boneError.subarray(0, this.boneCount));
      par.set(this.boneParams.subarray(0, this.boneCount));
      this.boneIds = ids;
      this.bonePose = pose;
      this.boneError = err;
      this.boneParams = par;
    }
    this.boneCount = n;
  }

  /** Make room for `n` labeled markers (keeps the first `labeledMarkerCount`) and set the count. */
  setLabeledMarkerCount(n: number): void {
    if (n > this.labeledMarkerIds.length) {
      const ids = grow(this.labeledMarkerIds, n, (c) => new Int32Array(c));
      const c = ids.length;
      const pos = new Float32Array(3 * c);
      const size = new Float32Array(c);
      const par = new Int16Array(c);
      const res = new Float32Array(c);
      const k = this.labeledMarkerCount;
      ids.set(this.labeledMarkerIds.subarray(0, k));
      pos.set(this.labeledMarkerPos.subarray(0, 3 * k));
      size.set(this.labeledMarkerSize.subarray(0, k));
      par.set(this.labeledMarkerParams.subarray(0, k));
      res.set(this.labeledMarkerResidual.subarray(0, k));
      this.labeledMarkerIds = ids;
      this.labeledMarkerPos = pos;
      this.labeledMarkerSize = size;
      this.labeledMarkerParams = par;
      this.labeledMarkerResidual = res;
    }
    this.labeledMarkerCount = n;
  }

  /** Index of the skeleton with id `skeletonId` in this frame, or -1. */
  findSkeleton(skeletonId: number): number {
    for (let s = 0; s < this.skeletonCount; s++) if (this.skeletonIds[s] === skeletonId) return s;
    return -1;
  }

  /** Reset every count and field to an empty frame (capacity kept). */
  clear(): void {
    this.frameNumber = 0;
    this.markerSetCount = 0;
    this.otherMarkerCount = 0;
    this.rigidBodyCount = 0;
    this.skeletonCount = 0;
    this.boneCount = 0;
    this.assetCount = 0;
    this.labeledMarkerCount = 0;
    this.forcePlateCount = 0;
    this.deviceCount = 0;
    this.scalars.fill(0);
    this.softwareLatency = Number.NaN;
    this.hasPrecisionTimestamp = false;
    this.params = 0;
  }
}

/** Bone index (low 16 bits) of a streamed bone id. */
export function boneIdOf(rawId: number): number {
  return rawId & 0xffff;
}

/** Skeleton id (high 16 bits) of a streamed bone id. */
export function skeletonIdOf(rawId: number): number {
  return rawId >>> 16;
}
