/**
 * Foot-slide cleanup (issue 11; heel and toe pins, issue 20): contact segments from per-foot (and
 * per heel / toe) contact probabilities, anchors, the pinned point per frame, a toe pivot,
 * damped-least-squares leg IK with smoothstep blending, optional capped root correction, and the
 * metrics before/after. Engine-free (no Node or DOM API). Contact probabilities come from src/contact.
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
  FootPinner,
  type JointRotationStats,
  type LimitRange,
  type PinLeg,
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
export { ikStats } from './ikStats';
export {
  DEFAULT_THRESHOLDS,
  type FootMetrics,
  footMetrics,
  kneeAngleDeg,
  type MetricThresholds,
} from './metrics';
export {
  type FootPinPlan,
  PIN_HEEL,
  PIN_NONE,
  PIN_TOE,
  type PinPoint,
  type PinRun,
  type PointSegment,
  planFootPins,
  runOfFrames,
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
  CleanupError,
  type FloorEstimate,
  type FootName,
  type FrameRange,
  REFERENCE_LEG_LENGTH,
} from './types';
