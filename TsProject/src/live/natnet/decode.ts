/**
 * NatNet packet decoders (pure TypeScript on bytes).
 *
 * Layouts (NATNET.md §2, §4, §5) from: whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 :
 * include/NatNetTypes.h, samples/PacketClient/PacketClient.cpp (NatNet 4.3: `UnpackFrameData`,
 * `UnpackDescription`); Vortex5Root/NatNetSDK_4.1.0 @ 6764d860f7e6 : natnetsdk/NatNetClient.py (4.1);
 * mje-nz/natnet-sdk-mirror @ 5a8a379f0472 : Samples/PacketClient/PacketClient.cpp (<= 3.1);
 * nordmoen/natnet-decode @ a35d71817cac : src/frame.rs (2.5-2.9: timestamp and frame params from 2.6);
 * mje-nz/python_natnet @ dcb6fd0a2b7c : src/natnet/protocol/*.py (ServerInfo 3.x, echo).
 *
 * Version gates: rigid-body markers in frames < 3.0; mean error >= 2.0; params >= 2.6; skeletons >= 2.1;
 * assets >= 4.1; labeled markers >= 2.3 (params >= 2.6, residual >= 3.0); force plates >= 2.9; devices >=
 * 2.11; software latency < 3.0; timestamp float 2.6, double >= 2.7; 3 high-res stamps >= 3.0; precision
 * timestamp >= 4.1 (SDK43) — for 4.0, where PY41 reads it too, it is read when the packet length shows it;
 * per-block byte sizes in frames and per-descriptor sizes in MODELDEF >= 4.1; bone/rigid body rotation
 * offset in MODELDEF >= 4.2; rigid-body description markers >= 3.0, marker names >= 4.0.
 *
 * Every decoder throws only {@link NatNetDecodeError} (field name + byte offset) on bad input.
 */
import { NatNetFrame, POSE_STRIDE, FrameScalar as S } from './frame';
import { ByteReader, NatNetDecodeError } from './reader';
import {
  atLeast,
  type ConnectInfo,
  type DataDescription,
  type EchoRequest,
  type EchoResponse,
  type MarkerSetDescription,
  type ModelDefinitions,
  NatNetMessage,
  type NatNetResponse,
  type NatNetVersion,
  type OtherDescription,
  type RigidBodyDescription,
  type ServerInfo,
  type SkeletonDescription,
  type Version4,
} from './types';

/** Packet header: message id and payload length (both uint16 LE). */
export interface PacketHeader {
  messageId: number;
  payloadBytes: number;
}

const SENDER_BYTES = 264;

/**
 * Read and check the 4-byte header: the declared payload must fit in `bytes`.
 * Bytes past the declared payload are ignored by the decoders.
 * @throws NatNetDecodeError (field 'header' or 'header.payloadBytes').
 */
export function readHeader(bytes: Uint8Array): PacketHeader {
  if (bytes.length < 4) throw new NatNetDecodeError('header', 0, `packet of ${bytes.length} bytes, need 4`);
  const messageId = bytes[0] | (bytes[1] << 8);
  const payloadBytes = bytes[2] | (bytes[3] << 8);
  if (4 + payloadBytes > bytes.length) {
    throw new NatNetDecodeError(
      'header.payloadBytes',
      2,
      `declares ${payloadBytes} payload bytes, only ${bytes.length - 4} present`,
    );
  }
  return { messageId, payloadBytes };
}

function expectId(bytes: Uint8Array, ids: readonly number[], what: string): ByteReader {
  const h = readHeader(bytes);
  if (!ids.includes(h.messageId)) {
    throw new NatNetDecodeError('header.messageId', 0, `message id ${h.messageId} is not ${what}`);
  }
  return new ByteReader(bytes, 4, 4 + h.payloadBytes);
}

function version4(r: ByteReader, field: string): Version4 {
  return [r.u8(field), r.u8(field), r.u8(field), r.u8(field)];
}

function readSender(r: ByteReader): { appName: string; appVersion: Version4; natNetVersion: Version4 } {
  r.need(SENDER_BYTES, 'sender');
  const appName = r.fixedString(256, 'sender.name');
  const appVersion = version4(r, 'sender.appVersion');
  const natNetVersion = version4(r, 'sender.natNetVersion');
  return { appName, appVersion, natNetVersion };
}

/**
 * NAT_SERVERINFO: the 264-byte sender block (NatNet 2.x), plus from 3.0 `uint64 highResClockFrequency`,
 * `uint16 dataPort`, `uint8 isMulticast`, `uint8 multicastGroup[4]` (SDK43 `sSender_Server`; python_natnet
 * `ServerInfoMessage`). The 3.x fields are read when the payload holds them (>= 279 bytes).
 */
