/**
 * Remote control of live characters: the protocol (zod schemas, the declared parameter table, the
 * dispatcher), transport-free and engine-free. The WebSocket server is src/live/node/remoteServer.ts.
 */
export type { LiveCharacters, LiveFrame } from './characters';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  errorReply,
  RemoteControl,
  type RemoteControlOptions,
  type RemoteResult,
  utf8Length,
} from './control';
export {
  allowedValues,
  type BooleanParameter,
  checkParameterValue,
  describeParameter,
  type EnumParameter,
  findAlias,
  findParameter,
  IK_MODES,
  type NumberParameter,
  PARAMETER_ALIASES,
  PARAMETERS,
  type Parameter,
  type ParameterAlias,
  type ParameterType,
  type ParameterValue,
  setParameter,
} from './params';
export {
  ACTIONS,
  type ActionName,
  CALIBRATION_ACTIONS,
  type CalibrationAction,
  type CalibrationRequest,
  type GetCharacterDataRequest,
  jsonPath,
  type ProtocolError,
  REQUEST_SCHEMAS,
  type RefreshRequest,
  type SetHandPosePresetRequest,
  type UpdateValueRealtimeRequest,
} from './schema';
