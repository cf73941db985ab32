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
 * Blending (point 7): the weight w (1 inside a segment, smoothstep ramps of `blendFrames60` frames at
 * 60 fps before each start and after each end, segments.ts) scales the correction: the solved thigh and
 * knee rotation deltas `D` become `slerp(identity, D, w)` (shortest path), so w = 0 leaves the leg bit
 * for bit and w = 1 pins it. A ramp never crosses a jump of the source ankle (a step faster than
 * `maxFootSpeed`, e.g. a T-pose frame 0 standing metres away, or a cut): from that frame outward the
 * weight is 0, so such a frame is never pulled toward an anchor. Frames with w = 0 on both feet are not touched at all (their local
 * rotations and translations stay bit-equal to the input).
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
 * contact frame, as before.
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
import type { SegmentAnchor } from './anchors';
import { footChannels, type PointChannel } from './channels';
import { checkFloor } from './floor';
import { footGround, type GroundModel, settleOnGround } from './ground';
import { type FootIkStats, ikStats } from './ikStats';
import { DEFAULT_THRESHOLDS, type FootMetrics, footMetrics, type MetricThresholds } from './metrics';
import { type PinRun, runOfFrames } from './pins';
import { framesAtRate, type SegmentOptions, segmentWeights, smoothstep } from './segments';
import { ToePivot } from './toePivot';
import { toePointAt, toePointTrack, virtualToeOffsets } from './toePoint';
import { type LegBones, type LegTrack, legBones, legTracks, restLegLength } from './tracks';
import {
  CleanupError,
  type FloorEstimate,
  type FootName,
  type FrameRange,
  REFERENCE_LEG_LENGTH,
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
  /** Blend ramp length in frames at 60 fps (scaled with the rate). Default 4. */
  blendFrames60?: number;
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
  /**
   * Heel (ankle joint) and toe (toe point) contact probability per frame per foot, in [0, 1], length =
   * frame count (src/contact `heelToeProbabilities`). Optional: without it the ankle is pinned on every
   * contact frame of `probabilities` (before issue 20).
   */
  points?: Record<FootName, { heel: ArrayLike<number>; toe: ArrayLike<number> }>;
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
  /** Ranges left for review (not fixed). */
  review: FrameRange[];
  /** Contact pieces too short to pin (segments.ts step 4): detected, not fixed. */
  short: FrameRange[];
  /** Correction weight per frame (segments.ts `segmentWeights`). */
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

export type { FootIkStats, JointRotationStats } from './ikStats';

export interface LimitRange extends FrameRange {
  foot: FootName;
  /** 'outOfReach': the anchor was beyond the allowed hip-ankle distance, the foot left the pin. */
  kind: 'outOfReach' | 'kneeLimit';
  /** Largest distance of the solved ankle from its target over the range, metres (full weight). */
  maxPinError: number;
}

export interface CleanupResult {
  /** The cleaned clip (new arrays; same skeleton object, frame count and frame time). */
  clip: Clip;
  feet: { left: FootCleanup; right: FootCleanup };
  /** The floor used (normal made unit). */
  floor: FloorEstimate;
  /** Review ranges of both feet. */
  review: (FrameRange & { foot: FootName })[];
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
}

const FEET: readonly FootName[] = ['left', 'right'];

// scratch quaternion slots (offsets into q)
const DH = 0; // thigh delta, weighted
const DK = 4; // knee delta (shin delta * inverse thigh delta), weighted
const SD = 8; // shin delta, weighted
const T0 = 12;
const T1 = 16;
const WGT = 20; // weight
const DF = 24; // foot world delta (toe pivot), weighted
const QLEN = 28;

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
  const thresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds };
  const blend = framesAtRate(options.blendFrames60 ?? 4, clip.frameTime, 1);
  const stepTolerance = (options.stepTolerance ?? 0.03) * scale;
  const rootCap = (options.rootMaxOffset ?? 0.03) * scale;
  const rootStep = (options.rootMaxStep ?? 0.003) * scale * Math.max(1e-9, clip.frameTime * 60);
  const popMargin = (options.kneePopMargin60 ?? 5) * Math.max(1, 60 * clip.frameTime);
  const maxStep = (options.maxFootSpeed ?? 10) * scale * clip.frameTime;

  const before = legTracks(clip, bones);
  const feet = {} as Record<FootName, FootCleanup>;
  const segIndex = {} as Record<FootName, Int32Array>;
  const toeBefore = {} as Record<FootName, Float64Array | null>;
  const toeOffset = input.points
    ? virtualToeOffsets(clip, bones, legLength, floor.normal)
    : { left: null, right: null };
  for (const foot of FEET) {
    const pts = input.points?.[foot];
    const toePoint = !pts ? null : (before[foot].toe ?? toePointTrack(clip, bones[foot], toeOffset[foot]));
    toeBefore[foot] = toePoint;
    const ch = footChannels(
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
    const anchors = ch.plan.stances;
    const contact = new Uint8Array(F);
    for (const s of anchors) contact.fill(1, s.start, s.end);
    const { weight, segment } = segmentWeights(anchors, F, blend);
    cutRampsAtJumps(weight, segment, anchors, before[foot].ankle, maxStep);
    const off = toeOffset[foot];
    feet[foot] = {
      probability: Float32Array.from(input.probabilities[foot]),
      contact,
      segments: anchors,
      review: ch.foot.review,
      short: ch.foot.short,
      weight,
      heel: ch.heel,
      toe: ch.toe,
      pin: ch.plan.pin,
      runs: ch.plan.runs,
      toePoint: bones[foot].toe >= 0 ? 'joint' : 'virtual',
      toeOffset: off ? [off[0], off[1], off[2]] : null,
    };
    segIndex[foot] = runOfFrames(ch.plan, segment);
  }
  // every segment stands on its local ground: its own level, or the plane several segments agree on
  const ground = settleOnGround(
    { left: feet.left.segments, right: feet.right.segments },
    before,
    floor,
    stepTolerance,
  );
  // the pin runs stand on their stance's ground as settled
  for (const foot of FEET) for (const r of feet[foot].runs) r.ground = feet[foot].segments[r.stance].ground;

  const out: Clip = {
    name: clip.name,
    skeleton: skel,
    frameCount: F,
    frameTime: clip.frameTime,
    rotations: clip.rotations.slice(),
    translations: clip.translations.slice(),
  };
  const legs = FEET.map((foot) => {
    const runs = feet[foot].runs;
    const data = new Float64Array(SEG_STRIDE * runs.length);
    runs.forEach((s, i) => {
      data.set(s.anchor, SEG_STRIDE * i);
      data[SEG_STRIDE * i + 3] = s.height;
      data[SEG_STRIDE * i + 4] = s.ground;
      data[SEG_STRIDE * i + 5] = s.lift;
      data[SEG_STRIDE * i + 6] = s.point === 'toe' ? 1 : 0;
    });
    return {
      bones: bones[foot],
      weight: feet[foot].weight,
      segment: segIndex[foot],
      segments: data,
      hinge: hingeAxisLocal(clip, bones[foot], before[foot]),
      solver: new LegDLS({ stretchMargin: options.stretchMargin }),
      limitKind: new Uint8Array(F),
      pinError: new Float32Array(F),
      toeOffset: toeOffset[foot],
      pivot: new ToePivot(),
    };
  }) as [PinLeg, PinLeg];
  const rootWeight = options.rootCorrection
    ? doubleSupportWeights(feet.left.contact, feet.right.contact, Math.ceil((1.5 * rootCap) / rootStep))
    : null;
  const pinner = new FootPinner(clip, out, legs, floor, rootWeight, rootCap);
  pinner.planRootOffsets(rootStep);
  for (let f = 0; f < F; f++) pinner.apply(f);
  const limitKind = { left: legs[0].limitKind, right: legs[1].limitKind };
  const pinError = { left: legs[0].pinError, right: legs[1].pinError };
  const rootFrames = pinner.rootStats[0];
  const rootMax = pinner.rootStats[1];

  // report
  const after = legTracks(out, bones);
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
    metricsBefore[foot] = footMetrics(
      before[foot],
      c,
      floor,
      clip.frameTime,
      scale,
      thresholds,
      fg,
      tb ? { pin, toe: tb } : undefined,
    );
    metricsAfter[foot] = footMetrics(
      after[foot],
      c,
      floor,
      clip.frameTime,
      scale,
      thresholds,
      fg,
      ta ? { pin, toe: ta } : undefined,
    );
    const a = before[foot].ankle;
    const jump = new Uint8Array(F);
    for (let f = 1; f < F; f++)
      jump[f] =
        Math.hypot(a[3 * f] - a[3 * f - 3], a[3 * f + 1] - a[3 * f - 2], a[3 * f + 2] - a[3 * f - 1]) >
        maxStep
          ? 1
          : 0;
    ik[foot] = ikStats(clip, out, bones[foot], before[foot], after[foot], feet[foot].weight, popMargin, jump);
    let start = -1;
    for (let f = 0; f <= F; f++) {
      const k = f < F ? limitKind[foot][f] : 0;
      if (start >= 0 && (k !== limitKind[foot][start] || f === F)) {
        let m = 0;
        for (let t = start; t < f; t++) m = Math.max(m, pinError[foot][t]);
        limits.push({
          foot,
          start,
          end: f,
          kind: limitKind[foot][start] === 1 ? 'outOfReach' : 'kneeLimit',
          maxPinError: m,
        });
        start = -1;
      }
      if (start < 0 && k !== 0) start = f;
    }
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
  };
}

