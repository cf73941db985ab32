/**
 * Foot-slide cleanup of a clip from per-foot contact probabilities (issue 11, points 4-10).
 *
 * Pipeline: segments (segments.ts) -> anchors (anchors.ts) and their ground levels (ground.ts) -> per
 * frame, for every foot with a correction weight > 0: optional root correction, then
 * damped-least-squares leg IK (src/ik/dls.ts) toward the foot's target, blended by the weight, written
 * back as local rotations of the thigh, shin and foot (the foot keeps its source world rotation) ->
 * metrics before and after (metrics.ts; penetration below the local ground).
 *
 * Target of the ankle at frame t of segment s: horizontally the anchor; vertically the source ankle's
 * height above the floor minus the segment's `lift` (so the foot stands on the segment's ground level,
 * lowered onto it by at most 5 mm at a 0.9 m leg: anchors.ts),
 * raised further if the foot's lowest joint would go below that level. The source's vertical motion
 * (heel strike, heel off) is kept, the horizontal slide removed.
 *
 * Guards (issue 20, item 6; guards.ts): a detected contact inside which the source ankle travels more
 * than `maxContactTravel` loses its fastest frames until every piece stays within it (the contact is
 * shortened or split, each piece anchored again); the frames cut go to the review list with the reason.
 *
 * Blending (point 7; issue 20, item 3; transitions.ts): the weight w scales the correction: the solved
 * thigh and knee rotation deltas `D` become `slerp(identity, D, w)` (shortest path), so w = 0 leaves the
 * leg bit for bit and w = 1 pins it. Ramps in and out span at least `blendSeconds` whatever the rate and
 * carry the contact edge's correction (target = source ankle + the edge's offset) rather than pulling
 * toward the anchor; they are lengthened, bridged across a short gap, or the contact shortened, so the
 * ankle's correction never changes faster than `maxCorrectionSpeed`. A ramp never crosses a jump of the
 * source ankle (a step faster than `maxFootSpeed`, e.g. a T-pose frame 0 standing metres away, or a
 * cut). After the frames are cleaned, every leg joint is checked by forward kinematics: where one would
 * move more than `maxJointStep` per frame beyond the source's own motion, the pin is eased there
 * (transitions.ts `limitJointSteps`) and the frames go to the review list. Frames with w = 0 on both
 * feet are not touched at all (their local rotations and translations stay bit-equal to the input).
 * Frames where a leg joint ends farther than `reviewJointShift` from the source are listed for review.
 *
 * Heel and toe (issue 20, items 1-2): with `points` (heel and toe contact probabilities per foot) the
 * pinned point follows the contact (./channels.ts, ./pins.ts): the ankle while the heel is down (heel
 * strike, flat foot: the target above), the toe while only the toe is (heel-off, tiptoe, a kick's
 * support: ./toePivot.ts pins the toe on its anchor, the ankle follows the source's foot and rotates
 * about the toe only when the leg cannot reach; the heel is never pulled down). The weight ramps run at
 * the ends of each stance (the union of heel and toe contact); inside it the anchors are chained so
 * the switch from heel to toe steps nothing. The toe's target height is the source toe's minus the
 * stance's lift, raised like the ankle's when the foot's lowest point would go under the ground. A rig
 * without toe joints pins a virtual toe (./toePoint.ts). Without `points` the ankle is pinned on every
 * contact frame, as before. The stances are what the guards cut and the transitions plan (their ramps,
 * bridges and speed limit are planned on the stances' ankle corrections); every frame with a weight is
 * driven by the pin run over it or, on a ramp or a cut frame, the nearest run, and on ramp and bridge
 * frames the carried offset is applied to that run's point (target = the source ankle, or the source
 * toe point on a toe run, + the offset; ./pinner.ts).
 *
 * Root correction (point 8): off by default. When on, and only on frames where BOTH feet are in contact
 * (inside a segment each: double support, not the blend ramps around it), the hips move horizontally by
 * the mean horizontal anchor error of the two ankles, capped to `rootMaxOffset` (metres at a 0.9 m leg,
 * scaled), faded in and out by a smoothstep ramp inside each double support, and its change from one
 * frame to the next limited to `rootMaxStep` per world axis (FootPinner.planRootOffsets): 0 outside double
 * support, no snap back and no jitter inside it.
 *
 * Output (point 9): a new clip with the same skeleton (hierarchy, rest data), frame count and frame
 * time; only the rotations of the legs' thigh, shin and foot bones (and the hips' translation with root
 * correction) change, and only on frames with a weight > 0.
 *
 * Engine-free. Allocation: set-up and report work allocate; the per-frame loop allocates nothing
 * (scratch arrays owned by this call and by the solvers).
 */
