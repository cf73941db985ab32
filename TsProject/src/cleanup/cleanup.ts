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
 * height above the floor minus the segment's `lift` (so the foot stands on the segment's ground level),
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
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones as H,
  qcopy,
  qmul,
  qmulByConj,
  qmulConj,
  vrotate,
  vrotateConj,
} from '../core';
import { LegDLS } from '../ik/dls';
import { type SegmentAnchor, segmentAnchor } from './anchors';
import { checkFloor } from './floor';
import { footGround, type GroundModel } from './ground';
import { jointShiftRanges, splitTravellingSegments } from './guards';
import { type FootIkStats, hingeAxisLocal, ikStats, type LimitRange, limitRanges } from './legStats';
import { DEFAULT_THRESHOLDS, type FootMetrics, footMetrics, type MetricThresholds } from './metrics';
import { contactSegments, type SegmentOptions, smoothstep } from './segments';
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
  /** A segment whose ground is within this of the floor stands on the floor; metres at a 0.9 m leg (scaled). Default 0.03. */
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

export interface CleanupInput {
  clip: Clip;
  /** Contact probability per frame per foot, in [0, 1], length = frame count. */
  probabilities: { left: ArrayLike<number>; right: ArrayLike<number> };
  /** The floor in the clip's world frame (its normal is "up"). */
  floor: FloorEstimate;
}

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

