/**
 * Local ground of a cleaned take (issue 20, point 4): the ground each contact segment stands on, the
 * take's ground levels, and heights above the local ground for the metrics (penetration, skating).
 *
 * Each segment (anchors.ts) is a contact point: the horizontal position of the foot's lowest joint (ankle
 * or toe, per frame; the median over the segment) and its ground height above the global floor: 0 for a
 * segment anchors.ts put on the floor (its contact within `stepTolerance` of it), else the segment's own
 * low level, the {@link GROUND_QUANTILE} quantile of its lowest joint's height over its frames (a heel or
 * a toe raised within the contact, a relevé, stays above its ground instead of half of it counting as
 * below a median). The points of both feet are split into ground patches (src/core `fitGroundPatches`:
 * flat or tilted planes `n.p + d = 0`, tolerance `stepTolerance`; a tilted patch needs at least 3
 * contacts that agree on it); a patch is one ground level. The ground of each segment is a plane of its
 * level's orientation through its contact point: on a slope the toe's ground is higher or lower than the
 * heel's. Only the segments' `ground` is set here ({@link settleOnGround}): no foot is moved onto a fitted
 * plane, each contact is pinned at its own height (anchors.ts, cleanup.ts).
 *
 * Local ground per frame ({@link footGround}): inside a segment, the segment's plane; elsewhere the lowest
 * of the planes of the foot's segments before and after the frame and the global floor, at the joint (a
 * foot in the air between two contacts on a climbing frame may pass over the floor under it, and a take's
 * ends may stand where no contact was found: a T-pose frame 0); a foot with no segment, the global floor.
 * Penetration is the depth of the foot's lowest joint (ankle or toe) below it: below the contact's own
 * ground during a contact, below every ground around it between contacts.
 *
 * Engine-free; set-up and report time code (allocates).
 */
import { fitGroundPatches, type GroundPoint, patchPlane } from '../core';
import type { SegmentAnchor } from './anchors';
import { floorBasis, floorHeight } from './floor';
import type { LegTrack } from './tracks';
import type { FloorEstimate, FootName } from './types';

/** One ground level of the take: a plane and the segments standing on it. */
export interface GroundLevel {
  /** The plane `n.p + d = 0` in the clip's world frame (metres); `normal` is unit and points up. */
  normal: [number, number, number];
  d: number;
  /** Median ground height of its segments above the global floor, metres. */
  height: number;
  /** Angle of the plane from the floor, degrees (0: flat). */
  tiltDeg: number;
  /** Its segments: foot and index into that foot's segments. */
  segments: { foot: FootName; index: number }[];
}

/** The ground levels the contacts stand on (planes, lowest first) and the level of each contact segment. */
export interface GroundModel {
  /** The levels, lowest first. */
  levels: GroundLevel[];
  /** Per foot, the level of each segment (index into `levels`). */
  segmentLevel: Record<FootName, number[]>;
  /** Per foot, each segment's ground plane: `Float64Array(4 * segments)`, normal x, y, z and d. */
  planes: Record<FootName, Float64Array>;
  /** Highest minus lowest segment ground, metres (0 with one flat level). */
  spread: number;
}

const FEET: readonly FootName[] = ['left', 'right'];

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/** The `q`-quantile (0..1) of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.max(0, Math.min(s.length - 1, Math.floor(q * (s.length - 1))))];
}

/** Share of a segment's frames below its ground level (its lowest joint's 10th percentile). */
export const GROUND_QUANTILE = 0.1;

/**
 * Find the ground levels of the segments of both feet and set each segment's ground (see the module doc).
 * Edits the anchors' `ground` in place (never their anchor, height or lift: no foot is moved by it).
 * @param stepTolerance metres: the patch tolerance, and a flat level this near the floor is the floor.
 */
export function settleOnGround(
  anchors: Record<FootName, SegmentAnchor[]>,
  tracks: Record<FootName, LegTrack>,
  floor: FloorEstimate,
  stepTolerance: number,
): GroundModel {
  const { e1, e2 } = floorBasis(floor);
  const n = floor.normal;
  const refs: { foot: FootName; index: number }[] = [];
  const points: GroundPoint[] = [];
  for (const foot of FEET) {
    const tr = tracks[foot];
    anchors[foot].forEach((s, index) => {
      const xs: number[] = [];
      const ys: number[] = [];
      const hs: number[] = [];
      for (let f = s.start; f < s.end; f++) {
        const o = 3 * f;
        const ha = floorHeight(floor, tr.ankle, o);
        const ht = tr.toe ? floorHeight(floor, tr.toe, o) : Infinity;
        const p = tr.toe && ht < ha ? tr.toe : tr.ankle;
        xs.push(e1[0] * p[o] + e1[1] * p[o + 1] + e1[2] * p[o + 2]);
        ys.push(e2[0] * p[o] + e2[1] * p[o + 1] + e2[2] * p[o + 2]);
        hs.push(Math.min(ha, ht));
      }
      refs.push({ foot, index });
      // a segment anchors.ts put on the floor stays there; any other stands on its own low level
      const h = s.ground === 0 ? 0 : Math.min(s.ground, quantile(hs, GROUND_QUANTILE));
      points.push({ x: median(xs), y: median(ys), h });
    });
  }
  const segmentLevel = { left: anchors.left.map(() => -1), right: anchors.right.map(() => -1) };
  const planes = {
    left: new Float64Array(4 * anchors.left.length),
    right: new Float64Array(4 * anchors.right.length),
  };
  if (points.length === 0 || !(stepTolerance > 0)) return { levels: [], segmentLevel, planes, spread: 0 };
  const patches = fitGroundPatches(points, { tolerance: stepTolerance });
  const levels: GroundLevel[] = [];
  for (const p of patches) {
    const tilted = p.tilt > 0;
    const nn = tilted
      ? patchPlane(p, n, e1, e2, floor.d).normal
      : ([n[0], n[1], n[2]] as [number, number, number]);
    const grounds: number[] = [];
    for (const m of p.members) {
      const q = points[m];
      const g = q.h;
      const { foot, index } = refs[m];
      anchors[foot][index].ground = g;
      grounds.push(g);
      // the level's orientation through the segment's own contact point (at height g above the floor)
      let d = 0;
      for (let k = 0; k < 3; k++) d -= nn[k] * (e1[k] * q.x + e2[k] * q.y + n[k] * (g - floor.d));
      planes[foot].set([nn[0], nn[1], nn[2], d], 4 * index);
    }
    const height = median(grounds);
    const plane = tilted ? patchPlane(p, n, e1, e2, floor.d) : { normal: nn, d: floor.d - height };
    levels.push({
      ...plane,
      height,
      tiltDeg: (p.tilt * 180) / Math.PI,
      segments: p.members.map((m) => refs[m]),
    });
  }
  // flat levels snapped onto the floor are one level
  const merged: GroundLevel[] = [];
  for (const l of levels.sort((a, b) => a.height - b.height)) {
    const last = merged[merged.length - 1];
    if (last && last.tiltDeg === 0 && l.tiltDeg === 0 && last.height === 0 && l.height === 0)
      last.segments.push(...l.segments);
    else merged.push(l);
  }
  merged.forEach((l, i) => {
    for (const r of l.segments) segmentLevel[r.foot][r.index] = i;
  });
  let lo = Infinity;
  let hi = -Infinity;
  for (const foot of FEET)
    for (const s of anchors[foot]) {
      lo = Math.min(lo, s.ground);
      hi = Math.max(hi, s.ground);
    }
  return { levels: merged, segmentLevel, planes, spread: hi - lo };
}