/**
 * Stop every blend ramp at a jump of the source ankle: walking outward from a segment's first (last)
 * frame, the first step longer than `maxStep` metres and every ramp frame beyond it get weight 0 and
 * segment -1. Set-up time; edits `weight` and `segment` in place.
 */
function cutRampsAtJumps(
  weight: Float32Array,
  segment: Int32Array,
  segments: readonly FrameRange[],
  ankle: Float64Array,
  maxStep: number,
): void {
  const step = (a: number, b: number) =>
    Math.hypot(
      ankle[3 * a] - ankle[3 * b],
      ankle[3 * a + 1] - ankle[3 * b + 1],
      ankle[3 * a + 2] - ankle[3 * b + 2],
    );
  const F = weight.length;
  segments.forEach((s, i) => {
    let cut = false;
    for (let t = s.start - 1; t >= 0 && segment[t] === i; t--) {
      if (!cut && step(t, t + 1) > maxStep) cut = true;
      if (cut) {
        weight[t] = 0;
        segment[t] = -1;
      }
    }
    cut = false;
    for (let t = s.end; t < F && segment[t] === i; t++) {
      if (!cut && step(t - 1, t) > maxStep) cut = true;
      if (cut) {
        weight[t] = 0;
        segment[t] = -1;
      }
    }
  });
}