import type { Clip } from '../core';
import { LegDLS } from '../ik/dls';
import { type SegmentAnchor, segmentAnchor } from './anchors';
import { type FootChannels, footChannels, type PointChannel } from './channels';
import { checkFloor } from './floor';
import { footGround, type GroundModel } from './ground';
import { jointShiftRanges, splitTravellingSegments } from './guards';
import { type FootIkStats, hingeAxisLocal, ikStats, type LimitRange, limitRanges } from './legStats';
import { DEFAULT_THRESHOLDS, type FootMetrics, footMetrics, type MetricThresholds } from './metrics';
import { FootPinner, type PinLeg, SEG_STRIDE } from './pinner';
import type { FootPinPlan, PinRun } from './pins';
import { type SegmentOptions, type SegmentResult, smoothstep } from './segments';
import { ToePivot } from './toePivot';
import { toePointTrack, virtualToeOffsets } from './toePoint';
import { type LegBones, type LegTrack, legBones, legTracks, restLegLength } from './tracks';
import {
  DEFAULT_BLEND_SECONDS,
  DEFAULT_MAX_CORRECTION_SPEED,
  DEFAULT_MAX_JOINT_STEP,
  jumpFrames,
  limitJointSteps,
  planOnGround,
  planTransitions,
  rampFramesFor,
  type TransitionPlan,
} from './transitions';
import {
  CleanupError,
  type FloorEstimate,
  type FootName,
  type FrameRange,
  REFERENCE_LEG_LENGTH,
  type ReviewRange,
} from './types';

/**
 * Options of {@link cleanupClip}: segmentation thresholds, root correction, IK, blends and guards (lengths at
 * a 0.9 m leg, scaled to the take's).
 */
export interface CleanupOptions extends SegmentOptions {
  /** Move the hips while both feet are in contact (capped, rate-limited). Default false. */
  rootCorrection?: boolean;
  /** Largest hips offset, metres at a 0.9 m leg (scaled). Default 0.03. */
  rootMaxOffset?: number;
  /**
   * Largest change of the hips offset from one frame to the next, per world axis, metres per 1/60 s at a
   * 0.9 m leg (scaled with the leg and the rate). Default 0.003 (0.18 m/s per axis). The fade in and out
   * of each double support spans ceil(1.5 rootMaxOffset / rootMaxStep) frames at 60 fps.
   */
  rootMaxStep?: number;
  /**
   * Shortest blend ramp in and out of a contact, seconds (the same time at any frame rate; longer where
   * the correction speed needs it). Default 0.15 (transitions.ts says how it was chosen).
   */
  blendSeconds?: number;
  /** Deprecated: a ramp of this many frames at 60 fps, i.e. `blendSeconds = (blendFrames60 + 1) / 60`. */
  blendFrames60?: number;
  /**
   * Speed at which the ankle's correction may change, m/s at a 0.9 m leg (scaled), and never more than
   * 0.8 `maxJointStep` per frame. Default 1.0 (transitions.ts says how it was chosen).
   */
  maxCorrectionSpeed?: number;
  /**
   * No knee, ankle or toe moves more than this per frame beyond the source's own motion at that frame,
   * metres at a 0.9 m leg or longer (a shorter leg gets proportionally less, never a longer one more: at
   * most this in the take's metres, and the same share of the body when a take's unit is read wrong).
   * Checked on every frame by forward kinematics. Default 0.03 (the bound).
   */
  maxJointStep?: number;
  /**
   * A contact inside which the source ankle travels farther than this (its horizontal extent) is cut
   * until every piece stays within it (guards.ts), metres at a 0.9 m leg (scaled). Default 0.30: more
   * than any rule contact's extent on the shared BVH takes (at most 27.6 cm, 99th percentile 23.0 cm at
   * their own rates; at most 22.0 cm resampled to 25 fps), so it acts on contacts that span real motion
   * (the learned contacts of CMU 02_03 at 25 fps: 67-112 cm; 5 learned contacts in all at own rates, 1
   * at 25 fps).
   */
  maxContactTravel?: number;
  /**
   * Frames where the cleanup moves a leg joint (hip, knee, ankle, toe) farther than this from the source
   * are listed for review, metres at a 0.9 m leg (scaled). Default 0.15 (a sixth of the leg).
   */
  reviewJointShift?: number;
  /**
   * A source ankle step faster than this (m/s at a 0.9 m leg, scaled) is a jump in the take (a T-pose
   * frame, a cut), not motion: blend ramps stop there. Default 10.
   */
  maxFootSpeed?: number;
  /** Hip-ankle stretch allowed beyond the source, fraction of the leg's length. Default 0.01. */
  stretchMargin?: number;
  /**
   * A segment whose ground is within this of the floor stands on the floor; metres at a 0.9 m leg
   * (scaled). Default 0.03. A foot above the floor is lowered onto it by at most a sixth of this
   * (anchors.ts `MAX_LOWERING_SHARE`: never pushed into the level it rests on).
   */
  stepTolerance?: number;
  /** Metric warning thresholds at a 0.9 m leg (scaled). Defaults: metrics.ts. */
  thresholds?: Partial<MetricThresholds>;
  /**
   * A knee pop is an after-cleanup frame-to-frame knee angle jump larger than the source's by this,
   * degrees per frame at 60 fps and above, scaled up below 60 fps (10 degrees per frame at 30 fps):
   * a jump visible as a pop in one frame. Default 5.
   */
  kneePopMargin60?: number;
}

