/**
 * NatNet message ids, versions and decoded message shapes.
 *
 * Sources (see /work/shared/NATNET.md): message ids from whoenig/NatNetSDKCrossplatform @ 4218ed0668d8 :
 * include/NatNetTypes.h (NatNet 4.3) and mje-nz/python_natnet @ dcb6fd0a2b7c : src/natnet/protocol/common.py
 * (unrecognized request seen as 0x100 on the wire). Coordinates: Motive streams metres, Y up, right-handed,
 * quaternions `[qx, qy, qz, qw]` (NATNET.md §3, §5.3), i.e. the same axes and units as our internal frame.
 */

/** NatNet message ids (`uint16` at byte 0 of every packet). */
export const NatNetMessage = {
  Connect: 0,
  ServerInfo: 1,
  Request: 2,
  Response: 3,
  RequestModelDef: 4,
  ModelDef: 5,
  RequestFrameOfData: 6,
  FrameOfData: 7,
  MessageString: 8,
  Disconnect: 9,
  KeepAlive: 10,
  DisconnectByTimeout: 11,
  EchoRequest: 12,
  EchoResponse: 13,
  Discovery: 14,
  UnrecognizedRequest: 100,
  /** The unrecognized-request id as some servers send it (0x100; python_natnet common.py). */
  UnrecognizedRequestAlt: 256,
} as const;

/** Largest NatNet packet (header + payload) in bytes (SDK 4.3 `MAX_PACKETSIZE` = 65503, NatNetTypes.h). */
export const NATNET_MAX_PACKET = 65503;
/** Default ports and multicast group (NatNetTypes.h `NATNET_DEFAULT_PORT_COMMAND` etc.). */
export const NATNET_DEFAULT_COMMAND_PORT = 1510;
export const NATNET_DEFAULT_DATA_PORT = 1511;
export const NATNET_DEFAULT_MULTICAST = '239.255.42.99';

/** A NatNet bitstream version. `major === 0` is read as "newest" (4.3), as the SDK samples do. */
export interface NatNetVersion {
  major: number;
  minor: number;
}

/** The versions the encoders write (and the replay server offers). */
export const ENCODABLE_VERSIONS = ['3.0', '3.1', '4.0', '4.1', '4.2'] as const;
export type EncodableVersion = (typeof ENCODABLE_VERSIONS)[number];

/** Parse 'M.m' (or 'M.m.b.r') into a version. @throws Error on anything else. */
export function parseVersion(s: string): NatNetVersion {
  const m = /^(\d{1,3})\.(\d{1,3})(?:\.\d{1,3}){0,2}$/.exec(s.trim());
  if (!m) throw new Error(`NatNet version '${s}': expected M.m`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/** True when `v` is at least `major.minor` (major 0 counts as newest). */
export function atLeast(v: NatNetVersion, major: number, minor: number): boolean {
  if (v.major === 0) return true;
  return v.major > major || (v.major === major && v.minor >= minor);
}

/** The 4-byte version fields of the sender block, e.g. `[3, 0, 0, 0]`. */
export type Version4 = [number, number, number, number];

/** NAT_SERVERINFO (and the sender block). Fields after `natNetVersion` exist from NatNet 3.0. */
export interface ServerInfo {
  appName: string;
  appVersion: Version4;
  natNetVersion: Version4;
  /** Ticks per second of the 3.x stamps (`uint64`); undefined for the 2.x 264-byte form. */
  highResClockFrequency?: number;
  dataPort?: number;
  isMulticast?: boolean;
  /** Dotted quad, e.g. '239.255.42.99'. */
  multicastAddress?: string;
}

/** NAT_CONNECT / NAT_DISCOVERY payload. The options exist in SDK 4.x connects (payload >= 269 bytes). */
export interface ConnectInfo {
  appName: string;
  appVersion: Version4;
  natNetVersion: Version4;
  subscribedDataOnly?: boolean;
  /** Requested bitstream version, when present and non-zero. */
  requestedVersion?: Version4;
}

/**
 * NAT_RESPONSE: a 4-byte result (an int32, or a float32 for the requests that answer one, such as
 * `FrameRate`), or a NUL-terminated text.
 */
export type NatNetResponse =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'text'; text: string };

/** A marker set description (type 0). */
export interface MarkerSetDescription {
  type: 'markerSet';
  name: string;
  markerNames: string[];
}

/** A rigid body description (type 1), also used for skeleton bones. Offsets in metres, parent frame. */
export interface RigidBodyDescription {
  type: 'rigidBody';
  name: string;
  id: number;
  parentId: number;
  offset: [number, number, number];
  /** NatNet >= 4.2: rotation relative to the parent `[x, y, z, w]`; identity before. */
  rotationOffset: [number, number, number, number];
  /** NatNet >= 3.0: marker offsets (metres), active labels and (>= 4.0) names. */
  markers: { position: [number, number, number]; activeLabel: number; name: string }[];
}

/** A skeleton bone: a rigid body description whose `id` is the bone index and `parentId` the parent's. */
export type BoneDescription = RigidBodyDescription;

/** A skeleton description (type 2). */
export interface SkeletonDescription {
  type: 'skeleton';
  name: string;
  id: number;
  bones: BoneDescription[];
}

/** Descriptions decoded only far enough to skip them (force plate 3, device 4, camera 5, asset 6, unknown). */
export interface OtherDescription {
  type: 'forcePlate' | 'device' | 'camera' | 'asset' | 'unknown';
  typeId: number;
  name: string;
  id: number;
}

export type DataDescription =
  | MarkerSetDescription
  | RigidBodyDescription
  | SkeletonDescription
  | OtherDescription;

/** NAT_MODELDEF. */
export interface ModelDefinitions {
  descriptions: DataDescription[];
  markerSets: MarkerSetDescription[];
  rigidBodies: RigidBodyDescription[];
  skeletons: SkeletonDescription[];
  /**
   * Number of descriptions not decoded: an unknown type before NatNet 4.1 (no size field) stops decoding,
   * and the remaining ones are counted here.
   */
  undecoded: number;
  /**
   * NatNet 3.x with skeletons: whether the skeleton bone descriptions carried the per-bone marker block
   * (true: the SDK 4.x layout; false: the SDK 3.0-3.1 layout without it). Absent for other versions
   * (4.x always has the block, 2.x never) and when there is no skeleton.
   */
  boneMarkers?: boolean;
}

/** NAT_ECHOREQUEST / NAT_ECHORESPONSE stamps (uint64 as doubles). */
export interface EchoRequest {
  stamp: number;
}
export interface EchoResponse {
  requestStamp: number;
  serverStamp: number;
}
