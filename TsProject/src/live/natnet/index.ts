/**
 * NatNet (OptiTrack Motive streaming) codec: engine-free, bytes in and out (Uint8Array/DataView only), so
 * the same code runs in Node, the browser and Unity (PuerTS). Sockets live in src/live/node.
 * Protocol notes and sources: /work/shared/NATNET.md (cited per layout in each file).
 */
export {
  decodeConnect,
  decodeEchoRequest,
  decodeEchoResponse,
  decodeFrame,
  decodeModelDef,
  decodePacket,
  decodeRequestText,
  decodeResponse,
  decodeServerInfo,
  FLOAT_RESPONSE_COMMANDS,
  type NatNetPacket,
  type PacketHeader,
  readHeader,
} from './decode';
export {
  encodeConnect,
  encodeEchoRequest,
  encodeEchoResponse,
  encodeEmpty,
  encodeFrame,
  encodeKeepAlive,
  encodeModelDef,
  encodeRequest,
  encodeRequestModelDef,
  encodeResponse,
  encodeServerInfo,
  NatNetEncodeError,
  version4Of,
} from './encode';
export { boneIdOf, FrameScalar, NatNetFrame, POSE_STRIDE, skeletonIdOf } from './frame';
export {
  humanToMotiveBone,
  MOTIVE_BODY_BONES,
  MOTIVE_BONES,
  motiveBoneToHuman,
  motiveParent,
  stripMotivePrefix,
} from './names';
export { ByteReader, ByteWriter, NatNetDecodeError } from './reader';
export {
  frameSkeletonToPose,
  NatNetSkeletonError,
  type NatNetSkeletonMapping,
  skeletonFromDescription,
} from './skeleton';
export * from './types';
