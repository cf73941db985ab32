/**
 * Two-bone IK for arms and legs (ours, engine-free, allocation-free per solve).
 *
 * - {@link ArmIK}: law-of-cosines elbow, bend goal / FK elbow / calibrated T-pose bend direction.
 * - {@link LegIK}: knee carried over from the source leg (no law of cosines, no straight-leg flip).
 * - {@link LimbGoal}: per-limb target position and rotation, bend goal and weights.
 * - {@link LegDLS}: damped-least-squares leg chain (hip ball, knee hinge) for foot pinning (dls.ts).
 *
 * Pose representation, writing rules and weights: see twoBone.ts.
 */
export { ArmIK, type ArmIKOptions, DEFAULT_ARM_BEND } from './armIK';
export { type DlsReport, LegDLS, type LegDLSOptions } from './dls';
export { LegIK, type LegIKOptions, type LegSource, LegSourceJoints } from './legIK';
export {
  humanoidLimb,
  IKError,
  type Limb,
  LimbGoal,
  type LimbName,
  type SolveReport,
  type TwoBoneIKState,
} from './twoBone';
