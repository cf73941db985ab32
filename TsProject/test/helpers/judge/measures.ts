/**
 * Measures of a cleaned take against its source (issue 20), on the judge's own forward kinematics and
 * reference contacts (./legs.ts, ./reference.ts). Both takes are BVH text with the same hierarchy; the
 * cleaned one is read with the source's legs, unit and up axis. Distances in cm, angles in degrees.
 *
 * - Supporting-point slide: on each frame f >= 1 where the reference says a foot is supported by the
 *   same point on f - 1 and f (its heel while the heel is in contact, else its toe while the toe is), the
 *   horizontal displacement of that point from f - 1 to f; summed over frames and feet, in the source
 *   ("before") and the cleaned take ("after"), heel and toe apart and pooled; removed = 1 - after/before.
 * - Extra joint move: for every leg joint (hip joint, knee, ankle, toe point, both legs) and frame
 *   f >= 1, |p_after(f) - p_after(f-1)| - |p_src(f) - p_src(f-1)|: the largest (with frame and joint)
 *   and the number of frames where some joint's is over 3 cm.
 * - Knees newly straight: frames (per leg) where the cleaned knee angle (between thigh and shin, 180 =
 *   straight) is over 175 degrees and the source's is under 175; the count and the straightest.
 * - New penetration: per point (heel, toe) and frame, how much deeper below its reference resting level
 *   (`groundLevel`) the cleaned point is than the source point: max(0, L - h_after) - max(0, L - h_src);
 *   point-frames over 1 cm and the largest.
 * - Non-leg channels: the largest absolute difference of any channel value of a joint outside both leg
 *   subtrees (degrees for rotations, cm for positions), with where.
 * - Detector scoring: per-frame per-foot 0/1 labels against the reference foot contact (heel or toe in
 *   contact): pooled true/false positives, precision, recall, F1.
 */
import type { BvhText } from './bvhText';
import {
  LEG_POINTS,
  type LegPointName,
  type LegTrack,
  legSubtreeJoints,
  legTrack,
  SIDES,
  type Side,
  type TakeFrame,
} from './legs';
import { type FootPoint, footContact, type ReferenceContacts } from './reference';

/** Slide sums, cm. */
export interface SlideSum {
  before: number;
  after: number;
  /** 100 * (1 - after / before); 0 when before is 0. */
  removedPercent: number;
  /** Frames counted (the same point supporting on f - 1 and f). */
  frames: number;
}

export interface CleanupMeasures {
  frames: number;
  fps: number;
  slide: { heel: SlideSum; toe: SlideSum; pooled: SlideSum };
  /** Largest extra per-frame move of a leg joint, cm; `framesOver3cm` counts frames. */
  jump: { maxCm: number; frame: number; joint: string; framesOver3cm: number };
  /** Knees newly straighter than 175 degrees (leg-frames) and the straightest of them. */
  knees: { newlyStraight: number; worstDeg: number; frame: number; side: Side | '' };
  /** New penetration of the local resting level: point-frames over 1 cm and the largest, cm. */
  penetration: { over1cm: number; maxCm: number; frame: number; point: string };
  /** Largest change of a non-leg channel. */
  nonLeg: { maxRotationDeg: number; maxPositionCm: number; where: string };
}

/** Thresholds of the measures. */
export const MEASURE_LIMITS = { jumpCm: 3, kneeDeg: 175, penetrationCm: 1 } as const;

function dist(a: Float64Array, i: number, j: number): number {
  return Math.hypot(a[3 * i] - a[3 * j], a[3 * i + 1] - a[3 * j + 1], a[3 * i + 2] - a[3 * j + 2]);
}

function horizontal(track: LegTrack, a: Float64Array, i: number, j: number): number {
  let s = 0;
  for (let c = 0; c < 3; c++) {
    if (c === track.up.axis) continue;
    const d = a[3 * i + c] - a[3 * j + c];
    s += d * d;
  }
  return Math.sqrt(s);
}

function sum(before: number, after: number, frames: number): SlideSum {
  return { before, after, frames, removedPercent: before > 0 ? 100 * (1 - after / before) : 0 };
}

/** The supporting point of a foot at f (heel first), or null. */
export function supportingPoint(ref: ReferenceContacts, side: Side, f: number): FootPoint | null {
  if (ref.points[side].heel.contact[f]) return 'heel';
  if (ref.points[side].toe.contact[f]) return 'toe';
  return null;
}

