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

export type FootName = 'left' | 'right';

/** Thrown for input the cleanup cannot use; the message names the field, foot or bone. */
export class CleanupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CleanupError';
  }
}

/** Reference hip-to-ankle leg length (metres) at which the thresholds hold as given. */
export const REFERENCE_LEG_LENGTH = 0.9;
