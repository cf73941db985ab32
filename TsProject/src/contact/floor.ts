/**
 * Floor estimate from the data (never assumed at height 0): the plane `dot(normal, p) + d = 0` in the
 * clip's world frame, `normal` the clip's up axis.
 */
import type { FootTracks } from './tracks';

/**
 * Points p on the floor satisfy `dot(normal, p) + d = 0` (metres, the clip's world frame); a flat floor
 * is `normal = up`, `d = -height`. Projection onto the floor: `p' = p - (dot(normal, p) + d) normal`.
 */
export interface FloorEstimate {
  normal: [number, number, number];
  d: number;
  method: 'percentile' | 'plane';
}

/** Share of frames below the floor estimate ({@link estimateFloor}): 5 %. */
export const FLOOR_PERCENTILE = 0.05;

/** The `q`-quantile (0..1) of `xs` (nearest rank on a sorted copy). */
export function quantile(xs: ArrayLike<number>, q: number): number {
  const s = Float64Array.from(xs).sort();
  return s[Math.max(0, Math.min(s.length - 1, Math.floor(q * (s.length - 1))))];
}

/**
 * Global floor of a take: the 5th percentile over frames of the lowest foot joint (ankles and toes of
 * both feet) along the up axis. It is the level of the lowest foot JOINT in contact, not of the sole.
 * Shifting a take by any amount along up shifts the floor by the same amount. Stairs and slopes need
 * per-segment anchors (src/cleanup); this is the global estimate.
 */
export function estimateFloor(tracks: FootTracks): FloorEstimate {
  const u = tracks.up;
  const lows = new Float64Array(tracks.frameCount);
  const h = (a: Float64Array, f: number) => u[0] * a[3 * f] + u[1] * a[3 * f + 1] + u[2] * a[3 * f + 2];
  for (let f = 0; f < tracks.frameCount; f++) {
    let m = Math.min(h(tracks.left.ankle, f), h(tracks.right.ankle, f));
    if (tracks.left.toe) m = Math.min(m, h(tracks.left.toe, f));
    if (tracks.right.toe) m = Math.min(m, h(tracks.right.toe, f));
    lows[f] = m;
  }
  const height = quantile(lows, FLOOR_PERCENTILE);
  return { normal: [u[0], u[1], u[2]], d: -height, method: 'percentile' };
}