/**
 * The input of {@link cleanupClip}: the clip and its contact probabilities per foot (and per heel and toe),
 * with the floor.
 */
export interface CleanupInput {
  clip: Clip;
  /** Contact probability per frame per foot, in [0, 1], length = frame count. */
  probabilities: { left: ArrayLike<number>; right: ArrayLike<number> };
  /**
   * Heel (ankle joint) and toe (toe point) contact probability per frame per foot, in [0, 1], length =
   * frame count (src/contact `heelToeProbabilities`). Optional: without it the ankle is pinned on every
   * contact frame of `probabilities` (before issue 20).
   */
  points?: Record<FootName, { heel: ArrayLike<number>; toe: ArrayLike<number> }>;
  /** The floor in the clip's world frame (its normal is "up"). */
  floor: FloorEstimate;
}

/**
 * What the cleanup did to one foot: probabilities, contact frames, segments with anchors, review and short
 * ranges, weights, heel and toe channels, pins, toe point.
 */
export interface FootCleanup {
  /** The input probabilities, one per frame. */
  probability: Float32Array;
  /** 1 on frames inside a final segment, else 0. */
  contact: Uint8Array;
  /** Final segments with their anchors, sorted, end exclusive. */
  segments: SegmentAnchor[];
  /** Ranges left for review, each with its reason (sorted by start). */
  review: ReviewRange[];
  /** Contact pieces too short to pin (segments.ts step 4): detected, not fixed. */
  short: FrameRange[];
  /** Correction weight per frame (transitions.ts `planTransitions`, eased by `limitJointSteps`). */
  weight: Float32Array;
  /** The heel channel (the foot's own probability when no `points` were given). */
  heel: PointChannel;
  /** The toe channel (all 0 when no `points` were given). */
  toe: PointChannel;
  /** Pinned point per frame: 0 none, 1 the heel (ankle), 2 the toe (pins.ts). */
  pin: Uint8Array;
  /** The pin runs (pins.ts): which point, its anchor and where it came from. */
  runs: PinRun[];
  /** The toe point pinned: the rig's toe joint, or a virtual toe at `toeOffset` in the foot bone's frame (toePoint.ts). */
  toePoint: 'joint' | 'virtual';
  toeOffset: [number, number, number] | null;
}

