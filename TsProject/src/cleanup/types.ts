/**
 * Shared shapes of the foot-slide cleanup (issue 11). Engine-free.
 *
 * Frames: positions are in the clip's own world frame (metres, as the BVH reader gives them, NOT
 * rotated to Y up); "up" is always the floor normal, so Z-up clips work unchanged. "Horizontal" means
 * perpendicular to the floor normal.
 */

/**
 * The floor in the clip's world frame: points `p` on it satisfy `dot(normal, p) + d = 0`; `normal` is a
 * unit vector pointing up (e.g. `[0, 1, 0]` or `[0, 0, 1]`). A flat floor at height `h` along up is
 * `normal = up, d = -h`. Same shape as src/contact's `FloorEstimate` (declared here until the two
 * branches merge; src/cleanup does not import src/contact).
 */
export interface FloorEstimate {
  normal: [number, number, number];
  d: number;
  method: 'percentile' | 'plane';
}

/** A contact segment of one foot: frames `[start, end)` (end exclusive). */
export interface FrameRange {
  start: number;
  end: number;
}

/** A foot: `'left'` or `'right'`. */
export type FootName = 'left' | 'right';

/**
 * Why a frame range is left for a person (issue 20, item 6):
 * - `reviewBand`: the contact probability stayed in the review band (segments.ts): not fixed;
 * - `travel`: the source ankle moves too far from its anchor inside a detected contact (guards.ts):
 *   those frames are not pinned (the contact is split or shortened there, or dropped);
 * - `shortened`: a contact edge could not blend within the correction's speed limit (the anchor too far
 *   from the source for the frames free around it): the contact starts later or ends earlier
 *   (transitions.ts);
 * - `dropped`: what was left of a contact after `travel` or `shortened` was too short to pin;
 * - `jointStep`: at full weight a leg joint would have moved more than the per-frame bound beyond the
 *   source's own motion; the pin was eased there (transitions.ts `limitJointSteps`);
 * - `jointShift`: the cleanup moves a leg joint farther from the source than the review distance.
 */
export type ReviewReason = 'reviewBand' | 'travel' | 'shortened' | 'dropped' | 'jointStep' | 'jointShift';

/** A frame range `[start, end)` left for review, with its reason and a sentence with the figures. */
export interface ReviewRange extends FrameRange {
  reason: ReviewReason;
  detail: string;
}

/** Thrown for input the cleanup cannot use; the message names the field, foot or bone. */
export class CleanupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CleanupError';
  }
}

/** Reference hip-to-ankle leg length (metres) at which the thresholds hold as given. */
export const REFERENCE_LEG_LENGTH = 0.9;