export function decodeServerInfo(bytes: Uint8Array): ServerInfo {
  const r = expectId(bytes, [NatNetMessage.ServerInfo], 'NAT_SERVERINFO');
  const s: ServerInfo = readSender(r);
  if (r.remaining >= 15) {
    s.highResClockFrequency = r.u64('serverInfo.highResClockFrequency');
    s.dataPort = r.u16('serverInfo.dataPort');
    s.isMulticast = r.u8('serverInfo.isMulticast') !== 0;
    const a = version4(r, 'serverInfo.multicastGroup');
    s.multicastAddress = a.join('.');
  }
  return s;
}

/**
 * NAT_CONNECT or NAT_DISCOVERY: sender block; SDK 4.x appends `uint8 subscribedDataOnly` (payload offset
 * 264) and `uint8 requestedBitstreamVersion[4]` (265-268) (SDK43 `sConnectionOptions`). Any payload >= 264
 * bytes is accepted; the requested version is reported when present and non-zero.
 */
export function decodeConnect(bytes: Uint8Array): ConnectInfo {
  const r = expectId(bytes, [NatNetMessage.Connect, NatNetMessage.Discovery], 'NAT_CONNECT');
  const c: ConnectInfo = readSender(r);
  if (r.remaining >= 1) c.subscribedDataOnly = r.u8('connect.subscribedDataOnly') !== 0;
  if (r.remaining >= 4) {
    const v = version4(r, 'connect.requestedVersion');
    if (v[0] !== 0 || v[1] !== 0) c.requestedVersion = v;
  }
  return c;
}

/**
 * Commands whose 4-byte NAT_RESPONSE is a float32, not an int32: `FrameRate` (the SDK 4.3 SampleClient
 * reads its reply as `*((float*)pResult)`, whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 :
 * samples/SampleClient/SampleClient.cpp; `AnalogSamplesPerMocapFrame` and `CurrentMode` it reads as int).
 * Names as sent, compared case-insensitively, up to the first comma.
 */
export const FLOAT_RESPONSE_COMMANDS: readonly string[] = ['framerate'];

/**
 * NAT_RESPONSE, decoded by the request it answers (the client knows what it asked): a 4-byte payload is a
 * float32 for the commands in {@link FLOAT_RESPONSE_COMMANDS} (120.0 reads 1123024896 as an int32) and an
 * int32 otherwise or when `request` is not given (PY41); any other payload is a NUL-terminated text.
 */
export function decodeResponse(bytes: Uint8Array, request?: string): NatNetResponse {
  const r = expectId(bytes, [NatNetMessage.Response], 'NAT_RESPONSE');
  if (r.remaining === 4) {
    const command = (request ?? '').split(',', 1)[0].trim().toLowerCase();
    if (FLOAT_RESPONSE_COMMANDS.includes(command)) return { kind: 'float', value: r.f32('response.value') };
    return { kind: 'int', value: r.i32('response.value') };
  }
  return { kind: 'text', text: textPayload(r) };
}

/** NAT_REQUEST (client -> server) or NAT_MESSAGESTRING: the text, up to the first NUL or the payload end. */
export function decodeRequestText(bytes: Uint8Array): string {
  const r = expectId(bytes, [NatNetMessage.Request, NatNetMessage.MessageString], 'NAT_REQUEST');
  return textPayload(r);
}

function textPayload(r: ByteReader): string {
  return r.fixedString(r.remaining, 'text');
}

/** NAT_ECHOREQUEST: `uint64` client stamp (python_natnet `EchoRequestMessage`). */
export function decodeEchoRequest(bytes: Uint8Array): EchoRequest {
  const r = expectId(bytes, [NatNetMessage.EchoRequest], 'NAT_ECHOREQUEST');
  return { stamp: r.u64('echo.stamp') };
}

/** NAT_ECHORESPONSE: `uint64` echoed request stamp, `uint64` server receive stamp. */
export function decodeEchoResponse(bytes: Uint8Array): EchoResponse {
  const r = expectId(bytes, [NatNetMessage.EchoResponse], 'NAT_ECHORESPONSE');
  return { requestStamp: r.u64('echo.requestStamp'), serverStamp: r.u64('echo.serverStamp') };
}

// ---------------------------------------------------------------------------------------------
// NAT_MODELDEF

/**
 * One rigid-body (or skeleton bone) description. `markers`: whether the marker block follows the offsets
 * (rigid bodies from NatNet 3.0; skeleton bones: see {@link decodeModelDef}).
 */