/** The transitions' settings at this take's rate and leg, and what the joint-step check found. */
export interface TransitionStats {
  /** Shortest blend, seconds, and the ramp frames it gives at this rate. */
  blendSeconds: number;
  rampFrames: number;
  /** The correction's speed limit, m/s (scaled with the leg), and per frame, metres. */
  maxCorrectionSpeed: number;
  stepLimit: number;
  /** The bound per frame beyond the source's motion, metres. */
  maxJointStep: number;
  /** Guard and review distances, metres (scaled with the leg). */
  maxContactTravel: number;
  reviewJointShift: number;
  /** Per foot: frames whose weight the joint-step check lowered. */
  eased: Record<FootName, number>;
  /** Per foot: the largest step of a leg joint beyond the source's at a frame, metres, after cleanup. */
  maxStepExcess: Record<FootName, number>;
}

/**
 * The result of {@link cleanupClip}: the cleaned clip, per foot what was done and measured, the floor, the
 * ground levels, the review list and the IK limits.
 */
export interface CleanupResult {
  /** The cleaned clip (new arrays; same skeleton object, frame count and frame time). */
  clip: Clip;
  feet: { left: FootCleanup; right: FootCleanup };
  /** The floor used (normal made unit). */
  floor: FloorEstimate;
  /** Review ranges of both feet, with their reasons, sorted by start. */
  review: (ReviewRange & { foot: FootName })[];
  /** Both feet's short contact pieces (not fixed), sorted by start. */
  short: (FrameRange & { foot: FootName })[];
  metrics: { before: Record<FootName, FootMetrics>; after: Record<FootName, FootMetrics> };
  ik: Record<FootName, FootIkStats>;
  /** Frame ranges where IK hit a limit or the foot left its pin. */
  limits: LimitRange[];
  /** Mean rest hip-to-ankle leg length, metres, and `scale = legLength / 0.9`. */
  legLength: number;
  scale: number;
  /** Root correction applied: frames moved and the largest offset, metres. */
  root: { frames: number; maxOffset: number };
  /** The ground levels the segments stand on (ground.ts); penetration is measured against them. */
  ground: GroundModel;
  transitions: TransitionStats;
}

export type { FootIkStats, JointRotationStats, LimitRange } from './legStats';

const FEET: readonly FootName[] = ['left', 'right'];

/**
 * Clean one clip (see the module doc).
 * @throws CleanupError on a clip of fewer than 2 frames, probability arrays of the wrong length or with
 *   values outside [0, 1] (names the foot and frame), a bad floor, or a skeleton without thigh, shin or
 *   foot in its humanoid map (names the foot and the bone).
 */
