/**
 * Foot-slide metrics per foot (issue 11, point 10). Engine-free; report-time code (allocates its result).
 *
 * "Horizontal" is perpendicular to the floor normal; heights are above the floor `n.p + d = 0`.
 * - `meanContactSpeed` S = 1/(N-1) sum ||(p_t - p_{t-1})_horizontal|| / dt over consecutive frame pairs
 *   inside contact segments (N-1 such pairs in all), m/s, of the ankle.
 * - `slideTotal`: sum of those horizontal steps, metres; `slideMaxSegment`: the largest sum within one
 *   segment.
 * - The supporting point (issue 20): `pinnedSlide`, `pinnedSpeed`, `pinnedSlideMaxSegment` are the same
 *   figures of the point pinned at frame t (the ankle while the heel is, the toe point while the toe
 *   is: with a pin plan; else the ankle's figures), and `slideHeel` / `slideToe` split `pinnedSlide` by
 *   that point. During heel-off the ankle rotates about the pinned toe, so its own slide is not the
 *   foot's; the warnings 'speed' and 'slide' judge the supporting point.
 * - `penetrationMax`: deepest point of the foot's lowest joint (ankle or toe) below its local ground over
 *   all frames, metres (0 when never below): the ground of its contact segments, between two segments
 *   the lower of theirs (ground.ts `localContactHeight`); the global floor when no local ground is given.
 * - `skatingRatio`: share of frame pairs where the foot's lowest joint is under `skateHeight` (5 cm)
 *   above the same ground
 *   and moves horizontally faster than `skateSpeed` (0.5 m/s): the foot-skating ratio of
 *   motion-generation papers (e.g. Tevet et al., "Human Motion Diffusion Model", ICLR 2023, and the
 *   GMD/PhysDiff evaluations).
 * - `kneePopMaxDeg`: largest frame-to-frame change of the interior knee angle, degrees.
 * Thresholds are given at the reference leg length (0.9 m) and scaled by `scale = legLength / 0.9`;
 * `warnings` names every metric over its threshold (speed 0.03 m/s, slide 0.05 m per segment,
 * penetration 0.02 m).
 */
import { type FootGround, localContactHeight } from './ground';
import type { LegTrack } from './tracks';
import type { FloorEstimate } from './types';

/** When a {@link FootMetrics} figure earns a warning. */
export interface MetricThresholds {
  /** Mean horizontal contact speed warning, m/s at the reference leg length. Default 0.03. */
  speed: number;
  /** Slide within one segment warning, metres. Default 0.05. */
  slide: number;
  /** Penetration warning, metres. Default 0.02. */
  penetration: number;
  /** Skating: foot height under this, metres. Default 0.05. */
  skateHeight: number;
  /** Skating: horizontal speed over this, m/s. Default 0.5. */
  skateSpeed: number;
}

/** The default {@link MetricThresholds} (metres and m/s at the reference leg length). */
export const DEFAULT_THRESHOLDS: MetricThresholds = {
  speed: 0.03,
  slide: 0.05,
  penetration: 0.02,
  skateHeight: 0.05,
  skateSpeed: 0.5,
};

/**
 * The foot-slide figures of one foot (cleanup.json `metrics.before`/`after`): contact speed S, slide,
 * penetration, skating ratio, knee jumps, warnings.
 */
export interface FootMetrics {
  /** Frames in contact. */
  contactFrames: number;
  /** S, m/s (0 with no contact pair). */
  meanContactSpeed: number;
  /** Metres. */
  slideTotal: number;
  /** The supporting (pinned) point's slide in contact, metres. */
  pinnedSlide: number;
  /** Its mean horizontal speed over the contact pairs, m/s. */
  pinnedSpeed: number;
  /** Its largest slide within one segment, metres. */
  pinnedSlideMaxSegment: number;
  /** Metres: the part of `pinnedSlide` on frames whose pinned point is the heel (ankle). */
  slideHeel: number;
  /** Metres: the part on frames whose pinned point is the toe. */
  slideToe: number;
  /** Metres. */
  slideMaxSegment: number;
  /** Metres below the local ground (>= 0). */
  penetrationMax: number;
  /** In [0, 1]. */
  skatingRatio: number;
  /** Degrees. */
  kneePopMaxDeg: number;
  /** Names of the metrics over their (scaled) thresholds: 'speed', 'slide', 'penetration'. */
  warnings: string[];
}