function rigidBodyDescription(
  r: ByteReader,
  v: NatNetVersion,
  f: string,
  markers = atLeast(v, 3, 0),
): RigidBodyDescription {
  const name = atLeast(v, 2, 0) ? r.cstring(`${f}.name`) : '';
  const id = r.i32(`${f}.id`);
  const parentId = r.i32(`${f}.parentId`);
  const offset: [number, number, number] = [r.f32(`${f}.offset`), r.f32(`${f}.offset`), r.f32(`${f}.offset`)];
  const rotationOffset: [number, number, number, number] = [0, 0, 0, 1];
  if (atLeast(v, 4, 2)) {
    for (let k = 0; k < 4; k++) rotationOffset[k] = r.f32(`${f}.rotationOffset`);
  }
  const list: RigidBodyDescription['markers'] = [];
  if (markers) {
    const names = atLeast(v, 4, 0);
    const n = r.count(`${f}.markerCount`, 16 + (names ? 1 : 0));
    const p0 = r.pos;
    r.skip(16 * n, `${f}.markers`);
    const view = r.view;
    for (let i = 0; i < n; i++) {
      const o = p0 + 12 * i;
      list.push({
        position: [view.getFloat32(o, true), view.getFloat32(o + 4, true), view.getFloat32(o + 8, true)],
        activeLabel: view.getInt32(p0 + 12 * n + 4 * i, true),
        name: '',
      });
    }
    if (names) for (let i = 0; i < n; i++) list[i].name = r.cstring(`${f}.markerName`);
  }
  return { type: 'rigidBody', name, id, parentId, offset, rotationOffset, markers: list };
}

function minRigidBodyDescriptionBytes(v: NatNetVersion, markers = atLeast(v, 3, 0)): number {
  return (atLeast(v, 2, 0) ? 1 : 0) + 20 + (atLeast(v, 4, 2) ? 16 : 0) + (markers ? 4 : 0);
}

function markerSetDescription(r: ByteReader, f: string): MarkerSetDescription {
  const name = r.cstring(`${f}.name`);
  const n = r.count(`${f}.markerCount`, 1);
  const markerNames: string[] = [];
  for (let i = 0; i < n; i++) markerNames.push(r.cstring(`${f}.markerName`));
  return { type: 'markerSet', name, markerNames };
}

function skeletonDescription(
  r: ByteReader,
  v: NatNetVersion,
  f: string,
  boneMarkers: boolean,
): SkeletonDescription {
  const name = r.cstring(`${f}.name`);
  const id = r.i32(`${f}.id`);
  const n = r.count(`${f}.boneCount`, minRigidBodyDescriptionBytes(v, boneMarkers));
  const bones: RigidBodyDescription[] = [];
  for (let i = 0; i < n; i++) bones.push(rigidBodyDescription(r, v, `${f}.bone`, boneMarkers));
  return { type: 'skeleton', name, id, bones };
}

function channelNames(r: ByteReader, f: string): void {
  const n = r.count(`${f}.channelCount`, 1);
  for (let i = 0; i < n; i++) r.cstring(`${f}.channelName`);
}

/** Force plate description (NatNet >= 3.0, PY41 `__unpack_force_plate_description`). */
function forcePlateDescription(r: ByteReader, f: string): OtherDescription {
  const id = r.i32(`${f}.id`);
  const name = r.cstring(`${f}.serialNumber`);
  // width, length, origin (3), calibration matrix 12x12, corners 4x3: (2 + 3 + 144 + 12) floats
  r.skip(4 * (2 + 3 + 144 + 12), `${f}.geometry`);
  r.i32(`${f}.plateType`);
  r.i32(`${f}.channelDataType`);
  channelNames(r, f);
  return { type: 'forcePlate', typeId: 3, name, id };
}

/** Device description (NatNet >= 3.0, PY41 `__unpack_device_description`). */
function deviceDescription(r: ByteReader, f: string): OtherDescription {
  const id = r.i32(`${f}.id`);
  const name = r.cstring(`${f}.name`);
  r.cstring(`${f}.serialNumber`);
  r.i32(`${f}.deviceType`);
  r.i32(`${f}.channelDataType`);
  channelNames(r, f);
  return { type: 'device', typeId: 4, name, id };
}

/** Camera description: name, float3 position, float4 orientation (PY41 `__unpack_camera_description`). */
function cameraDescription(r: ByteReader, f: string): OtherDescription {
  const name = r.cstring(`${f}.name`);
  r.skip(28, `${f}.pose`);
  return { type: 'camera', typeId: 5, name, id: -1 };
}