function slideMeasure(src: LegTrack, out: LegTrack, ref: ReferenceContacts): CleanupMeasures['slide'] {
  const acc = { heel: [0, 0, 0], toe: [0, 0, 0] };
  for (const side of SIDES) {
    for (let f = 1; f < src.frameCount; f++) {
      const p = supportingPoint(ref, side, f);
      if (!p || supportingPoint(ref, side, f - 1) !== p) continue;
      const name: LegPointName = p === 'heel' ? 'ankle' : 'toe';
      acc[p][0] += horizontal(src, src.points[side][name], f, f - 1) * 100;
      acc[p][1] += horizontal(out, out.points[side][name], f, f - 1) * 100;
      acc[p][2]++;
    }
  }
  return {
    heel: sum(acc.heel[0], acc.heel[1], acc.heel[2]),
    toe: sum(acc.toe[0], acc.toe[1], acc.toe[2]),
    pooled: sum(acc.heel[0] + acc.toe[0], acc.heel[1] + acc.toe[1], acc.heel[2] + acc.toe[2]),
  };
}

function jumpMeasure(src: LegTrack, out: LegTrack): CleanupMeasures['jump'] {
  let maxCm = Number.NEGATIVE_INFINITY;
  let frame = -1;
  let joint = '';
  let over = 0;
  for (let f = 1; f < src.frameCount; f++) {
    let frameOver = false;
    for (const side of SIDES)
      for (const j of LEG_POINTS) {
        const e = (dist(out.points[side][j], f, f - 1) - dist(src.points[side][j], f, f - 1)) * 100;
        if (e > maxCm) {
          maxCm = e;
          frame = f;
          joint = `${side} ${j}`;
        }
        if (e > MEASURE_LIMITS.jumpCm) frameOver = true;
      }
    if (frameOver) over++;
  }
  return { maxCm: frame < 0 ? 0 : maxCm, frame, joint, framesOver3cm: over };
}

/** Knee angle at frame f, degrees (180 = straight). */
export function kneeAngle(track: LegTrack, side: Side, f: number): number {
  const h = track.points[side].hip;
  const k = track.points[side].knee;
  const a = track.points[side].ankle;
  let dot = 0;
  let n1 = 0;
  let n2 = 0;
  for (let c = 0; c < 3; c++) {
    const u = h[3 * f + c] - k[3 * f + c];
    const v = a[3 * f + c] - k[3 * f + c];
    dot += u * v;
    n1 += u * u;
    n2 += v * v;
  }
  const cos = dot / Math.sqrt(n1 * n2);
  return (Math.acos(Math.max(-1, Math.min(1, cos))) * 180) / Math.PI;
}

function kneeMeasure(src: LegTrack, out: LegTrack): CleanupMeasures['knees'] {
  const r: CleanupMeasures['knees'] = { newlyStraight: 0, worstDeg: 0, frame: -1, side: '' };
  for (const side of SIDES)
    for (let f = 0; f < src.frameCount; f++) {
      const after = kneeAngle(out, side, f);
      if (after <= MEASURE_LIMITS.kneeDeg || kneeAngle(src, side, f) >= MEASURE_LIMITS.kneeDeg) continue;
      r.newlyStraight++;
      if (after > r.worstDeg) Object.assign(r, { worstDeg: after, frame: f, side });
    }
  return r;
}

function penetrationMeasure(
  src: LegTrack,
  out: LegTrack,
  ref: ReferenceContacts,
): CleanupMeasures['penetration'] {
  const r: CleanupMeasures['penetration'] = { over1cm: 0, maxCm: 0, frame: -1, point: '' };
  const up = src.up;
  for (const side of SIDES)
    for (const point of ['heel', 'toe'] as const) {
      const name: LegPointName = point === 'heel' ? 'ankle' : 'toe';
      const L = ref.points[side][point].groundLevel;
      const ps = src.points[side][name];
      const pa = out.points[side][name];
      for (let f = 0; f < src.frameCount; f++) {
        if (Number.isNaN(L[f])) continue;
        const hs = up.sign * ps[3 * f + up.axis];
        const ha = up.sign * pa[3 * f + up.axis];
        const extra = (Math.max(0, L[f] - ha) - Math.max(0, L[f] - hs)) * 100;
        if (extra > MEASURE_LIMITS.penetrationCm) r.over1cm++;
        if (extra > r.maxCm) Object.assign(r, { maxCm: extra, frame: f, point: `${side} ${point}` });
      }
    }
  return r;
}

