/**
 * The contact channels of one foot for the cleanup (issue 20, item 1): the foot's own probability (the
 * union of its heel and toe, as before issue 20) and, when given, the heel (ankle joint) and toe
 * (toe point) probabilities, each turned into segments, review ranges and short pieces by
 * ./segments.ts, and the pin plan built from them (./pins.ts). Without heel and toe probabilities the
 * foot's probability is the heel channel and there are no toe contacts: the ankle is pinned wherever
 * the foot is in contact, exactly as before issue 20. Engine-free; set-up time code.
 */
import { type FootPinPlan, type PointSegment, planFootPins } from './pins';
import { contactSegments, type SegmentOptions, type SegmentResult } from './segments';
import type { LegTrack } from './tracks';
import { CleanupError, type FloorEstimate, type FrameRange } from './types';

/** One contact channel (heel or toe) of one foot, as the cleanup used it. */
export interface PointChannel {
  /** The channel's probability per frame (`Float32Array(frameCount)`); all 0 for an absent channel. */
  probability: Float32Array;
  /** 1 on frames inside one of the channel's segments, else 0. */
  contact: Uint8Array;
  /** The channel's segments with the anchor of the point (ankle for the heel, toe point for the toe). */
  segments: PointSegment[];
  /** Ranges whose probability stayed in the review band (not fixed). */
  review: FrameRange[];
  /** Contact pieces too short to pin. */
  short: FrameRange[];
}

/** A foot's contact channels: the foot's own segments and the heel's and toe's. */
export interface FootChannels {
  /** The foot's own probability's segments (its review and short lists are the foot's). */
  foot: SegmentResult;
  heel: PointChannel;
  toe: PointChannel;
  plan: FootPinPlan;
}

/**
 * Segments of one probability series, errors named after `field`.
 * @throws CleanupError naming the field on a wrong length or a value outside [0, 1].
 */
export function channelSegments(
  p: ArrayLike<number> | undefined,
  field: string,
  frameCount: number,
  frameTime: number,
  options: SegmentOptions,
): SegmentResult {
  if (!p || p.length !== frameCount)
    throw new CleanupError(`${field}: length ${p?.length} does not match the clip's ${frameCount} frames`);
  try {
    return contactSegments(p, frameTime, options);
  } catch (e) {
    throw new CleanupError(`${field}: ${(e as Error).message}`);
  }
}

function channel(
  p: ArrayLike<number> | null,
  seg: SegmentResult | null,
  segments: PointSegment[],
  F: number,
): PointChannel {
  const contact = new Uint8Array(F);
  for (const s of segments) contact.fill(1, s.start, s.end);
  return {
    probability: p ? Float32Array.from(p) : new Float32Array(F),
    contact,
    segments,
    review: seg ? seg.review : [],
    short: seg ? seg.short : [],
  };
}

/**
 * The channels and pin plan of one foot (see the module doc).
 * @param name `left` or `right`, for messages.
 * @param foot the foot's probability per frame.
 * @param points its heel and toe probabilities, or undefined.
 * @param toePoint the toe point per frame (`Float64Array(3 * frameCount)`), needed with `points`.
 * @throws CleanupError naming `probabilities.<foot>` or `points.<foot>.heel|toe` (see `channelSegments`).
 */
export function footChannels(
  name: string,
  foot: ArrayLike<number>,
  points: { heel: ArrayLike<number>; toe: ArrayLike<number> } | undefined,
  track: LegTrack,
  toePoint: Float64Array | null,
  frameCount: number,
  frameTime: number,
  floor: FloorEstimate,
  stepTolerance: number,
  options: SegmentOptions,
): FootChannels {
  const F = frameCount;
  const seg = channelSegments(foot, `probabilities.${name}`, F, frameTime, options);
  const heel = points ? channelSegments(points.heel, `points.${name}.heel`, F, frameTime, options) : seg;
  const toe = points ? channelSegments(points.toe, `points.${name}.toe`, F, frameTime, options) : null;
  const noFill = new Uint8Array(F);
  for (const r of [...seg.review, ...heel.review, ...(toe ? toe.review : [])]) noFill.fill(1, r.start, r.end);
  const plan = planFootPins(
    track,
    toe ? toePoint : null,
    heel.segments,
    toe ? toe.segments : [],
    F,
    floor,
    stepTolerance,
    seg.maxGap,
    noFill,
  );
  return {
    foot: seg,
    heel: channel(points ? points.heel : foot, heel, plan.heel, F),
    toe: channel(points ? points.toe : null, toe, plan.toe, F),
    plan,
  };
}