/** Asset description (NatNet >= 4.1, PY41 `__unpack_asset_description`). */
function assetDescription(r: ByteReader, v: NatNetVersion, f: string): OtherDescription {
  const name = r.cstring(`${f}.name`);
  r.i32(`${f}.assetType`);
  const id = r.i32(`${f}.id`);
  const nRb = r.count(`${f}.rigidBodyCount`, minRigidBodyDescriptionBytes(v));
  for (let i = 0; i < nRb; i++) rigidBodyDescription(r, v, `${f}.rigidBody`);
  const nM = r.count(`${f}.markerCount`, 1 + 26);
  for (let i = 0; i < nM; i++) {
    r.cstring(`${f}.marker.name`);
    r.skip(26, `${f}.marker`); // id, position, size, params
  }
  return { type: 'asset', typeId: 6, name, id };
}

/**
 * NAT_MODELDEF (data descriptions) for NatNet 2.x to 4.3. `int32 count`, then per description `int32 type`
 * (0 marker set, 1 rigid body, 2 skeleton, 3 force plate, 4 device, 5 camera, 6 asset) and, from 4.1,
 * `int32 byteSize` of the description, which lets unknown types be skipped; before 4.1 an unknown type stops
 * decoding (the rest is counted in `undecoded`).
 *
 * Skeleton bones in NatNet 3.x: the SDK 4.x clients read the rigid-body marker block (count, positions,
 * active labels) after every bone's offset for any version >= 3.0 (whoenig/NatNetSDKCrossplatform @
 * 4218ed0668d8 : samples/PacketClient/PacketClient.cpp `UnpackDescription`), while the SDK 3.0-3.1 sample
 * clients read bones without it (the same repository @ 56f99e2e4255 : src/PacketClientHelper.cpp, "adopted
 * from PacketClient.cpp (NatNetSDK 3.1)": name, id, parent id, offset only; rigid bodies of type 1 do carry
 * the block). No public capture settles which one Motive 2.x sends, so for 3.x both are tried: the 4.x
 * layout first, then the 3.0-3.1 one, and the first that consumes the payload exactly (to its last byte,
 * when no unknown type stopped decoding) with sane bones (non-empty printable names, ids 0..65535, parent
 * ids -1..65535, finite offsets within 1 km) is taken; `boneMarkers` says which. 4.x has the block.
 * @throws NatNetDecodeError on truncation, bad counts or a description larger than its declared size
 * (for 3.x skeletons: the 4.x layout's error, noting that the 3.0-3.1 layout failed too).
 */
export function decodeModelDef(bytes: Uint8Array, version: NatNetVersion): ModelDefinitions {
  if (version.major !== 3) return modelDefWith(bytes, version, atLeast(version, 3, 0)).defs;
  let first: NatNetDecodeError | undefined;
  let fallback: ModelDefinitions | undefined;
  try {
    const a = modelDefWith(bytes, version, true);
    if (a.defs.skeletons.length === 0) return a.defs;
    const why = layoutProblem(a.defs, a.left);
    if (!why) return { ...a.defs, boneMarkers: true };
    fallback = { ...a.defs, boneMarkers: true };
    first = new NatNetDecodeError('modelDef', 4, why);
  } catch (e) {
    if (!(e instanceof NatNetDecodeError)) throw e;
    first = e;
  }
  try {
    const b = modelDefWith(bytes, version, false);
    if (b.defs.skeletons.length > 0 && !layoutProblem(b.defs, b.left))
      return { ...b.defs, boneMarkers: false };
  } catch (e) {
    if (!(e instanceof NatNetDecodeError)) throw e;
  }
  // neither layout is clean: what the 4.x layout read, if it read at all (as before), else its error
  if (fallback) return fallback;
  throw new NatNetDecodeError(
    first.field,
    first.offset,
    `${first.detail} (read with per-bone marker blocks, NatNet SDK 4.x; without them, as the SDK 3.0-3.1 samples read, it does not decode either)`,
  );
}

/** Why a decoded MODELDEF is not a clean read of its skeletons (or '' when it is). */
function layoutProblem(m: ModelDefinitions, left: number): string {
  if (m.undecoded === 0 && left !== 0) return `${left} bytes left after the last description`;
  for (const s of m.skeletons) {
    for (const b of s.bones) {
      if (!saneName(b.name)) return `skeleton '${s.name}': bone name ${JSON.stringify(b.name)}`;
      if (!(b.id >= 0 && b.id <= 0xffff)) return `skeleton '${s.name}': bone '${b.name}' id ${b.id}`;
      if (!(b.parentId >= -1 && b.parentId <= 0xffff))
        return `skeleton '${s.name}': bone '${b.name}' parent id ${b.parentId}`;
      for (const x of b.offset)
        if (!(Math.abs(x) <= 1000)) return `skeleton '${s.name}': bone '${b.name}' offset ${x}`;
    }
  }
  return '';
}