export function cleanupClip(input: CleanupInput, options: CleanupOptions = {}): CleanupResult {
  const { clip } = input;
  const F = clip.frameCount;
  if (F < 2) throw new CleanupError(`clip '${clip.name}': ${F} frame(s); cleanup needs at least 2`);
  const floor = checkFloor(input.floor);
  const skel = clip.skeleton;
  const bones = { left: legBones(skel, 'left'), right: legBones(skel, 'right') };
  const legLength = restLegLength(skel, bones);
  if (!(legLength > 0)) throw new CleanupError(`clip '${clip.name}': the legs have zero rest length`);
  const scale = legLength / REFERENCE_LEG_LENGTH;
  const set = settingsAt(options, scale, clip.frameTime);
  const { thresholds, stepTolerance, rootCap, rootStep, popMargin } = set;
  const { blendSeconds, rampFrames, maxJointStep, speed, stepLimit, maxTravel, reviewShift } = set;

  const before = legTracks(clip, bones);
  const feet = {} as Record<FootName, FootCleanup>;
  const toeBefore = {} as Record<FootName, Float64Array | null>;
  const toeOffset = input.points
    ? virtualToeOffsets(clip, bones, legLength, floor.normal)
    : { left: null, right: null };
  const channels = {} as Record<FootName, FootChannels>;
  for (const foot of FEET) {
    const pts = input.points?.[foot];
    const toePoint = !pts ? null : (before[foot].toe ?? toePointTrack(clip, bones[foot], toeOffset[foot]));
    toeBefore[foot] = toePoint;
    channels[foot] = footChannels(
      foot,
      input.probabilities[foot],
      pts,
      before[foot],
      toePoint,
      F,
      clip.frameTime,
      floor,
      stepTolerance,
      options,
    );
  }
  // the guards and the transitions see the pinned point (ankle or toe) in the stance anchor's frame
  const pinned = {} as Record<FootName, LegTrack>;
  for (const foot of FEET) pinned[foot] = pinnedTrack(before[foot], toeBefore[foot], channels[foot].plan);
  const { found, jumps } = findContacts(channels, before, pinned, floor, set);
  const {
    plans,
    ground,
    review: planReview,
  } = planOnGround(
    before,
    floor,
    stepTolerance,
    { left: found.left.guarded.segments, right: found.right.guarded.segments },
    (foot, segments) =>
      planTransitions({
        track: pinned[foot],
        segments,
        floor,
        jump: jumps[foot],
        rampFrames,
        stepLimit,
        minFrames: found[foot].seg.minFrames,
        speedText: `${speed.toFixed(2)} m/s`,
      }),
  );
  for (const foot of FEET)
    feet[foot] = footCleanup(
      input.probabilities[foot],
      found[foot],
      channels[foot],
      plans[foot],
      planReview[foot],
      toeOffset[foot],
      bones[foot].toe >= 0,
      options,
    );

  const out: Clip = {
    name: clip.name,
    skeleton: skel,
    frameCount: F,
    frameTime: clip.frameTime,
    rotations: clip.rotations.slice(),
    translations: clip.translations.slice(),
  };
  const legs = FEET.map((foot) =>
    pinLeg(
      clip,
      bones[foot],
      before[foot],
      feet[foot],
      plans[foot],
      !!input.points,
      toeOffset[foot],
      options.stretchMargin,
    ),
  ) as [PinLeg, PinLeg];
  const rootWeight = options.rootCorrection
    ? doubleSupportWeights(feet.left.contact, feet.right.contact, Math.ceil((1.5 * rootCap) / rootStep))
    : null;
  const pinner = new FootPinner(clip, out, legs, floor, rootWeight, rootCap);
  pinner.planRootOffsets(rootStep);
  for (let f = 0; f < F; f++) pinner.apply(f);
  const rootFrames = pinner.rootStats[0];
  const rootMax = pinner.rootStats[1];
  const after = legTracks(out, bones);
  const steps = checkSteps(clip, out, bones, before, after, feet, plans, legs, pinner, set);
  const limitKind = { left: legs[0].limitKind, right: legs[1].limitKind };
  const pinError = { left: legs[0].pinError, right: legs[1].pinError };

  // report
  const metricsBefore = {} as Record<FootName, FootMetrics>;
  const metricsAfter = {} as Record<FootName, FootMetrics>;
  const ik = {} as Record<FootName, FootIkStats>;
  const limits: LimitRange[] = [];
  for (const foot of FEET) {
    const c = feet[foot].contact;
    const fg = footGround(ground, foot, feet[foot].segments, F);
    const tb = toeBefore[foot];
    const ta = tb && (after[foot].toe ?? toePointTrack(out, bones[foot], toeOffset[foot]));
    const pin = feet[foot].pin;
    const { frameTime } = clip;
    const toeB = tb ? { pin, toe: tb } : undefined;
    const toeA = ta ? { pin, toe: ta } : undefined;
    metricsBefore[foot] = footMetrics(before[foot], c, floor, frameTime, scale, thresholds, fg, toeB);
    metricsAfter[foot] = footMetrics(after[foot], c, floor, frameTime, scale, thresholds, fg, toeA);
    const w = feet[foot].weight;
    ik[foot] = ikStats(clip, out, bones[foot], before[foot], after[foot], w, popMargin, jumps[foot]);
    limits.push(...limitRanges(foot, limitKind[foot], pinError[foot]));
  }
  limits.sort((a, b) => a.start - b.start);
  const review = FEET.flatMap((foot) => feet[foot].review.map((r) => ({ foot, ...r }))).sort(
    (a, b) => a.start - b.start,
  );
  const short = FEET.flatMap((foot) => feet[foot].short.map((r) => ({ foot, ...r }))).sort(
    (a, b) => a.start - b.start,
  );
  return {
    clip: out,
    feet,
    floor,
    review,
    short,
    metrics: { before: metricsBefore, after: metricsAfter },
    ik,
    limits,
    legLength,
    scale,
    root: { frames: rootFrames, maxOffset: rootMax },
    ground,
    transitions: {
      blendSeconds,
      rampFrames,
      maxCorrectionSpeed: speed,
      stepLimit,
      maxJointStep,
      maxContactTravel: maxTravel,
      reviewJointShift: reviewShift,
      eased: { left: steps.eased[0], right: steps.eased[1] },
      maxStepExcess: { left: steps.maxExcess[0], right: steps.maxExcess[1] },
    },
  };
}