/** Per-run data in {@link PinLeg.segments}: anchor xyz, anchor height, ground, lift, point (0 heel, 1 toe). */
const SEG_STRIDE = 7;

/** One leg's per-frame inputs and outputs for {@link FootPinner} (all arrays owned, set up once). */
export interface PinLeg {
  bones: LegBones;
  /** Correction weight per frame. */
  weight: Float32Array;
  /** Pin run index per frame (-1 where the weight is 0). */
  segment: Int32Array;
  /**
   * `Float64Array(7 * runs)`: per pin run (pins.ts) anchor x, y, z, anchor height, ground, lift, and the
   * pinned point (0 the ankle, 1 the toe).
   */
  segments: Float64Array;
  /** The knee's bend axis in the thigh's frame (used when a source leg is straight). */
  hinge: Float64Array;
  solver: LegDLS;
  /** Per frame: 0, 1 = out of reach (the foot left the pin), 2 = knee on a limit. */
  limitKind: Uint8Array;
  /** Per frame: distance of the full-weight solved ankle (toe, on a toe pin) from its target, metres. */
  pinError: Float32Array;
  /** The virtual toe's offset in the foot bone's frame (toePoint.ts), or null: the rig's toe joint. */
  toeOffset: Float64Array | null;
  /** The toe-pivot solver (toePivot.ts), used on toe pins. */
  pivot: ToePivot;
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
  private readonly toe = new Float64Array(3);
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
   * the mean horizontal error of both source pinned points (ankle or toe) toward their anchors, capped at `rootCap` and scaled by
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
        // the pinned point's error: the ankle's, or the toe's on a toe pin
        if (leg.segments[a + 6] === 1) toePointAt(wr, wp, leg.bones, leg.toeOffset, this.toe, 0);
        const p = leg.segments[a + 6] === 1 ? this.toe : wp;
        const e = leg.segments[a + 6] === 1 ? 0 : 3 * leg.bones.end;
        for (let k = 0; k < 3; k++) vec[k] += 0.5 * (leg.segments[a + k] - p[e + k]);
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
      const onToe = sd[so + 6] === 1;
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
      if (onToe) {
        // a toe pin: the toe point's height (joint or virtual) is the target's; the ground test stays the
        // ankle's and the toe joint's (the floor of a rig without toes is its ankles' level), so the foot's
        // height is the same whichever point is pinned
        const tp = this.toe;
        toePointAt(wr, wp, b, leg.toeOffset, tp, 0);
        h = nrm[0] * tp[0] + nrm[1] * tp[1] + nrm[2] * tp[2] + fd - lift;
      }
      if (low < ground) h += ground - low;
      // how far the toe may rise back toward its source height when the leg cannot reach (toePivot.ts)
      leg.pivot.slack[0] = lift - (low < ground ? ground - low : 0);
      const dh = h - sd[so + 3];
      for (let k = 0; k < 3; k++) target[k] = sd[so + k] + nrm[k] * dh;
      vrotate(axis, 0, wr, 4 * b.upper, leg.hinge, 0);
      const dls = leg.solver;
      if (onToe) {
        const pv = leg.pivot;
        pv.solve(dls, wp, 3 * b.upper, wp, 3 * b.lower, wp, e3, this.toe, 0, target, 0, nrm, 0, axis, 0);
        if (pv.report.outOfReach) leg.limitKind[f] = 1;
        else if (pv.report.kneeAtLimit) leg.limitKind[f] = 2;
        leg.pinError[f] = pv.report.toeError;
        q[WGT] = w;
        qcopy(q, DF, pv.footDelta, 0);
        powUnit(q, DF, WGT);
      } else {
        dls.solve(wp, 3 * b.upper, wp, 3 * b.lower, wp, e3, target, 0, axis, 0);
        const r = dls.report;
        if (r.outOfReach) leg.limitKind[f] = 1;
        else if (r.kneeAtLimit) leg.limitKind[f] = 2;
        leg.pinError[f] = r.pinError;
      }
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
      // foot local = (SD * parentWorld)^-1 * footWorld (the source world rotation is kept), or on a toe
      // pin (SD * parentWorld)^-1 * DF * footWorld (the foot turned about the toe)
      const f4 = 4 * b.end;
      qmul(q, T0, q, SD, wr, 4 * skel.parents[b.end]);
      if (onToe) {
        qmul(q, T1, q, DF, wr, f4);
        qmulConj(rot, f4, q, T0, q, T1);
      } else qmulConj(rot, f4, q, T0, wr, f4);
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

/** The knee's bend axis in the thigh's frame, from the source frame where the leg is most bent. */
function hingeAxisLocal(clip: Clip, b: LegBones, tr: LegTrack): Float64Array {
  let best = -1;
  let bestF = 0;
  const c = new Float64Array(3);
  for (let f = 0; f < clip.frameCount; f++) {
    const o = 3 * f;
    const tx = tr.knee[o] - tr.hip[o];
    const ty = tr.knee[o + 1] - tr.hip[o + 1];
    const tz = tr.knee[o + 2] - tr.hip[o + 2];
    const ux = tr.ankle[o] - tr.knee[o];
    const uy = tr.ankle[o + 1] - tr.knee[o + 1];
    const uz = tr.ankle[o + 2] - tr.knee[o + 2];
    const x = ty * uz - tz * uy;
    const y = tz * ux - tx * uz;
    const z = tx * uy - ty * ux;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (l > best) {
      best = l;
      bestF = f;
      c[0] = x / (l || 1);
      c[1] = y / (l || 1);
      c[2] = z / (l || 1);
    }
  }
  const n = clip.skeleton.boneCount;
  const rot = clip.rotations.subarray(4 * bestF * n, 4 * (bestF + 1) * n);
  const pos = clip.translations.subarray(3 * bestF * n, 3 * (bestF + 1) * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(clip.skeleton, rot, pos, wr, wp);
  const out = new Float64Array(3);
  vrotateConj(out, 0, wr, 4 * b.upper, c, 0);
  return out;
}