function saneName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0xfffd) return false;
  }
  return true;
}

function modelDefWith(
  bytes: Uint8Array,
  version: NatNetVersion,
  boneMarkers: boolean,
): { defs: ModelDefinitions; left: number } {
  const r = expectId(bytes, [NatNetMessage.ModelDef], 'NAT_MODELDEF');
  const sized = atLeast(version, 4, 1);
  const count = r.count('modelDef.count', sized ? 8 : 4);
  const out: ModelDefinitions = {
    descriptions: [],
    markerSets: [],
    rigidBodies: [],
    skeletons: [],
    undecoded: 0,
  };
  for (let i = 0; i < count; i++) {
    const typeAt = r.pos;
    const type = r.i32('modelDef.type');
    let end = -1;
    if (sized) {
      const sizeAt = r.pos;
      const size = r.i32('modelDef.byteSize');
      if (size < 0 || size > r.remaining) {
        throw new NatNetDecodeError(
          'modelDef.byteSize',
          sizeAt,
          `size ${size} with ${r.remaining} bytes left`,
        );
      }
      end = r.pos + size;
    }
    const f = `modelDef[${i}]`;
    let d: DataDescription | undefined;
    const preForcePlate = !atLeast(version, 3, 0);
    switch (type) {
      case 0:
        d = markerSetDescription(r, `${f}.markerSet`);
        out.markerSets.push(d);
        break;
      case 1:
        d = rigidBodyDescription(r, version, `${f}.rigidBody`);
        out.rigidBodies.push(d);
        break;
      case 2:
        d = skeletonDescription(r, version, `${f}.skeleton`, boneMarkers);
        out.skeletons.push(d);
        break;
      case 3:
        if (!preForcePlate) d = forcePlateDescription(r, `${f}.forcePlate`);
        break;
      case 4:
        if (!preForcePlate) d = deviceDescription(r, `${f}.device`);
        break;
      case 5:
        d = cameraDescription(r, `${f}.camera`);
        break;
      case 6:
        if (sized) d = assetDescription(r, version, `${f}.asset`);
        break;
    }
    if (end >= 0) {
      if (r.pos > end) {
        throw new NatNetDecodeError('modelDef.byteSize', typeAt + 4, `description ${i} overruns its size`);
      }
      if (!d) d = { type: 'unknown', typeId: type, name: '', id: -1 };
      r.pos = end;
    } else if (!d) {
      out.undecoded = count - i;
      break;
    }
    out.descriptions.push(d);
  }
  return { defs: out, left: r.remaining };
}

// ---------------------------------------------------------------------------------------------
// NAT_FRAMEOFDATA

/** Read the NatNet >= 4.1 block byte size after a count, checked against the bytes left. */
function blockSize(r: ByteReader, sized: boolean, field: string): void {
  if (!sized) return;
  const at = r.pos;
  const size = r.i32(field);
  if (size < 0 || size > r.remaining) {
    throw new NatNetDecodeError(field, at, `block size ${size} with ${r.remaining} bytes left`);
  }
}

function rigidBodyRecordBytes(v: NatNetVersion): number {
  return 32 + (atLeast(v, 3, 0) ? 0 : 4) + (atLeast(v, 2, 0) ? 4 : 0) + (atLeast(v, 2, 6) ? 2 : 0);
}

/** Field names per record kind, built once (template strings in the loop would allocate per frame). */
const RB_FIELDS = {
  record: 'frame.rigidBody',
  markerCount: 'frame.rigidBody.markerCount',
  markers: 'frame.rigidBody.markers',
  meanError: 'frame.rigidBody.meanError',
  params: 'frame.rigidBody.params',
};
const BONE_FIELDS = {
  record: 'frame.skeleton.bone',
  markerCount: 'frame.skeleton.bone.markerCount',
  markers: 'frame.skeleton.bone.markers',
  meanError: 'frame.skeleton.bone.meanError',
  params: 'frame.skeleton.bone.params',
};