/** The options at this take's leg scale and frame time (metres, frames); checks them. */
function settingsAt(options: CleanupOptions, scale: number, frameTime: number) {
  const blendSeconds =
    options.blendSeconds ??
    (options.blendFrames60 !== undefined ? (options.blendFrames60 + 1) / 60 : DEFAULT_BLEND_SECONDS);
  const maxJointStep = (options.maxJointStep ?? DEFAULT_MAX_JOINT_STEP) * Math.min(1, scale);
  const speed = (options.maxCorrectionSpeed ?? DEFAULT_MAX_CORRECTION_SPEED) * scale;
  const set = {
    thresholds: { ...DEFAULT_THRESHOLDS, ...options.thresholds },
    blendSeconds,
    rampFrames: rampFramesFor(blendSeconds, frameTime),
    maxJointStep,
    speed,
    stepLimit: Math.min(speed * frameTime, 0.8 * maxJointStep),
    maxTravel: (options.maxContactTravel ?? 0.3) * scale,
    reviewShift: (options.reviewJointShift ?? 0.15) * scale,
    stepTolerance: (options.stepTolerance ?? 0.03) * scale,
    rootCap: (options.rootMaxOffset ?? 0.03) * scale,
    rootStep: (options.rootMaxStep ?? 0.003) * scale * Math.max(1e-9, frameTime * 60),
    popMargin: (options.kneePopMargin60 ?? 5) * Math.max(1, 60 * frameTime),
    maxStep: (options.maxFootSpeed ?? 10) * scale * frameTime,
  };
  if (!(blendSeconds >= 0) || !(set.stepLimit > 0) || !(set.maxTravel > 0) || !(set.reviewShift > 0))
    throw new CleanupError(
      'options: blendSeconds must be >= 0; maxCorrectionSpeed, maxJointStep, maxContactTravel and reviewJointShift > 0',
    );
  return set;
}

/**
 * Per foot: the stances of its contact channels (./channels.ts: the union of heel and toe, or the foot's
 * own contacts without them), cut by the travel guard (guards.ts), and the frames where the source
 * ankle jumps.
 */
function findContacts(
  channels: Record<FootName, FootChannels>,
  before: Record<FootName, LegTrack>,
  pinned: Record<FootName, LegTrack>,
  floor: FloorEstimate,
  set: ReturnType<typeof settingsAt>,
): {
  found: Record<FootName, { seg: SegmentResult; guarded: Guarded }>;
  jumps: Record<FootName, Uint8Array>;
} {
  const jumps = {} as Record<FootName, Uint8Array>;
  const found = {} as Record<FootName, { seg: SegmentResult; guarded: Guarded }>;
  for (const foot of FEET) {
    const seg = channels[foot].foot;
    const tr = pinned[foot];
    const stances = channels[foot].plan.stances;
    // a stance the guard leaves whole keeps its anchor (its first heel run's); a piece is anchored again
    const guarded = splitTravellingSegments(
      tr,
      stances,
      floor,
      set.maxTravel,
      seg.minFrames,
      (r) =>
        stances.find((s) => s.start === r.start && s.end === r.end) ??
        segmentAnchor(tr, r, floor, set.stepTolerance),
    );
    jumps[foot] = jumpFrames(before[foot].ankle, set.maxStep);
    found[foot] = { seg, guarded };
  }
  return { found, jumps };
}

/**
 * One leg's inputs to {@link FootPinner}: its rows, weights, ramps, hinge and solver. With heel and toe
 * channels the rows are the pin runs (pins.ts), each standing on the ground of the kept contact it lies
 * in, and every frame with a weight uses the run over it or, on a ramp or where a contact was cut, the
 * nearest run; without them the rows are the contact segments (the ankle pinned, as before issue 20).
 */
