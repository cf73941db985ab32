/**
 * NatNet packet encoders: what a server sends (SERVERINFO, MODELDEF, FRAMEOFDATA, RESPONSE, ECHORESPONSE)
 * and what a client sends (CONNECT, REQUEST_MODELDEF, KEEPALIVE, REQUEST, ECHOREQUEST).
 *
 * The layouts are the ones {@link decodeFrame} and friends read (decode.ts; NATNET.md §2, §4, §5; sources
 * whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 : include/NatNetTypes.h, samples/PacketClient/PacketClient.cpp;
 * Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 : natnetsdk/NatNetClient.py). Frames are written for any version
 * from 2.6 with the same gates; the replay server uses 3.0, 3.1, 4.0, 4.1 and 4.2. NatNet 4.0 frames are
 * written without the precision timestamp (the SDK 4.3 gate, 4.1+). From 4.1 every frame block and every
 * MODELDEF description carries its byte size.
 */
import { type NatNetFrame, POSE_STRIDE } from './frame';
import { ByteWriter } from './reader';
import {
  atLeast,
  type ConnectInfo,
  type MarkerSetDescription,
  NatNetMessage,
  type NatNetResponse,
  type NatNetVersion,
  type RigidBodyDescription,
  type ServerInfo,
  type SkeletonDescription,
  type Version4,
} from './types';

/** Thrown when a packet cannot be encoded (payload over 65535 bytes, bad field). */
export class NatNetEncodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NatNetEncodeError';
  }
}

function begin(w: ByteWriter, messageId: number): void {
  w.reset();
  w.u16(messageId);
  w.u16(0);
}

/** Patch the payload length; returns a copy, or the writer's view when `view` is true. */
function finish(w: ByteWriter, view = false): Uint8Array {
  const payload = w.pos - 4;
  if (payload > 0xffff) throw new NatNetEncodeError(`payload of ${payload} bytes exceeds 65535`);
  w.patchU16(2, payload);
  const b = w.bytes();
  return view ? b : b.slice();
}

function sender(w: ByteWriter, name: string, app: Version4, natnet: Version4): void {
  w.fixedString(name, 256);
  for (const b of app) w.u8(b);
  for (const b of natnet) w.u8(b);
}

/** Version as the 4 bytes of the sender block. */
export function version4Of(v: NatNetVersion): Version4 {
  return [v.major, v.minor, 0, 0];
}

/**
 * NAT_SERVERINFO. The 3.x tail (clock frequency, data port, multicast flag and group) is written when
 * `natNetVersion[0] >= 3`; missing fields default to 10 MHz, port 1511, unicast, 239.255.42.99.
 */
export function encodeServerInfo(info: ServerInfo): Uint8Array {
  const w = new ByteWriter(300);
  begin(w, NatNetMessage.ServerInfo);
  sender(w, info.appName, info.appVersion, info.natNetVersion);
  if (info.natNetVersion[0] >= 3) {
    w.u64(info.highResClockFrequency ?? 10_000_000);
    w.u16(info.dataPort ?? 1511);
    w.u8(info.isMulticast ? 1 : 0);
    const parts = (info.multicastAddress ?? '239.255.42.99').split('.').map((x) => Number(x) & 0xff);
    for (let i = 0; i < 4; i++) w.u8(parts[i] ?? 0);
  }
  return finish(w);
}

/**
 * NAT_CONNECT (or NAT_DISCOVERY with `messageId` 14): the sender block, and when `subscribedDataOnly` or
 * `requestedVersion` is given, the SDK 4.x options (`uint8 subscribedDataOnly`, `uint8 version[4]`).
 */
export function encodeConnect(
  info: Partial<ConnectInfo> = {},
  messageId = NatNetMessage.Connect,
): Uint8Array {
  const w = new ByteWriter(300);
  begin(w, messageId);
  sender(w, info.appName ?? 'NatNetLib', info.appVersion ?? [4, 1, 0, 0], info.natNetVersion ?? [4, 1, 0, 0]);
  if (info.subscribedDataOnly !== undefined || info.requestedVersion) {
    w.u8(info.subscribedDataOnly ? 1 : 0);
    for (const b of info.requestedVersion ?? [0, 0, 0, 0]) w.u8(b);
  }
  return finish(w);
}

/** A packet with no payload (NAT_REQUEST_MODELDEF, NAT_KEEPALIVE, NAT_REQUEST_FRAMEOFDATA, ...). */
export function encodeEmpty(messageId: number): Uint8Array {
  const b = new Uint8Array(4);
  b[0] = messageId & 0xff;
  b[1] = messageId >> 8;
  return b;
}