/** One rigid-body record (frame data) into ids/pose/error/params at index `i`. */
function rigidBodyRecord(
  r: ByteReader,
  v: NatNetVersion,
  ids: Int32Array,
  pose: Float32Array,
  err: Float32Array,
  par: Int16Array,
  i: number,
  f: typeof RB_FIELDS,
): void {
  r.need(32, f.record);
  const view = r.view;
  const p = r.pos;
  ids[i] = view.getInt32(p, true);
  const o = POSE_STRIDE * i;
  for (let k = 0; k < 7; k++) pose[o + k] = view.getFloat32(p + 4 + 4 * k, true);
  r.pos = p + 32;
  if (!atLeast(v, 3, 0)) {
    // NatNet < 3.0: the rigid body's markers travel with each frame.
    const two = atLeast(v, 2, 0);
    const n = r.count(f.markerCount, two ? 20 : 12);
    r.skip(n * (two ? 20 : 12), f.markers);
  }
  // read through the view, not r.f32(): a double returned from a call that is not inlined is boxed
  if (atLeast(v, 2, 0)) {
    r.need(4, f.meanError);
    err[i] = view.getFloat32(r.pos, true);
    r.pos += 4;
  } else err[i] = 0;
  par[i] = atLeast(v, 2, 6) ? r.i16(f.params) : 1;
}

const FORCE_PLATE_FIELDS = {
  count: 'frame.forcePlateCount',
  size: 'frame.forcePlates.byteSize',
  id: 'frame.forcePlate.id',
  channelCount: 'frame.forcePlate.channelCount',
  frameCount: 'frame.forcePlate.frameCount',
  frames: 'frame.forcePlate.frames',
};
const DEVICE_FIELDS = {
  count: 'frame.deviceCount',
  size: 'frame.devices.byteSize',
  id: 'frame.device.id',
  channelCount: 'frame.device.channelCount',
  frameCount: 'frame.device.frameCount',
  frames: 'frame.device.frames',
};

/** Force plate or device block: count, [4.1 size], per item id, channels, per channel frames of floats. */
function skipChannelBlock(r: ByteReader, sized: boolean, f: typeof DEVICE_FIELDS): number {
  const n = r.count(f.count, 8);
  blockSize(r, sized, f.size);
  for (let i = 0; i < n; i++) {
    r.i32(f.id);
    const nc = r.count(f.channelCount, 4);
    for (let c = 0; c < nc; c++) {
      const nf = r.count(f.frameCount, 4);
      r.skip(4 * nf, f.frames);
    }
  }
  return n;
}

const sharedReader = new ByteReader(new Uint8Array(0));

/**
 * Decode a NAT_FRAMEOFDATA packet (header included) of NatNet 2.5 .. 4.3 into `out` (reused: no allocation
 * once its capacity fits). Marker sets, legacy markers, assets, force plates and devices are checked and
 * skipped (counts kept); rigid bodies, skeleton bones and labeled markers are stored.
 * On error `out` holds partial data and must not be used.
 * @throws NatNetDecodeError naming the field and byte offset.
 */