function pinLeg(
  clip: Clip,
  bones: LegBones,
  before: LegTrack,
  foot: FootCleanup,
  plan: TransitionPlan,
  points: boolean,
  toeOffset: Float64Array | null,
  stretchMargin: number | undefined,
): PinLeg {
  const F = clip.frameCount;
  const segment = plan.segment.slice();
  let rows: {
    anchor: ArrayLike<number>;
    height: number;
    ground: number;
    lift: number;
    toe: boolean;
    heading?: ArrayLike<number> | null;
  }[];
  if (!points) {
    rows = plan.segments.map((s) => ({ ...s, height: s.ankleHeight, toe: false }));
  } else {
    const kept = plan.segments;
    rows = foot.runs.map((r) => {
      const k = kept.find((s) => s.start < r.end && r.start < s.end);
      return { ...r, ground: k ? k.ground : r.ground, toe: r.point === 'toe' };
    });
    const near = nearestRun(foot.runs, F);
    for (let f = 0; f < F; f++) if (segment[f] >= 0) segment[f] = near[f];
  }
  const data = new Float64Array(SEG_STRIDE * rows.length);
  const heading = new Float64Array(3 * rows.length);
  rows.forEach((s, i) => {
    data.set(s.anchor, SEG_STRIDE * i);
    data[SEG_STRIDE * i + 3] = s.height;
    data[SEG_STRIDE * i + 4] = s.ground;
    data[SEG_STRIDE * i + 5] = s.lift;
    data[SEG_STRIDE * i + 6] = s.toe ? 1 : 0;
    if (s.heading) heading.set(s.heading, 3 * i);
  });
  return {
    bones,
    weight: foot.weight,
    segment,
    ramp: plan.ramp,
    offset: plan.offset,
    segments: data,
    heading,
    hinge: hingeAxisLocal(clip, bones, before),
    solver: new LegDLS({ stretchMargin }),
    limitKind: new Uint8Array(F),
    pinError: new Float32Array(F),
    toeOffset,
    pivot: new ToePivot(),
  };
}

/**
 * After the frames are cleaned: the joint-step check (transitions.ts `limitJointSteps`, re-cleaning the
 * frames it eases with `pinner`) and each foot's `jointStep` and `jointShift` review ranges, added to
 * its review list. Updates `after` and the feet's weights in place.
 */
function checkSteps(
  clip: Clip,
  out: Clip,
  bones: Record<FootName, LegBones>,
  before: Record<FootName, LegTrack>,
  after: Record<FootName, LegTrack>,
  feet: Record<FootName, FootCleanup>,
  plans: Record<FootName, TransitionPlan>,
  legs: readonly [PinLeg, PinLeg],
  pinner: FootPinner,
  set: ReturnType<typeof settingsAt>,
): ReturnType<typeof limitJointSteps> {
  const steps = limitJointSteps({
    src: clip,
    out,
    legs: FEET.map((foot) => ({
      foot,
      bones: bones[foot],
      weight: feet[foot].weight,
      corr: plans[foot].corr,
      before: before[foot],
      after: after[foot],
    })),
    bound: set.maxJointStep,
    stepLimit: set.stepLimit,
    apply: (f) => pinner.apply(f),
    resetFrame: (f) => {
      for (const leg of legs) {
        leg.limitKind[f] = 0;
        leg.pinError[f] = 0;
      }
    },
  });
  FEET.forEach((foot, i) => {
    const r = feet[foot].review;
    r.push(...steps.review[i], ...jointShiftRanges(before[foot], after[foot], set.reviewShift, foot));
    r.sort((a, b) => a.start - b.start);
  });
  return steps;
}

/**
 * One foot's {@link FootCleanup} before the frames are cleaned: contacts, segments, weights, review, and
 * its heel and toe channels with the point pinned per frame (0 outside the contacts kept).
 */