export const encodeRequestModelDef = (): Uint8Array => encodeEmpty(NatNetMessage.RequestModelDef);
export const encodeKeepAlive = (): Uint8Array => encodeEmpty(NatNetMessage.KeepAlive);

/** NAT_REQUEST with a NUL-terminated text command, e.g. 'Bitstream' or 'Bitstream,4.1'. */
export function encodeRequest(text: string, messageId = NatNetMessage.Request): Uint8Array {
  const w = new ByteWriter(64);
  begin(w, messageId);
  w.cstring(text);
  return finish(w);
}

/** NAT_RESPONSE: a 4-byte int or a NUL-terminated text. */
export function encodeResponse(response: NatNetResponse): Uint8Array {
  const w = new ByteWriter(64);
  begin(w, NatNetMessage.Response);
  if (response.kind === 'int') w.i32(response.value);
  else if (response.kind === 'float') w.f32(response.value);
  else {
    w.cstring(response.text);
    // a 4-byte payload reads as an int (PY41): pad a 3-character text with a second NUL
    if (w.pos === 8) w.u8(0);
  }
  return finish(w);
}

/** NAT_ECHOREQUEST with a uint64 stamp (a non-negative integer below 2^53). */
export function encodeEchoRequest(stamp: number): Uint8Array {
  const w = new ByteWriter(12);
  begin(w, NatNetMessage.EchoRequest);
  w.u64(stamp);
  return finish(w);
}

/** NAT_ECHORESPONSE: echoed request stamp and the server's receive stamp (uint64 each). */
export function encodeEchoResponse(requestStamp: number, serverStamp: number): Uint8Array {
  const w = new ByteWriter(20);
  begin(w, NatNetMessage.EchoResponse);
  w.u64(requestStamp);
  w.u64(serverStamp);
  return finish(w);
}

function rigidBodyDescription(
  w: ByteWriter,
  d: RigidBodyDescription,
  v: NatNetVersion,
  markers = atLeast(v, 3, 0),
): void {
  if (atLeast(v, 2, 0)) w.cstring(d.name);
  w.i32(d.id);
  w.i32(d.parentId);
  for (let k = 0; k < 3; k++) w.f32(d.offset[k]);
  if (atLeast(v, 4, 2)) for (let k = 0; k < 4; k++) w.f32(d.rotationOffset[k]);
  if (markers) {
    w.i32(d.markers.length);
    for (const m of d.markers) for (let k = 0; k < 3; k++) w.f32(m.position[k]);
    for (const m of d.markers) w.i32(m.activeLabel);
    if (atLeast(v, 4, 0)) for (const m of d.markers) w.cstring(m.name);
  }
}

/**
 * NAT_MODELDEF with marker sets (type 0), rigid bodies (1) and skeletons (2), in that order. From 4.1 each
 * description is preceded by its byte size; from 4.2 bones and rigid bodies carry `rotationOffset`.
 * Skeleton bones carry the rigid-body marker block from 3.0 (the SDK 4.x layout); with NatNet 3.x,
 * `options.boneMarkers: false` writes them without it, as the SDK 3.0-3.1 samples read them (see
 * decodeModelDef). @throws NatNetEncodeError for `boneMarkers: false` with another version.
 */
export function encodeModelDef(
  defs: {
    markerSets?: readonly MarkerSetDescription[];
    rigidBodies?: readonly RigidBodyDescription[];
    skeletons?: readonly SkeletonDescription[];
  },
  version: NatNetVersion,
  options: { boneMarkers?: boolean } = {},
): Uint8Array {
  const boneMarkers = options.boneMarkers ?? atLeast(version, 3, 0);
  if (boneMarkers !== atLeast(version, 3, 0) && version.major !== 3) {
    throw new NatNetEncodeError(
      `boneMarkers ${boneMarkers}: only NatNet 3.x has two skeleton bone layouts (asked for ${version.major}.${version.minor})`,
    );
  }
  const w = new ByteWriter(4096);
  begin(w, NatNetMessage.ModelDef);
  const ms = defs.markerSets ?? [];
  const rb = defs.rigidBodies ?? [];
  const sk = defs.skeletons ?? [];
  w.i32(ms.length + rb.length + sk.length);
  const sized = atLeast(version, 4, 1);
  const item = (type: number, body: () => void) => {
    w.i32(type);
    const at = sized ? w.placeholder() : -1;
    body();
    if (at >= 0) w.patchI32(at, w.pos - at - 4);
  };
  for (const m of ms) {
    item(0, () => {
      w.cstring(m.name);
      w.i32(m.markerNames.length);
      for (const n of m.markerNames) w.cstring(n);
    });
  }
  for (const r of rb) item(1, () => rigidBodyDescription(w, r, version));
  for (const s of sk) {
    item(2, () => {
      w.cstring(s.name);
      w.i32(s.id);
      w.i32(s.bones.length);
      for (const b of s.bones) rigidBodyDescription(w, b, version, boneMarkers);
    });
  }
  return finish(w);
}