export function decodeFrame(
  bytes: Uint8Array,
  version: NatNetVersion,
  out: NatNetFrame = new NatNetFrame(),
): NatNetFrame {
  if (bytes.length < 4) throw new NatNetDecodeError('header', 0, `packet of ${bytes.length} bytes, need 4`);
  const messageId = bytes[0] | (bytes[1] << 8);
  const payloadBytes = bytes[2] | (bytes[3] << 8);
  if (messageId !== NatNetMessage.FrameOfData) {
    throw new NatNetDecodeError('header.messageId', 0, `message id ${messageId} is not NAT_FRAMEOFDATA`);
  }
  if (4 + payloadBytes > bytes.length) {
    throw new NatNetDecodeError(
      'header.payloadBytes',
      2,
      `declares ${payloadBytes} bytes, ${bytes.length - 4} present`,
    );
  }
  const r = sharedReader;
  r.reset(bytes, 4, 4 + payloadBytes);
  const v = version;
  const sized = atLeast(v, 4, 1);
  out.frameNumber = r.i32('frame.frameNumber');

  // marker sets
  let n = r.count('frame.markerSetCount', 5);
  blockSize(r, sized, 'frame.markerSets.byteSize');
  out.markerSetCount = n;
  for (let i = 0; i < n; i++) {
    r.cstring('frame.markerSet.name');
    const m = r.count('frame.markerSet.markerCount', 12);
    r.skip(12 * m, 'frame.markerSet.markers');
  }
  // legacy "other" markers
  n = r.count('frame.otherMarkerCount', 12);
  blockSize(r, sized, 'frame.otherMarkers.byteSize');
  r.skip(12 * n, 'frame.otherMarkers');
  out.otherMarkerCount = n;

  // rigid bodies
  const rbBytes = rigidBodyRecordBytes(v);
  n = r.count('frame.rigidBodyCount', rbBytes);
  blockSize(r, sized, 'frame.rigidBodies.byteSize');
  out.setRigidBodyCount(n);
  for (let i = 0; i < n; i++) {
    rigidBodyRecord(
      r,
      v,
      out.rigidBodyIds,
      out.rigidBodyPose,
      out.rigidBodyError,
      out.rigidBodyParams,
      i,
      RB_FIELDS,
    );
  }

  // skeletons
  out.skeletonCount = 0;
  out.boneCount = 0;
  if (atLeast(v, 2, 1)) {
    n = r.count('frame.skeletonCount', 8);
    blockSize(r, sized, 'frame.skeletons.byteSize');
    out.setSkeletonCount(n);
    out.setBoneCount(0);
    for (let s = 0; s < n; s++) {
      out.skeletonIds[s] = r.i32('frame.skeleton.id');
      const nb = r.count('frame.skeleton.boneCount', rbBytes);
      const start = out.boneCount;
      out.skeletonBoneStart[s] = start;
      out.skeletonBoneCount[s] = nb;
      out.setBoneCount(start + nb);
      for (let b = 0; b < nb; b++) {
        rigidBodyRecord(
          r,
          v,
          out.boneIds,
          out.bonePose,
          out.boneError,
          out.boneParams,
          start + b,
          BONE_FIELDS,
        );
      }
    }
  }

  // assets (4.1+)
  out.assetCount = 0;
  if (sized) {
    n = r.count('frame.assetCount', 12);
    blockSize(r, sized, 'frame.assets.byteSize');
    out.assetCount = n;
    for (let a = 0; a < n; a++) {
      r.i32('frame.asset.id');
      const nrb = r.count('frame.asset.rigidBodyCount', 38);
      r.skip(38 * nrb, 'frame.asset.rigidBodies');
      const nm = r.count('frame.asset.markerCount', 26);
      r.skip(26 * nm, 'frame.asset.markers');
    }
  }

  // labeled markers (2.3+)
  out.labeledMarkerCount = 0;
  if (atLeast(v, 2, 3)) {
    const withParams = atLeast(v, 2, 6);
    const withResidual = atLeast(v, 3, 0);
    const lmBytes = 20 + (withParams ? 2 : 0) + (withResidual ? 4 : 0);
    n = r.count('frame.labeledMarkerCount', lmBytes);
    blockSize(r, sized, 'frame.labeledMarkers.byteSize');
    out.setLabeledMarkerCount(n);
    const view = r.view;
    let p = r.pos;
    for (let i = 0; i < n; i++) {
      out.labeledMarkerIds[i] = view.getInt32(p, true);
      out.labeledMarkerPos[3 * i] = view.getFloat32(p + 4, true);
      out.labeledMarkerPos[3 * i + 1] = view.getFloat32(p + 8, true);
      out.labeledMarkerPos[3 * i + 2] = view.getFloat32(p + 12, true);
      out.labeledMarkerSize[i] = view.getFloat32(p + 16, true);
      out.labeledMarkerParams[i] = withParams ? view.getInt16(p + 20, true) : 0;
      out.labeledMarkerResidual[i] = withResidual ? view.getFloat32(p + 22, true) : 0;
      p += lmBytes;
    }
    r.pos = p;
  }

  // force plates (2.9+) and devices (2.11+)
  out.forcePlateCount = atLeast(v, 2, 9) ? skipChannelBlock(r, sized, FORCE_PLATE_FIELDS) : 0;
  out.deviceCount = atLeast(v, 2, 11) ? skipChannelBlock(r, sized, DEVICE_FIELDS) : 0;

  // suffix
  // Doubles go through the view into the frame's Float64Array (see NatNetFrame.scalars): no allocation.
  const view = r.view;
  const d = out.scalars;
  if (atLeast(v, 3, 0)) d[S.SoftwareLatency] = Number.NaN;
  else {
    r.need(4, 'frame.softwareLatency');
    d[S.SoftwareLatency] = view.getFloat32(r.pos, true);
    r.pos += 4;
  }
  r.need(8, 'frame.timecode');
  d[S.Timecode] = view.getUint32(r.pos, true);
  d[S.TimecodeSubframe] = view.getUint32(r.pos + 4, true);
  r.pos += 8;
  if (atLeast(v, 2, 7)) {
    r.need(8, 'frame.timestamp');
    d[S.Timestamp] = view.getFloat64(r.pos, true);
    r.pos += 8;
  } else if (atLeast(v, 2, 6)) {
    r.need(4, 'frame.timestamp');
    d[S.Timestamp] = view.getFloat32(r.pos, true);
    r.pos += 4;
  } else d[S.Timestamp] = Number.NaN;
  if (atLeast(v, 3, 0)) {
    r.need(24, 'frame.stamps');
    const p = r.pos;
    d[S.StampCameraMidExposure] = view.getUint32(p + 4, true) * 4294967296 + view.getUint32(p, true);
    d[S.StampDataReceived] = view.getUint32(p + 12, true) * 4294967296 + view.getUint32(p + 8, true);
    d[S.StampTransmit] = view.getUint32(p + 20, true) * 4294967296 + view.getUint32(p + 16, true);
    r.pos = p + 24;
  } else {
    d[S.StampCameraMidExposure] = 0;
    d[S.StampDataReceived] = 0;
    d[S.StampTransmit] = 0;
  }
  // 4.1+: precision timestamp (SDK43). 4.0: PY41 reads it for any major >= 4, SDK43 does not; read it when
  // the bytes left are exactly what it plus params and the end tag take (8 + 2 + 4).
  out.hasPrecisionTimestamp = atLeast(v, 4, 1) || (v.major === 4 && v.minor === 0 && r.remaining === 14);
  if (out.hasPrecisionTimestamp) {
    r.need(8, 'frame.precisionTimestamp');
    d[S.PrecisionSeconds] = view.getUint32(r.pos, true);
    d[S.PrecisionFraction] = view.getUint32(r.pos + 4, true);
    r.pos += 8;
  } else {
    d[S.PrecisionSeconds] = 0;
    d[S.PrecisionFraction] = 0;
  }
  out.params = atLeast(v, 2, 6) ? r.i16('frame.params') : 0;
  // end-of-data tag (int32 0); tolerated when absent
  if (r.remaining >= 4) {
    const at = r.pos;
    const eod = r.i32('frame.endOfData');
    if (eod !== 0) throw new NatNetDecodeError('frame.endOfData', at, `end-of-data tag ${eod}, expected 0`);
  }
  return out;
}