/** Interior knee angle (degrees, 180 = straight) at frame f. */
export function kneeAngleDeg(track: LegTrack, f: number): number {
  const o = 3 * f;
  const h = track.hip;
  const k = track.knee;
  const a = track.ankle;
  const ux = h[o] - k[o];
  const uy = h[o + 1] - k[o + 1];
  const uz = h[o + 2] - k[o + 2];
  const vx = a[o] - k[o];
  const vy = a[o + 1] - k[o + 1];
  const vz = a[o + 2] - k[o + 2];
  const cx = uy * vz - uz * vy;
  const cy = uz * vx - ux * vz;
  const cz = ux * vy - uy * vx;
  return (Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), ux * vx + uy * vy + uz * vz) * 180) / Math.PI;
}

function hstep(floor: FloorEstimate, p: Float64Array, t: number): number {
  const n = floor.normal;
  const o = 3 * t;
  const x = p[o] - p[o - 3];
  const y = p[o + 1] - p[o - 2];
  const z = p[o + 2] - p[o - 1];
  const v = n[0] * x + n[1] * y + n[2] * z;
  return Math.hypot(x - v * n[0], y - v * n[1], z - v * n[2]);
}

/**
 * The metrics of one foot (see the module doc).
 * @param contact per frame, non-zero = in contact (the final segments).
 * @param scale leg length / 0.9 m; thresholds are multiplied by it.
 * @param ground the foot's local ground (ground.ts `footGround`); without it, the global floor.
 * @param pinned the pinned point per frame (1 heel, 2 toe; pins.ts) and the toe point's track
 *   (`Float64Array(3 * frames)`); without it the ankle is measured on every contact frame.
 */
export function footMetrics(
  track: LegTrack,
  contact: ArrayLike<number>,
  floor: FloorEstimate,
  frameTime: number,
  scale = 1,
  thresholds: MetricThresholds = DEFAULT_THRESHOLDS,
  ground: FootGround | null = null,
  pinned?: { pin: ArrayLike<number>; toe: Float64Array },
): FootMetrics {
  const F = contact.length;
  let frames = 0;
  let pairs = 0;
  let slide = 0;
  let pinnedSlide = 0;
  let slideToe = 0;
  let seg = 0;
  let pseg = 0;
  let psegMax = 0;
  let segMax = 0;
  let pen = 0;
  let skate = 0;
  let pop = 0;
  let prevKnee = kneeAngleDeg(track, 0);
  for (let t = 0; t < F; t++) {
    if (contact[t]) frames++;
    const h = localContactHeight(track, floor, ground, t);
    if (-h > pen) pen = -h;
    if (t === 0) continue;
    const k = kneeAngleDeg(track, t);
    if (Math.abs(k - prevKnee) > pop) pop = Math.abs(k - prevKnee);
    prevKnee = k;
    const step = hstep(floor, track.ankle, t);
    if (contact[t] && contact[t - 1]) {
      const onToe = pinned !== undefined && pinned.pin[t] === 2;
      const s = onToe ? hstep(floor, pinned.toe, t) : step;
      pairs++;
      slide += step;
      seg += step;
      if (seg > segMax) segMax = seg;
      pinnedSlide += s;
      if (onToe) slideToe += s;
      pseg += s;
      if (pseg > psegMax) psegMax = pseg;
    } else seg = pseg = 0;
    // skating: the lowest joint at t, its own horizontal step
    let low = track.ankle;
    if (track.toe && floorHeightAt(floor, track.toe, t) < floorHeightAt(floor, track.ankle, t))
      low = track.toe;
    const lowStep = low === track.ankle ? step : hstep(floor, low, t);
    if (h < thresholds.skateHeight * scale && lowStep / frameTime > thresholds.skateSpeed * scale) skate++;
  }
  const S = pairs > 0 ? slide / pairs / frameTime : 0;
  const PS = pairs > 0 ? pinnedSlide / pairs / frameTime : 0;
  const warnings: string[] = [];
  if (PS > thresholds.speed * scale) warnings.push('speed');
  if (psegMax > thresholds.slide * scale) warnings.push('slide');
  if (pen > thresholds.penetration * scale) warnings.push('penetration');
  return {
    contactFrames: frames,
    meanContactSpeed: S,
    slideTotal: slide,
    pinnedSlide,
    pinnedSpeed: PS,
    pinnedSlideMaxSegment: psegMax,
    slideHeel: pinnedSlide - slideToe,
    slideToe,
    slideMaxSegment: segMax,
    penetrationMax: pen,
    skatingRatio: F > 1 ? skate / (F - 1) : 0,
    kneePopMaxDeg: pop,
    warnings,
  };
}

function floorHeightAt(floor: FloorEstimate, p: Float64Array, t: number): number {
  const n = floor.normal;
  return n[0] * p[3 * t] + n[1] * p[3 * t + 1] + n[2] * p[3 * t + 2] + floor.d;
}
