/**
 * The retargeter's options (hips mode, up axis, scales, reference poses, contact heights), its error
 * type and what a calibration reports ({@link CalibrationInfo}). The method is in src/retarget/retargeter.ts.
 */

import type { ReferencePoseKind } from './referencePose';

/**
 * Hips position: `'scaled'` multiplies the source hips path by the hips-height ratio; `'room'` keeps the
 * source position and adds the leg-length difference.
 */
export type HipsMode = 'scaled' | 'room';
/** Up axis of the source data: 'auto' detects it from the reference base pose (hips -> head). */
export type UpAxis = 'auto' | '+x' | '-x' | '+y' | '-y' | '+z' | '-z';

/**
 * Options of a {@link Retargeter} (docs/retarget.md, `kind retarget` options): hips mode, reference pose, up axis,
 * scales, offsets.
 */
export interface RetargetOptions {
  /** Hips position mode; default 'scaled'. */
  hipsMode?: HipsMode;
  /** Canonical pose both skeletons are calibrated in; default 'T'. */
  referencePose?: ReferencePoseKind;
  /**
   * Where the source reference pose comes from. 'auto' (default): the source rest pose when it looks
   * like a standing humanoid, otherwise the first frame given to `calibrate`, straightened into the
   * canonical pose. `{ frame }`: that frame of the source taken AS IS as the performer's T- or I-pose
   * (live-style calibration); the target is put in its canonical pose facing the same way.
   */
  sourceReference?: 'auto' | 'rest' | 'first-frame' | { asIs: true };
  /** Up axis of the source data; default 'auto'. */
  sourceUp?: UpAxis;
  /**
   * Uniform scale of the target avatar (1 = as authored), applied as a scale on the hips node: it scales
   * the hips height used by both modes and every world position below the hips. The output's local
   * translations stay unscaled (the writer puts the scale on the hips node; see `scaleSubtrees` for BVH).
   */
  avatarScale?: number;
  /** Uniform scale of the head (1 = as authored), applied as a scale on the head node. */
  headScale?: number;
  /**
   * The shoulders' (clavicles') twist about their own axis: 'keep' (default) copies the source's, so a
   * skeleton retargeted onto itself is unchanged; 'drop' keeps only their swing relative to the reference
   * pose, as Unity's Humanoid does (its shoulder has Down-Up and Front-Back muscles and no twist:
   * https://docs.unity3d.com/Manual/MuscleDefinitions.html). Mocap solvers often roll the clavicle tens of
   * degrees about its axis (the Bandai takes by about 90 degrees), which twists the shoulder's skin: with
   * 'drop' the clavicle's direction, every joint position and every other bone's world rotation stay the
   * same (the upper arm's local rotation takes the roll over).
   */
  shoulderTwist?: 'drop' | 'keep';
  /**
   * Height of the source's ankle (humanoid Foot joint) when the foot is on the floor, metres in the
   * up-aligned source world. When given, the hips height is measured from that level instead of y = 0,
   * and the target's own level (its lower ankle in its rest pose, which stands on y = 0) is added
   * back: a planted source foot gives a planted target foot whatever the rigs' ankle heights. `retargetClip` estimates it from the clip with `groundContact: true`. Default 0 (floors at
   * y = 0, joints at the floor: pure scaling of the hips path).
   */
  sourceContactHeight?: number;
  /**
   * Head rotation offset, degrees `(x, y, z)` as Unity's `Quaternion.Euler` (applied Z, then X, then Y),
   * about the head's reference-pose axes (X the character's left, Y up, Z forward).
   */
  headRotationOffset?: [number, number, number];
  /**
   * The target's reference pose: 'canonical' (default) is its rest straightened into the canonical
   * T/I-pose (referencePose.ts `canonicalPose`); 'rest' is its rest pose as is, only turned to face
   * +Z (`canonicalPose(..., { straighten: false })`), taken as its T-pose. 'rest' is what VRM players
   * do with a VRM avatar, whose rest the VRM spec defines as the T-pose (VRMC_vrm-1.0 tpose.md): with
   * it, a retarget onto a VRM avatar whose rest is a few degrees off a strict T-pose poses it as a VRM
   * Animation player does.
   */
  targetReference?: 'canonical' | 'rest';
}

/**
 * Thrown for bad retarget input or options (a missing required bone, an out-of-range option); the message
 * names the bone or field.
 */
export class RetargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RetargetError';
  }
}

/** What calibration found; reported in summaries. */
export interface CalibrationInfo {
  sourceReference: 'rest' | 'first-frame' | 'frame-as-is';
  sourceUp: Exclude<UpAxis, 'auto'>;
  /** The up axis the calibration frame shows (hips -> head), whatever `sourceUp` was asked for. */
  detectedSourceUp: Exclude<UpAxis, 'auto'>;
  sourceHipsHeight: number;
  targetHipsHeight: number;
  /** Floor contact level of the source's ankles used for the hips height, metres (0 = floor at y 0). */
  sourceContactHeight: number;
  /** The target's lower ankle height in its rest pose when contact levels are used, else 0. */
  targetContactHeight: number;
  /** Scale on the source hips path in 'scaled' mode: avatarScale * H_target / H_source. */
  hipsScale: number;
  /** Height added to the source hips in 'room' mode, metres (leg-length difference, contact levels included). */
  roomLift: number;
  /** Driver source bone name per target bone name, for bones that have one. */
  drivers: Record<string, string>;
  /** Target humanoid bones re-parented for retargeting (IK-style rigs), see virtualHierarchy.ts. */
  detachedTargetBones: string[];
  /** Spine/neck chains fitted to the source chain's shape. */
  fittedChains: string[];
}