function rigidBodyRecord(
  w: ByteWriter,
  v: NatNetVersion,
  ids: Int32Array,
  pose: Float32Array,
  err: Float32Array,
  par: Int16Array,
  i: number,
): void {
  w.i32(ids[i]);
  for (let k = 0; k < POSE_STRIDE; k++) w.f32(pose[POSE_STRIDE * i + k]);
  if (!atLeast(v, 3, 0)) w.i32(0); // no per-frame rigid-body markers
  if (atLeast(v, 2, 0)) w.f32(err[i]);
  if (atLeast(v, 2, 6)) w.i16(par[i]);
}

const frameWriter = new ByteWriter(8192);

/**
 * NAT_FRAMEOFDATA from `frame` for `version` (>= 2.6): frame number, empty marker sets and legacy markers,
 * rigid bodies, skeletons (bone ids written as stored, i.e. composite), empty assets (4.1+), labeled
 * markers, empty force plates and devices, and the suffix (timecode, timestamp, 3.x stamps, 4.1+ precision
 * timestamp, params, end tag 0). From 4.1 every block's byte size follows its count.
 * With `writer`, returns a view into it (valid until its next use); otherwise a fresh copy.
 */
export function encodeFrame(frame: NatNetFrame, version: NatNetVersion, writer?: ByteWriter): Uint8Array {
  const w = writer ?? frameWriter;
  const v = version;
  const sized = atLeast(v, 4, 1);
  begin(w, NatNetMessage.FrameOfData);
  w.i32(frame.frameNumber);
  const block = (count: number, body?: () => void) => {
    w.i32(count);
    const at = sized ? w.placeholder() : -1;
    if (body) body();
    if (at >= 0) w.patchI32(at, w.pos - at - 4);
  };
  block(0); // marker sets
  block(0); // legacy markers
  block(frame.rigidBodyCount, () => {
    for (let i = 0; i < frame.rigidBodyCount; i++) {
      rigidBodyRecord(
        w,
        v,
        frame.rigidBodyIds,
        frame.rigidBodyPose,
        frame.rigidBodyError,
        frame.rigidBodyParams,
        i,
      );
    }
  });
  if (atLeast(v, 2, 1)) {
    block(frame.skeletonCount, () => {
      for (let s = 0; s < frame.skeletonCount; s++) {
        w.i32(frame.skeletonIds[s]);
        const start = frame.skeletonBoneStart[s];
        const n = frame.skeletonBoneCount[s];
        w.i32(n);
        for (let b = start; b < start + n; b++) {
          rigidBodyRecord(w, v, frame.boneIds, frame.bonePose, frame.boneError, frame.boneParams, b);
        }
      }
    });
  }
  if (sized) block(0); // assets
  if (atLeast(v, 2, 3)) {
    block(frame.labeledMarkerCount, () => {
      for (let i = 0; i < frame.labeledMarkerCount; i++) {
        w.i32(frame.labeledMarkerIds[i]);
        w.f32(frame.labeledMarkerPos[3 * i]);
        w.f32(frame.labeledMarkerPos[3 * i + 1]);
        w.f32(frame.labeledMarkerPos[3 * i + 2]);
        w.f32(frame.labeledMarkerSize[i]);
        if (atLeast(v, 2, 6)) w.i16(frame.labeledMarkerParams[i]);
        if (atLeast(v, 3, 0)) w.f32(frame.labeledMarkerResidual[i]);
      }
    });
  }
  if (atLeast(v, 2, 9)) block(0); // force plates
  if (atLeast(v, 2, 11)) block(0); // devices
  if (!atLeast(v, 3, 0)) w.f32(Number.isNaN(frame.softwareLatency) ? 0 : frame.softwareLatency);
  w.u32(frame.timecode);
  w.u32(frame.timecodeSubframe);
  if (atLeast(v, 2, 7)) w.f64(frame.timestamp);
  else if (atLeast(v, 2, 6)) w.f32(frame.timestamp);
  if (atLeast(v, 3, 0)) {
    w.u64(frame.stampCameraMidExposure);
    w.u64(frame.stampDataReceived);
    w.u64(frame.stampTransmit);
  }
  if (atLeast(v, 4, 1)) {
    w.u32(frame.precisionTimestampSeconds);
    w.u32(frame.precisionTimestampFraction);
  }
  if (atLeast(v, 2, 6)) w.i16(frame.params);
  w.i32(0); // end of data
  return finish(w, writer !== undefined);
}