// scratch quaternion slots (offsets into q)
const DH = 0; // thigh delta, weighted
const DK = 4; // knee delta (shin delta * inverse thigh delta), weighted
const SD = 8; // shin delta, weighted
const T0 = 12;
const T1 = 16;
const WGT = 20; // weight
const QLEN = 24;

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
  const { found, jumps } = findContacts(input, options, before, floor, set);
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
        track: before[foot],
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
    feet[foot] = footCleanup(input.probabilities[foot], found[foot], plans[foot], planReview[foot], options);

  const out: Clip = {
    name: clip.name,
    skeleton: skel,
    frameCount: F,
    frameTime: clip.frameTime,
    rotations: clip.rotations.slice(),
    translations: clip.translations.slice(),
  };
  const legs = FEET.map((foot) =>
    pinLeg(clip, bones[foot], before[foot], feet[foot], plans[foot], options.stretchMargin),
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
    metricsBefore[foot] = footMetrics(before[foot], c, floor, clip.frameTime, scale, thresholds, fg);
    metricsAfter[foot] = footMetrics(after[foot], c, floor, clip.frameTime, scale, thresholds, fg);
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
 * Per foot: the contact segments of its probabilities (segments.ts), cut by the travel guard
 * (guards.ts), and the frames where the source ankle jumps.
 * @throws CleanupError naming the foot for probabilities of the wrong length or out of range.
 */
function findContacts(
  input: CleanupInput,
  options: CleanupOptions,
  before: Record<FootName, LegTrack>,
  floor: FloorEstimate,
  set: ReturnType<typeof settingsAt>,
): {
  found: Record<FootName, { seg: ReturnType<typeof contactSegments>; guarded: Guarded }>;
  jumps: Record<FootName, Uint8Array>;
} {
  const { clip } = input;
  const F = clip.frameCount;
  const jumps = {} as Record<FootName, Uint8Array>;
  const found = {} as Record<FootName, { seg: ReturnType<typeof contactSegments>; guarded: Guarded }>;
  for (const foot of FEET) {
    const p = input.probabilities[foot];
    if (!p || p.length !== F)
      throw new CleanupError(
        `probabilities.${foot}: length ${p?.length} does not match the clip's ${F} frames`,
      );
    let seg: ReturnType<typeof contactSegments>;
    try {
      seg = contactSegments(p, clip.frameTime, options);
    } catch (e) {
      throw new CleanupError(`probabilities.${foot}: ${(e as Error).message}`);
    }
    const tr = before[foot];
    const guarded = splitTravellingSegments(tr, seg.segments, floor, set.maxTravel, seg.minFrames, (r) =>
      segmentAnchor(tr, r, floor, set.stepTolerance),
    );
    jumps[foot] = jumpFrames(tr.ankle, set.maxStep);
    found[foot] = { seg, guarded };
  }
  return { found, jumps };
}

/** One leg's inputs to {@link FootPinner}: its segments' data, weights, ramps, hinge and solver. */
function pinLeg(
  clip: Clip,
  bones: LegBones,
  before: LegTrack,
  foot: FootCleanup,
  plan: TransitionPlan,
  stretchMargin: number | undefined,
): PinLeg {
  const F = clip.frameCount;
  const segs = foot.segments;
  const data = new Float64Array(SEG_STRIDE * segs.length);
  segs.forEach((s, i) => {
    data.set(s.anchor, SEG_STRIDE * i);
    data[SEG_STRIDE * i + 3] = s.ankleHeight;
    data[SEG_STRIDE * i + 4] = s.ground;
    data[SEG_STRIDE * i + 5] = s.lift;
  });
  return {
    bones,
    weight: foot.weight,
    segment: plan.segment,
    ramp: plan.ramp,
    offset: plan.offset,
    segments: data,
    hinge: hingeAxisLocal(clip, bones, before),
    solver: new LegDLS({ stretchMargin }),
    limitKind: new Uint8Array(F),
    pinError: new Float32Array(F),
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

/** One foot's {@link FootCleanup} before the frames are cleaned: contacts, segments, weights, review. */
function footCleanup(
  probability: ArrayLike<number>,
  found: { seg: ReturnType<typeof contactSegments>; guarded: Guarded },
  plan: TransitionPlan,
  planReview: ReviewRange[],
  options: CleanupOptions,
): FootCleanup {
  const { seg, guarded } = found;
  const band = options.reviewBand ?? [0.45, 0.65];
  const contact = new Uint8Array(probability.length);
  for (const s of plan.segments) contact.fill(1, s.start, s.end);
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
  };
}

type Guarded = ReturnType<typeof splitTravellingSegments>;

/** Per-segment data in {@link PinLeg.segments}: anchor xyz, ankleHeight, ground, lift. */
const SEG_STRIDE = 6;

/** One leg's per-frame inputs and outputs for {@link FootPinner} (all arrays owned, set up once). */
export interface PinLeg {
  bones: LegBones;
  /** Correction weight per frame. */
  weight: Float32Array;
  /** Segment index per frame (-1 where the weight is 0). */
  segment: Int32Array;
  /**
   * Per frame, 1 on ramp and bridge frames (transitions.ts): their target is the source ankle plus
   * `offset`, not the segment's anchor. Absent: every frame with a weight uses its segment's anchor.
   */
  ramp?: Uint8Array;
  /** World offset of the ankle's target on ramp frames, metres, 3 per frame. */
  offset?: Float64Array;
  /** `Float64Array(6 * segments)`: anchor x, y, z, ankle height, ground, lift per segment. */
  segments: Float64Array;

  /** The knee's bend axis in the thigh's frame (used when a source leg is straight). */
  hinge: Float64Array;
  solver: LegDLS;
  /** Per frame: 0, 1 = out of reach (the foot left the pin), 2 = knee on a limit. */
  limitKind: Uint8Array;
  /** Per frame: distance of the full-weight solved ankle from its target, metres. */
  pinError: Float32Array;
}

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

/**
 * The per-frame step of {@link cleanupClip}: reads frame f of the source clip, applies the optional root
 * correction and both legs' weighted DLS correction, and writes the changed local values into the
 * output clip. Allocates nothing per call (all scratch is owned here and by the solvers).
 */
export class FootPinner {
  /** `[frames with a root offset, largest offset (metres)]`. */
  readonly rootStats = new Float64Array(2);
  private readonly rot: Float64Array;
  private readonly pos: Float64Array;
  private readonly wr: Float64Array;
  private readonly wp: Float64Array;
  private readonly q = new Float64Array(QLEN);
  private readonly target = new Float64Array(3);
  private readonly axis = new Float64Array(3);
  private readonly vec = new Float64Array(3);
  private readonly nrm: Float64Array;
  private readonly hips: number;

  constructor(
    private readonly src: Clip,
    private readonly out: Clip,
    private readonly legs: readonly [PinLeg, PinLeg],
    private readonly floor: FloorEstimate,
    /** Per frame, the root correction's weight (0 outside double support), or null: no root correction. */
    private readonly rootWeight: Float32Array | null,
    private readonly rootCap: number,
  ) {
    const n = src.skeleton.boneCount;
    this.rot = new Float64Array(4 * n);
    this.pos = new Float64Array(3 * n);
    this.wr = new Float64Array(4 * n);
    this.wp = new Float64Array(3 * n);
    this.nrm = Float64Array.from(floor.normal);
    this.hips = Math.max(src.skeleton.humanoid[H.Hips], 0);
  }

  /**
   * Plan the root correction of every frame (before the frames are cleaned): per frame with a root weight,
   * the mean horizontal error of both source ankles toward their anchors, capped at `rootCap` and scaled by
   * the weight (the fade in and out of each double support); then the offset's change from frame to frame
   * is limited to `maxStep` per axis of the world, by one pass forward and one backward (each frame is
   * clamped to within `maxStep` of its neighbour already placed, and the runs start and end at 0), so the
   * hips follow the source's error without jitter and never snap. Set-up code: allocates `3 * frames` doubles.
   */
  planRootOffsets(maxStep: number): void {
    const w = this.rootWeight;
    if (!w) return;
    const F = this.src.frameCount;
    const n = this.src.skeleton.boneCount;
    const { rot, pos, wr, wp, vec, nrm } = this;
    const off = new Float64Array(3 * F);
    for (let f = 0; f < F; f++) {
      if (!(w[f] > 0)) continue;
      const ro = 4 * f * n;
      const to = 3 * f * n;
      for (let k = 0; k < 4 * n; k++) rot[k] = this.src.rotations[ro + k];
      for (let k = 0; k < 3 * n; k++) pos[k] = this.src.translations[to + k];
      forwardKinematics(this.src.skeleton, rot, pos, wr, wp);
      vec[0] = vec[1] = vec[2] = 0;
      for (let side = 0; side < 2; side++) {
        const leg = this.legs[side];
        const a = SEG_STRIDE * leg.segment[f];
        const e = 3 * leg.bones.end;
        for (let k = 0; k < 3; k++) vec[k] += 0.5 * (leg.segments[a + k] - wp[e + k]);
      }
      const v = vec[0] * nrm[0] + vec[1] * nrm[1] + vec[2] * nrm[2];
      for (let k = 0; k < 3; k++) vec[k] -= v * nrm[k];
      const raw = Math.sqrt(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
      const s = (raw > this.rootCap ? this.rootCap / raw : 1) * w[f];
      for (let k = 0; k < 3; k++) off[3 * f + k] = vec[k] * s;
    }
    const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));
    for (let k = 0; k < 3; k++) {
      for (let f = 0; f < F; f++) {
        const prev = f > 0 ? off[3 * (f - 1) + k] : 0;
        off[3 * f + k] = w[f] > 0 ? clamp(off[3 * f + k], prev - maxStep, prev + maxStep) : 0;
      }
      for (let f = F - 1; f >= 0; f--) {
        const next = f + 1 < F ? off[3 * (f + 1) + k] : 0;
        off[3 * f + k] = w[f] > 0 ? clamp(off[3 * f + k], next - maxStep, next + maxStep) : 0;
      }
    }
    this.rootOffset = off;
  }

  /** Per frame, the planned hips offset (world metres, 3 per frame), or null without root correction. */
  private rootOffset: Float64Array | null = null;

  /** Clean frame f (nothing happens where both weights are 0). */
  apply(f: number): void {
    const { src, out, rot, pos, wr, wp, q, target, axis, vec, nrm } = this;
    const skel = src.skeleton;
    const n = skel.boneCount;
    const wL = this.legs[0].weight[f];
    const wR = this.legs[1].weight[f];
    if (wL === 0 && wR === 0) return;
    const ro = 4 * f * n;
    const to = 3 * f * n;
    for (let k = 0; k < 4 * n; k++) rot[k] = src.rotations[ro + k];
    for (let k = 0; k < 3 * n; k++) pos[k] = src.translations[to + k];
    forwardKinematics(skel, rot, pos, wr, wp);
    const fd = this.floor.d;

    const ro3 = this.rootOffset;
    if (ro3 && (ro3[3 * f] !== 0 || ro3[3 * f + 1] !== 0 || ro3[3 * f + 2] !== 0)) {
      // the hips' offset planned by planRootOffsets (world, horizontal, capped, rate-limited)
      for (let k = 0; k < 3; k++) vec[k] = ro3[3 * f + k];
      const len = Math.sqrt(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
      const hips = this.hips;
      const hp = skel.parents[hips];
      if (hp >= 0) vrotateConj(vec, 0, wr, 4 * hp, vec, 0);
      for (let k = 0; k < 3; k++) pos[3 * hips + k] += vec[k];
      for (let k = 0; k < 3; k++) out.translations[to + 3 * hips + k] = pos[3 * hips + k];
      forwardKinematics(skel, rot, pos, wr, wp);
      this.rootStats[0]++;
      if (len > this.rootStats[1]) this.rootStats[1] = len;
    }

    for (let side = 0; side < 2; side++) {
      const leg = this.legs[side];
      const w = side === 0 ? wL : wR;
      if (w === 0) continue;
      const b = leg.bones;
      const sd = leg.segments;
      const so = SEG_STRIDE * leg.segment[f];
      const e3 = 3 * b.end;
      if (leg.ramp !== undefined && leg.offset !== undefined && leg.ramp[f] === 1) {
        // ramp or bridge: the contact edge's correction carried on the source (transitions.ts)
        for (let k = 0; k < 3; k++) target[k] = wp[e3 + k] + leg.offset[3 * f + k];
      } else {
        // target: anchor horizontally; source height minus the segment's lift, kept on its ground level
        const lift = sd[so + 5];
        const ground = sd[so + 4];
        let h = nrm[0] * wp[e3] + nrm[1] * wp[e3 + 1] + nrm[2] * wp[e3 + 2] + fd - lift;
        let low = h;
        if (b.toe >= 0) {
          const t3 = 3 * b.toe;
          const ht = nrm[0] * wp[t3] + nrm[1] * wp[t3 + 1] + nrm[2] * wp[t3 + 2] + fd - lift;
          if (ht < low) low = ht;
        }
        if (low < ground) h += ground - low;
        const dh = h - sd[so + 3];
        for (let k = 0; k < 3; k++) target[k] = sd[so + k] + nrm[k] * dh;
      }
      vrotate(axis, 0, wr, 4 * b.upper, leg.hinge, 0);
      const dls = leg.solver;
      dls.solve(wp, 3 * b.upper, wp, 3 * b.lower, wp, e3, target, 0, axis, 0);
      const r = dls.report;
      if (r.outOfReach) leg.limitKind[f] = 1;
      else if (r.kneeAtLimit) leg.limitKind[f] = 2;
      leg.pinError[f] = r.pinError;
      // weighted deltas: DH = slerp(I, thigh, w), DK = slerp(I, shin * thigh^-1, w), SD = DK * DH
      q[WGT] = w;
      qcopy(q, DH, dls.thighDelta, 0);
      powUnit(q, DH, WGT);
      qmulByConj(q, DK, dls.shinDelta, 0, dls.thighDelta, 0);
      powUnit(q, DK, WGT);
      qmul(q, SD, q, DK, q, DH);
      // thigh local = parentWorld^-1 * DH * thighWorld
      const u4 = 4 * b.upper;
      qmul(q, T0, q, DH, wr, u4);
      const pu = skel.parents[b.upper];
      if (pu >= 0) qmulConj(rot, u4, wr, 4 * pu, q, T0);
      else qcopy(rot, u4, q, T0);
      // shin local = (DH * parentWorld)^-1 * SD * shinWorld
      const l4 = 4 * b.lower;
      qmul(q, T0, q, DH, wr, 4 * skel.parents[b.lower]);
      qmul(q, T1, q, SD, wr, l4);
      qmulConj(rot, l4, q, T0, q, T1);
      // foot local = (SD * parentWorld)^-1 * footWorld (the source world rotation is kept)
      const f4 = 4 * b.end;
      qmul(q, T0, q, SD, wr, 4 * skel.parents[b.end]);
      qmulConj(rot, f4, q, T0, wr, f4);
      for (let k = 0; k < 4; k++) {
        out.rotations[ro + u4 + k] = rot[u4 + k];
        out.rotations[ro + l4 + k] = rot[l4 + k];
        out.rotations[ro + f4 + k] = rot[f4 + k];
      }
    }
  }
}

/**
 * q[o] := slerp(identity, q[o], q[wo]) for a unit quaternion (shortest path; the weight is read from
 * the array so no double is passed to the call).
 */
function powUnit(q: Float64Array, o: number, wo: number): void {
  let x = q[o];
  let y = q[o + 1];
  let z = q[o + 2];
  let w = q[o + 3];
  if (w < 0) {
    x = -x;
    y = -y;
    z = -z;
    w = -w;
  }
  const t = q[wo];
  const s = Math.sqrt(x * x + y * y + z * z);
  if (s < 1e-12 || t === 1) {
    q[o] = x;
    q[o + 1] = y;
    q[o + 2] = z;
    q[o + 3] = w;
    return;
  }
  const half = Math.atan2(s, w) * t;
  const k = Math.sin(half) / s;
  q[o] = x * k;
  q[o + 1] = y * k;
  q[o + 2] = z * k;
  q[o + 3] = Math.cos(half);
}