function footCleanup(
  probability: ArrayLike<number>,
  found: { seg: SegmentResult; guarded: Guarded },
  ch: FootChannels,
  plan: TransitionPlan,
  planReview: ReviewRange[],
  toeOffset: Float64Array | null,
  toeJoint: boolean,
  options: CleanupOptions,
): FootCleanup {
  const { seg, guarded } = found;
  const band = options.reviewBand ?? [0.45, 0.65];
  const contact = new Uint8Array(probability.length);
  for (const s of plan.segments) contact.fill(1, s.start, s.end);
  const pin = ch.plan.pin.map((p, f) => (contact[f] ? p : 0));
  return {
    probability: Float32Array.from(probability),
    contact,
    segments: plan.segments,
    review: [
      ...seg.review.map((r) => ({
        ...r,
        reason: 'reviewBand' as const,
        detail: `the contact probability stayed in the review band ${band[0]}-${band[1]}: not fixed`,
      })),
      ...guarded.review,
      ...planReview,
    ],
    short: seg.short,
    weight: plan.weight,
    heel: ch.heel,
    toe: ch.toe,
    pin,
    runs: ch.plan.runs,
    toePoint: toeJoint ? 'joint' : 'virtual',
    toeOffset: toeOffset ? [toeOffset[0], toeOffset[1], toeOffset[2]] : null,
  };
}

/** Per frame, the pin run over it, else the nearest one (the earlier on a tie), -1 without runs. */
function nearestRun(runs: readonly PinRun[], F: number): Int32Array {
  const runAt = new Int32Array(F).fill(-1);
  runs.forEach((r, i) => {
    runAt.fill(i, r.start, r.end);
  });
  const prev = new Int32Array(F).fill(-1);
  const next = new Int32Array(F).fill(-1);
  for (let f = 0; f < F; f++) prev[f] = runAt[f] >= 0 ? runAt[f] : f > 0 ? prev[f - 1] : -1;
  for (let f = F - 1; f >= 0; f--) next[f] = runAt[f] >= 0 ? runAt[f] : f + 1 < F ? next[f + 1] : -1;
  const out = new Int32Array(F);
  for (let f = 0; f < F; f++) {
    const p = prev[f];
    const n = next[f];
    out[f] = p < 0 || (n >= 0 && runs[n].start - f < f - (runs[p].end - 1)) ? n : p;
  }
  return out;
}

/**
 * The pinned point's source track in its stance anchor's frame, for the guards and the transitions: per
 * frame, with its pin run r (the nearest, {@link nearestRun}) of stance S, the source point p (ankle on
 * a heel run, toe point on a toe run) shifted by `S.anchor - r.anchor`, so that `S.anchor - P` is the
 * pinned point's own correction `r.anchor - p` (its height rule is the same: minus the lift). Without a
 * toe point (no heel and toe channels) the source track itself.
 */
function pinnedTrack(track: LegTrack, toePoint: Float64Array | null, plan: FootPinPlan): LegTrack {
  if (!toePoint) return track;
  const F = track.ankle.length / 3;
  const near = nearestRun(plan.runs, F);
  const P = Float64Array.from(track.ankle);
  for (let f = 0; f < F; f++) {
    const i = near[f];
    if (i < 0) continue;
    const r = plan.runs[i];
    const S = plan.stances[r.stance];
    const p = r.point === 'toe' ? toePoint : track.ankle;
    for (let k = 0; k < 3; k++) P[3 * f + k] = p[3 * f + k] + S.anchor[k] - r.anchor[k];
  }
  return { ...track, ankle: P };
}

type Guarded = ReturnType<typeof splitTravellingSegments>;

/**
 * The root correction's weight per frame: 0 outside double support (frames where both `left` and `right`
 * contact masks are 1), and inside each double-support run [a, b) a smoothstep ramp up from its start and
 * down to its end over `ramp` frames (`w = smoothstep(min(1, (f - a + 1) / (ramp + 1), (b - f) / (ramp + 1)))`),
 * so the hips offset fades in and out within the run: its change per frame from the ramp is at most
 * 1.5 / (ramp + 1) of the cap.
 */
export function doubleSupportWeights(left: Uint8Array, right: Uint8Array, ramp: number): Float32Array {
  const F = left.length;
  const w = new Float32Array(F);
  let f = 0;
  while (f < F) {
    if (!(left[f] && right[f])) {
      f++;
      continue;
    }
    const a = f;
    while (f < F && left[f] && right[f]) f++;
    const b = f;
    for (let g = a; g < b; g++)
      w[g] = smoothstep(Math.min(1, (g - a + 1) / (ramp + 1), (b - g) / (ramp + 1)));
  }
  return w;
}