function nonLegMeasure(src: BvhText, out: BvhText, frame: TakeFrame): CleanupMeasures['nonLeg'] {
  const legJoints = legSubtreeJoints(src, frame.legs);
  const C = src.channelCount;
  let rot = 0;
  let pos = 0;
  let where = '';
  let worst = 0;
  for (let j = 0; j < src.joints.length; j++) {
    if (legJoints.has(j)) continue;
    const joint = src.joints[j];
    for (let k = 0; k < joint.channels.length; k++) {
      const c = joint.firstChannel + k;
      const isPos = joint.channels[k].endsWith('position');
      for (let f = 0; f < src.frameCount; f++) {
        const d = Math.abs(out.values[f * C + c] - src.values[f * C + c]);
        if (d === 0) continue;
        const v = isPos ? d * frame.scale * 100 : d;
        if (isPos) pos = Math.max(pos, v);
        else rot = Math.max(rot, v);
        // the place of the largest change, positions (cm) and rotations (deg) compared as numbers
        if (v > worst) {
          worst = v;
          where = `${joint.name} ${joint.channels[k]} frame ${f}`;
        }
      }
    }
  }
  return { maxRotationDeg: rot, maxPositionCm: pos, where };
}

/**
 * All measures of a cleaned take against its source (see the module doc).
 * @param ref reference contacts on the source's frames (the clean take's own, or a degraded copy's
 *   carried over by ./degrade.ts `mapReference`).
 * @throws Error when the two takes differ in joints, channels or frame count.
 */
export function measureCleanup(
  source: BvhText,
  cleaned: BvhText,
  frame: TakeFrame,
  ref: ReferenceContacts,
  srcTrack?: LegTrack,
): CleanupMeasures {
  if (
    cleaned.joints.length !== source.joints.length ||
    cleaned.channelCount !== source.channelCount ||
    cleaned.joints.some((j, i) => j.name !== source.joints[i].name)
  )
    throw new Error(`${cleaned.fileName}: not the hierarchy of ${source.fileName}`);
  if (cleaned.frameCount !== source.frameCount || ref.frameCount !== source.frameCount)
    throw new Error(
      `${cleaned.fileName}: ${cleaned.frameCount} frames, the source ${source.frameCount}, the reference ${ref.frameCount}`,
    );
  const src = srcTrack ?? legTrack(source, frame).track;
  const out = legTrack(cleaned, frame).track;
  return {
    frames: source.frameCount,
    fps: 1 / source.frameTime,
    slide: slideMeasure(src, out, ref),
    jump: jumpMeasure(src, out),
    knees: kneeMeasure(src, out),
    penetration: penetrationMeasure(src, out, ref),
    nonLeg: nonLegMeasure(source, cleaned, frame),
  };
}

/** Detector counts and scores. */
export interface DetectorScore {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  precision: number;
  recall: number;
  f1: number;
}

/** Scores from pooled counts (precision/recall 1 when nothing was predicted/expected). */
export function scoreOf(c: { tp: number; fp: number; fn: number; tn: number }): DetectorScore {
  const precision = c.tp + c.fp > 0 ? c.tp / (c.tp + c.fp) : 1;
  const recall = c.tp + c.fn > 0 ? c.tp / (c.tp + c.fn) : 1;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { ...c, precision, recall, f1 };
}

/**
 * Per-frame per-foot labels (0/1, e.g. cleanup.json `feet.left.contact`) against the reference foot
 * contact (heel or toe).
 * @throws Error when a label array's length is not the reference's frame count.
 */
export function scoreDetector(
  ref: ReferenceContacts,
  labels: Record<Side, ArrayLike<number>>,
): DetectorScore {
  const c = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const side of SIDES) {
    const l = labels[side];
    if (l.length !== ref.frameCount)
      throw new Error(`${side} labels: ${l.length} frames, the reference has ${ref.frameCount}`);
    const r = footContact(ref, side);
    for (let f = 0; f < ref.frameCount; f++) {
      const p = l[f] ? 1 : 0;
      if (p && r[f]) c.tp++;
      else if (p) c.fp++;
      else if (r[f]) c.fn++;
      else c.tn++;
    }
  }
  return scoreOf(c);
}
