/**
 * Foot-slide cleanup (issue 11; heel and toe pins, issue 20): contact segments from per-foot (and
 * per heel / toe) contact probabilities, anchors, the pinned point per frame, a toe pivot,
 * damped-least-squares leg IK with smoothstep blending in time and a bound on each joint's step (issue
 * 20), guards against travelling contacts, optional capped root correction, and the metrics
 * before/after. Engine-free (no Node or DOM API). Contact probabilities come from src/contact.
 */
export { contactHeight, type SegmentAnchor, segmentAnchor } from './anchors';
export { type FootChannels, footChannels, type PointChannel } from './channels';
export {
  type CleanupInput,
  type CleanupOptions,
  type CleanupResult,
  cleanupClip,
  doubleSupportWeights,
  type FootCleanup,
  type FootIkStats,
  type JointRotationStats,
  type LimitRange,
  type TransitionStats,
} from './cleanup';
export { checkFloor, floorBasis, floorHeight, horizontalDistance, projectOnFloor } from './floor';
export {
  describeGround,
  type FootGround,
  footGround,
  type GroundLevel,
  type GroundModel,
  localContactHeight,
  settleOnGround,
} from './ground';
export { jointShiftRanges, legJointShift, rangesOf, splitTravellingSegments } from './guards';
export { hingeAxisLocal, ikStats, limitRanges } from './legStats';
export {
  DEFAULT_THRESHOLDS,
  type FootMetrics,
  footMetrics,
  kneeAngleDeg,
  type MetricThresholds,
} from './metrics';
export { FootPinner, type PinLeg, SEG_STRIDE } from './pinner';
export {
  FLAT_YAW_CAP,
  type FootPinPlan,
  PIN_HEEL,
  PIN_NONE,
  PIN_TOE,
  type PinPoint,
  type PinRun,
  type PointSegment,
  planFootPins,
  runOfFrames,
  turnAbout,
  yawToward,
} from './pins';
export {
  contactSegments,
  framesAtRate,
  type SegmentOptions,
  type SegmentResult,
  segmentWeights,
  smoothstep,
} from './segments';
export { ToePivot, type ToePivotOptions, type ToePivotReport } from './toePivot';
export {
  toePointAt,
  toePointTrack,
  VIRTUAL_TOE_DROP,
  VIRTUAL_TOE_LENGTH,
  virtualToeOffsets,
  virtualToeTracks,
} from './toePoint';
export { type LegBones, type LegTrack, legBones, legTracks, restLegLength } from './tracks';
export {
  DEFAULT_BLEND_SECONDS,
  DEFAULT_MAX_CORRECTION_SPEED,
  DEFAULT_MAX_JOINT_STEP,
  easeWeights,
  legStepExcess,
  limitJointSteps,
  pinCorrection,
  planTransitions,
  rampFramesFor,
  type StepLimitLeg,
  type StepLimitResult,
  type TransitionInput,
  type TransitionPlan,
} from './transitions';
export {
  CleanupError,
  type FloorEstimate,
  type FootName,
  type FrameRange,
  REFERENCE_LEG_LENGTH,
  type ReviewRange,
  type ReviewReason,
} from './types';
