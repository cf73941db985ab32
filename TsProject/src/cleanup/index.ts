/**
 * Foot-slide cleanup (issue 11): contact segments from per-foot contact probabilities, anchors,
 * damped-least-squares leg IK with smoothstep blending, optional capped root correction, and the
 * metrics before/after. Engine-free (no Node or DOM API). Contact probabilities come from src/contact.
 */
export { contactHeight, type SegmentAnchor, segmentAnchor } from './anchors';
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
export {
  DEFAULT_THRESHOLDS,
  type FootMetrics,
  footMetrics,
  kneeAngleDeg,
  type MetricThresholds,
} from './metrics';
export {
  contactSegments,
  framesAtRate,
  type SegmentOptions,
  type SegmentResult,
  segmentWeights,
  smoothstep,
} from './segments';
export { type LegBones, type LegTrack, legBones, legTracks, restLegLength } from './tracks';
export {
  CleanupError,
  type FloorEstimate,
  type FootName,
  type FrameRange,
  REFERENCE_LEG_LENGTH,
} from './types';