/**
 * One line about the ground when it is not one flat floor, else null: "contacts on 3 ground levels,
 * 27 cm apart", with the slopes ("one sloped 8.0°"), or "contacts on one ground plane sloped 8.0°".
 * Slopes under 2 degrees are not named.
 */
export function describeGround(model: GroundModel): string | null {
  const n = model.levels.length;
  const sloped = model.levels.filter((l) => l.tiltDeg >= 2);
  const steepest = Math.max(0, ...sloped.map((l) => l.tiltDeg));
  if (n <= 1) return sloped.length ? `contacts on one ground plane sloped ${steepest.toFixed(1)}°` : null;
  const cm = Math.round(model.spread * 100);
  const slopes =
    sloped.length === 0
      ? ''
      : sloped.length === 1
        ? `; one sloped ${steepest.toFixed(1)}°`
        : `; ${sloped.length} sloped, up to ${steepest.toFixed(1)}°`;
  return `contacts on ${n} ground levels, ${cm} cm apart${slopes}`;
}

/**
 * The local ground of one foot per frame (see the module doc): the planes of its segments and, per
 * frame, the segment before and after it (the same inside a segment; -1 where there is none).
 */
export interface FootGround {
  /** `Float64Array(4 * segments)`: normal x, y, z and d of each segment's plane. */
  planes: Float64Array;
  before: Int32Array;
  after: Int32Array;
}

/** {@link FootGround} of one foot from its settled segments and the ground model. */
export function footGround(
  model: GroundModel,
  foot: FootName,
  segments: readonly SegmentAnchor[],
  frameCount: number,
): FootGround {
  const before = new Int32Array(frameCount).fill(-1);
  const after = new Int32Array(frameCount).fill(-1);
  let j = 0;
  for (let f = 0; f < frameCount; f++) {
    while (j < segments.length && segments[j].end <= f) j++;
    // j: first segment ending after f
    if (j < segments.length && segments[j].start <= f) {
      before[f] = j;
      after[f] = j;
    } else {
      before[f] = j - 1;
      after[f] = j < segments.length ? j : -1;
    }
  }
  return { planes: model.planes[foot], before, after };
}

/** Height of point `p[o..]` above plane `i` of `g`. */
function above(g: FootGround, i: number, p: Float64Array, o: number): number {
  const q = g.planes;
  const k = 4 * i;
  return q[k] * p[o] + q[k + 1] * p[o + 1] + q[k + 2] * p[o + 2] + q[k + 3];
}

/** Height of one joint above the local ground at frame f (the lower plane of the two around it). */
function jointAbove(g: FootGround, floor: FloorEstimate, p: Float64Array, f: number): number {
  const a = g.before[f];
  const b = g.after[f];
  const o = 3 * f;
  const hf = floorHeight(floor, p, o);
  if (a >= 0 && a === b) return above(g, a, p, o);
  // between contacts the foot may pass over ground no contact stood on (a lower step, the floor under
  // a climbing frame): the lowest of the grounds around it and the floor (above it = the largest height)
  const ha = a >= 0 ? above(g, a, p, o) : hf;
  const hb = b >= 0 ? above(g, b, p, o) : hf;
  return Math.max(ha, hb, hf);
}

/**
 * Height of the foot's lowest joint (ankle or toe) above its local ground at frame f, metres (negative:
 * below it). With `ground` null, above the global floor (as anchors.ts `contactHeight`).
 */
export function localContactHeight(
  track: LegTrack,
  floor: FloorEstimate,
  ground: FootGround | null,
  f: number,
): number {
  if (!ground) {
    const a = floorHeight(floor, track.ankle, 3 * f);
    return track.toe ? Math.min(a, floorHeight(floor, track.toe, 3 * f)) : a;
  }
  const a = jointAbove(ground, floor, track.ankle, f);
  return track.toe ? Math.min(a, jointAbove(ground, floor, track.toe, f)) : a;
}