/** A decoded packet of any kind (see {@link decodePacket}). */
export type NatNetPacket =
  | { messageId: 0 | 14; kind: 'connect'; connect: ConnectInfo }
  | { messageId: 1; kind: 'serverInfo'; serverInfo: ServerInfo }
  | { messageId: 2 | 8; kind: 'text'; text: string }
  | { messageId: 3; kind: 'response'; response: NatNetResponse }
  | { messageId: 5; kind: 'modelDef'; modelDef: ModelDefinitions }
  | { messageId: 7; kind: 'frame'; frame: NatNetFrame }
  | { messageId: 12; kind: 'echoRequest'; echo: EchoRequest }
  | { messageId: 13; kind: 'echoResponse'; echo: EchoResponse }
  | { messageId: number; kind: 'empty' };

/**
 * Decode any NatNet packet by its message id. Frames decode into `frame` when given.
 * Ids with no payload (requests, keep-alive, disconnect, unrecognized) give `kind: 'empty'`.
 * @throws NatNetDecodeError on malformed input or an unknown message id (field 'header.messageId').
 */
export function decodePacket(bytes: Uint8Array, version: NatNetVersion, frame?: NatNetFrame): NatNetPacket {
  const h = readHeader(bytes);
  switch (h.messageId) {
    case 0:
    case 14:
      return { messageId: h.messageId, kind: 'connect', connect: decodeConnect(bytes) };
    case 1:
      return { messageId: 1, kind: 'serverInfo', serverInfo: decodeServerInfo(bytes) };
    case 2:
    case 8:
      return { messageId: h.messageId, kind: 'text', text: decodeRequestText(bytes) };
    case 3:
      return { messageId: 3, kind: 'response', response: decodeResponse(bytes) };
    case 5:
      return { messageId: 5, kind: 'modelDef', modelDef: decodeModelDef(bytes, version) };
    case 7:
      return { messageId: 7, kind: 'frame', frame: decodeFrame(bytes, version, frame) };
    case 12:
      return { messageId: 12, kind: 'echoRequest', echo: decodeEchoRequest(bytes) };
    case 13:
      return { messageId: 13, kind: 'echoResponse', echo: decodeEchoResponse(bytes) };
    case 4:
    case 6:
    case 9:
    case 10:
    case 11:
    case 100:
    case 256:
      return { messageId: h.messageId, kind: 'empty' };
    default:
      throw new NatNetDecodeError('header.messageId', 0, `unknown message id ${h.messageId}`);
  }
}
