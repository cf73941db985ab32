/**
 * The report of `kind cleanup` (issue 11): the data of `cleanup.json` and the series the HTML page
 * draws. Engine-free (no Node or DOM API); report-time code (allocates).
 *
 * `cleanup.json` (see {@link CleanupFile}): frames, frame time, the floor (plane `n.p + d = 0` in the
 * clip's world frame, metres, and its height along the normal), per foot the contact probability per
 * frame (rounded to 1e-4), the final contact 0/1 per frame, the segments `[start, end)` (end
 * exclusive) with their anchors and ground level, the review ranges; the review list of both feet, the
 * frames where IK hit a limit, the metrics before and after per foot (src/cleanup `footMetrics`), IK
 * rotation figures, and the ground levels the contacts stand on.
 *
 * Versions: 1 (issue 11). 2 (issue 20) adds fields and renames none, so a reader of version 1 reads
 * version 2: every review range (`review` and `feet.<side>.review`) gains `reason` (src/cleanup
 * `ReviewReason`: 'reviewBand', 'travel', 'shortened', 'dropped', 'jointStep', 'jointShift') and
 * `detail` (a sentence with the figures); the review list now also carries the contact frames cut by
 * the guards, the shortened and dropped contacts, the frames where the pin was eased and those where a
 * leg joint moved far from the source; `transitions` gives the blend and speed settings at the take's
 * rate and the largest step of a leg joint beyond the source's (items 3 and 6); segments' `level` and
 * the take's `ground` give the ground levels (item 4). Per foot also `heel` and `toe` (the two contact
 * channels: probability, contact, segments with the anchor of that point, review, short) and `pin` (the
 * point pinned per frame: 0 none, 1 heel = ankle, 2 toe); per leg `toePoint` ('joint' or 'virtual') and
 * `toeOffset` (the virtual toe in the foot bone's frame, metres, or null) (items 1-2). The version-1
 * per-foot fields keep their meaning and are the union of heel and toe: `probability` is the foot's
 * (= max of heel and toe), `contact` and `segments` the stances (frames where either point is pinned),
 * each segment's `anchor` the ankle's anchor of its first heel run (the ankle's median on a toe-only
 * stance).
 */
import {
  type CleanupResult,
  describeGround,
  type FloorEstimate,
  type FootIkStats,
  type FootMetrics,
  type FootName,
  floorBasis,
  floorHeight,
  type LegTrack,
  type LimitRange,
  legBones,
  legTracks,
  type PointChannel,
  type ReviewReason,
  type TransitionStats,
} from '../cleanup';
import type { Clip } from '../core';

export const CLEANUP_FILE_VERSION = 2;

/** A review range in cleanup.json: frames `[start, end)`, why, and a sentence with the figures (version 2). */
export interface CleanupReviewJson {
  start: number;
  /** Exclusive. */
  end: number;
  reason: ReviewReason;
  detail: string;
}

export interface CleanupSegmentJson {
  start: number;
  /** Exclusive. */
  end: number;
  /** Ankle anchor, world metres in the clip's frame. */
  anchor: [number, number, number];
  /** Anchor height above the floor, metres. */
  ankleHeight: number;
  /** The segment's own ground level above the floor, metres (0 on the floor; stairs, slopes otherwise). */
  ground: number;
  /**
   * How far the foot was lowered toward its ground, metres (negative: raised onto it); at most 5 mm at a
   * 0.9 m leg (src/cleanup/anchors.ts), so a foot resting up to 3 cm above the floor may stand above it.
   */
  lift: number;
  /** The ground level it stands on: index into `ground.levels` (added in issue 20; -1 when unknown). */
  level: number;
}

/** One contact channel (heel or toe) of a foot (version 2). */
export interface CleanupPointJson {
  /** Contact probability of the point per frame, rounded to 1e-4. */
  probability: number[];
  /** 1 on frames inside one of the channel's segments, else 0. */
  contact: number[];
  /** The channel's segments, end exclusive, with the point's anchor and the frames it was the one pinned. */
  segments: { start: number; end: number; anchor: [number, number, number]; pinnedFrames: number }[];
  review: { start: number; end: number }[];
  short: { start: number; end: number }[];
}

export interface CleanupFootJson {
  /** Contact probability per frame, rounded to 1e-4. */
  probability: number[];
  /** 1 on frames inside a final segment, else 0. */
  contact: number[];
  segments: CleanupSegmentJson[];
  /** Ranges left for a person, end exclusive, each with its reason (version 2; see {@link CleanupReviewJson}). */
  review: CleanupReviewJson[];
  /** Contact pieces too short to pin (under 5 frames at 60 fps, scaled): detected, not fixed. */
  short: { start: number; end: number }[];
  /** Version 2: the heel (ankle joint) channel. */
  heel: CleanupPointJson;
  /** Version 2: the toe (toe joint or virtual toe) channel. */
  toe: CleanupPointJson;
  /** Version 2: the pinned point per frame: 0 none, 1 heel (ankle), 2 toe. */
  pin: number[];
}

export interface CleanupFile {
  tool: 'kind cleanup';
  version: number;
  input: string;
  output: string;
  clip: string;
  /** 'rule', 'learned' or 'teacher' (the contact probability source). */
  model: string;
  /** The ONNX file of `--model-file`, when the learned detector ran another model than the shipped one. */
  modelFile?: string;
  options: { reviewBand: [number, number]; rootCorrection: boolean };
  frames: number;
  frameTime: number;
  fps: number;
  /** Rest hip-to-ankle leg length, metres, and legLength / 0.9 (the thresholds' scale). */
  legLength: number;
  scale: number;
  /**
   * Metres per unit of the input file (the BVH reader's `unitScale`): world metres = file units x this.
   * Absent when the caller did not give it. Lets a viewer place the anchors on the file's own skeleton.
   */
  unitScale?: number;
  /** Names of the leg bones per foot (skeleton names as in the file); `toes` null when the rig has none. */
  legs: Record<
    FootName,
    {
      upperLeg: string;
      lowerLeg: string;
      foot: string;
      toes: string | null;
      /** Version 2: the toe point pinned: the toe joint, or a virtual toe (src/cleanup/toePoint.ts). */
      toePoint: 'joint' | 'virtual';
      /** Version 2: the virtual toe's offset in the foot bone's frame, metres (null with a toe joint). */
      toeOffset: [number, number, number] | null;
    }
  >;
  floor: FloorEstimate & { height: number };
  feet: Record<FootName, CleanupFootJson>;
  /** Ranges of both feet left for a person, sorted by start, each with its reason. */
  review: (CleanupReviewJson & { foot: FootName })[];
  /** Both feet's contact pieces too short to pin (not fixed), sorted by start. */
  short: { foot: FootName; start: number; end: number }[];
  /** Ranges where IK hit a limit: 'outOfReach' (the foot left its pin) or 'kneeLimit'. */
  limits: LimitRange[];
  metrics: { before: Record<FootName, FootMetrics>; after: Record<FootName, FootMetrics> };
  ik: Record<FootName, FootIkStats>;
  root: { frames: number; maxOffset: number };
  /**
   * Version 2: blend and correction-speed settings at this take's rate and leg, the guard and review
   * distances, and per foot the frames whose pin was eased and the largest step of a leg joint beyond
   * the source's (metres).
   */
  transitions: TransitionStats;
  /** Frames whose output differs from the input (any bone). */
  framesChanged: number;
  warnings: string[];
  /**
   * The ground the contacts stand on (added in issue 20; src/cleanup ground.ts): one level per ground
   * patch (a plane `n.p + d = 0` several contacts agree on, or one contact's own level), lowest first,
   * with its height above the floor at its contacts (metres), its tilt (degrees) and how many segments
   * stand on it; `spread` the highest minus the lowest segment ground (metres); `note` the one line the
   * terminal and the page print ("contacts on 3 ground levels, 27 cm apart"), null on one flat floor.
   * Penetration in `metrics` is measured against this local ground.
   */
  ground: {
    levels: {
      height: number;
      normal: [number, number, number];
      d: number;
      tiltDeg: number;
      segments: number;
    }[];
    spread: number;
    note: string | null;
  };
}

const FEET: readonly FootName[] = ['left', 'right'];
const r = (v: number, d: number) => {
  const p = 10 ** d;
  return Math.round(v * p) / p;
};

/** Frames whose rotations or translations differ between two clips of one skeleton (bit for bit). */
export function changedFrames(a: Clip, b: Clip): Uint8Array {
  const n = a.skeleton.boneCount;
  const out = new Uint8Array(a.frameCount);
  for (let f = 0; f < a.frameCount; f++) {
    for (let k = 4 * n * f; k < 4 * n * (f + 1); k++)
      if (a.rotations[k] !== b.rotations[k]) {
        out[f] = 1;
        break;
      }
    if (out[f]) continue;
    for (let k = 3 * n * f; k < 3 * n * (f + 1); k++)
      if (a.translations[k] !== b.translations[k]) {
        out[f] = 1;
        break;
      }
  }
  return out;
}

function pointJson(c: PointChannel): CleanupPointJson {
  return {
    probability: Array.from(c.probability, (p) => r(p, 4)),
    contact: Array.from(c.contact),
    segments: c.segments.map((s) => ({
      start: s.start,
      end: s.end,
      anchor: [r(s.anchor[0], 6), r(s.anchor[1], 6), r(s.anchor[2], 6)],
      pinnedFrames: s.pinnedFrames,
    })),
    review: c.review.map((x) => ({ start: x.start, end: x.end })),
    short: c.short.map((x) => ({ start: x.start, end: x.end })),
  };
}

/** Build the cleanup.json data of one run. */
export function buildCleanupFile(args: {
  input: string;
  output: string;
  source: Clip;
  result: CleanupResult;
  model: string;
  modelFile?: string;
  reviewBand: [number, number];
  rootCorrection: boolean;
  warnings?: string[];
  /** Metres per file unit of the input (written as `unitScale`). */
  unitScale?: number;
}): CleanupFile {
  const { result, source } = args;
  const feet = {} as Record<FootName, CleanupFootJson>;
  const legs = {} as CleanupFile['legs'];
  for (const foot of FEET) {
    const b = legBones(source.skeleton, foot);
    const name = (i: number) => source.skeleton.names[i];
    const off = result.feet[foot].toeOffset;
    legs[foot] = {
      upperLeg: name(b.upper),
      lowerLeg: name(b.lower),
      foot: name(b.end),
      toes: b.toe >= 0 ? name(b.toe) : null,
      toePoint: result.feet[foot].toePoint,
      toeOffset: off ? [r(off[0], 6), r(off[1], 6), r(off[2], 6)] : null,
    };
  }
  for (const foot of FEET) {
    const c = result.feet[foot];
    feet[foot] = {
      probability: Array.from(c.probability, (p) => r(p, 4)),
      contact: Array.from(c.contact),
      segments: c.segments.map((s, i) => ({
        start: s.start,
        end: s.end,
        anchor: [r(s.anchor[0], 6), r(s.anchor[1], 6), r(s.anchor[2], 6)],
        ankleHeight: r(s.ankleHeight, 6),
        ground: r(s.ground, 6),
        lift: r(s.lift, 6),
        level: result.ground.segmentLevel[foot][i] ?? -1,
      })),
      review: c.review.map((x) => ({ start: x.start, end: x.end, reason: x.reason, detail: x.detail })),
      short: c.short.map((x) => ({ start: x.start, end: x.end })),
      heel: pointJson(c.heel),
      toe: pointJson(c.toe),
      pin: Array.from(c.pin),
    };
  }
  const changed = changedFrames(source, result.clip);
  let framesChanged = 0;
  for (const c of changed) framesChanged += c;
  return {
    tool: 'kind cleanup',
    version: CLEANUP_FILE_VERSION,
    input: args.input,
    output: args.output,
    clip: source.name,
    model: args.model,
    ...(args.modelFile !== undefined ? { modelFile: args.modelFile } : {}),
    options: { reviewBand: args.reviewBand, rootCorrection: args.rootCorrection },
    frames: source.frameCount,
    frameTime: source.frameTime,
    fps: 1 / source.frameTime,
    legLength: result.legLength,
    scale: result.scale,
    ...(args.unitScale !== undefined ? { unitScale: args.unitScale } : {}),
    legs,
    floor: { ...result.floor, height: -result.floor.d },
    feet,
    review: result.review.map((x) => ({
      foot: x.foot,
      start: x.start,
      end: x.end,
      reason: x.reason,
      detail: x.detail,
    })),
    short: result.short.map((x) => ({ foot: x.foot, start: x.start, end: x.end })),
    limits: result.limits,
    metrics: result.metrics,
    ik: result.ik,
    root: result.root,
    transitions: result.transitions,
    framesChanged,
    warnings: args.warnings ?? [],
    ground: {
      levels: result.ground.levels.map((l) => ({
        height: r(l.height, 6),
        normal: [r(l.normal[0], 6), r(l.normal[1], 6), r(l.normal[2], 6)],
        d: r(l.d, 6),
        tiltDeg: r(l.tiltDeg, 3),
        segments: l.segments.length,
      })),
      spread: r(result.ground.spread, 6),
      note: describeGround(result.ground),
    },
  };
}

/** Per foot, per frame: the ankle on the floor plane (u, v) and its height, and its horizontal speed. */
export interface FootSeries {
  u: number[];
  v: number[];
  h: number[];
  /** Horizontal ankle speed, m/s (central difference; one-sided at the ends). */
  speed: number[];
}

export interface CleanupSeries {
  before: Record<FootName, FootSeries>;
  after: Record<FootName, FootSeries>;
}

function series(track: LegTrack, floor: FloorEstimate, frameTime: number): FootSeries {
  const { e1, e2 } = floorBasis(floor);
  const a = track.ankle;
  const F = a.length / 3;
  const s: FootSeries = { u: [], v: [], h: [], speed: [] };
  for (let f = 0; f < F; f++) {
    const o = 3 * f;
    s.u.push(r(e1[0] * a[o] + e1[1] * a[o + 1] + e1[2] * a[o + 2], 5));
    s.v.push(r(e2[0] * a[o] + e2[1] * a[o + 1] + e2[2] * a[o + 2], 5));
    s.h.push(r(floorHeight(floor, a, o), 5));
  }
  for (let f = 0; f < F; f++) {
    const f0 = Math.max(0, f - 1);
    const f1 = Math.min(F - 1, f + 1);
    const d = f1 > f0 ? Math.hypot(s.u[f1] - s.u[f0], s.v[f1] - s.v[f0]) / ((f1 - f0) * frameTime) : 0;
    s.speed.push(r(d, 4));
  }
  return s;
}

/** The ankle series before and after, for the page's charts. */
export function cleanupSeries(source: Clip, result: CleanupResult): CleanupSeries {
  const bones = { left: legBones(source.skeleton, 'left'), right: legBones(source.skeleton, 'right') };
  const tb = legTracks(source, bones);
  const ta = legTracks(result.clip, bones);
  const ft = source.frameTime;
  return {
    before: { left: series(tb.left, result.floor, ft), right: series(tb.right, result.floor, ft) },
    after: { left: series(ta.left, result.floor, ft), right: series(ta.right, result.floor, ft) },
  };
}

/** cleanup.json text (2-space indent; per-frame arrays on one line each). */
export function cleanupFileToJson(file: CleanupFile): string {
  const text = JSON.stringify(file, null, 2);
  // keep long number arrays on one line: a 10 000-frame take stays readable
  return `${text.replace(/\[\n\s+(-?[\d.e-]+,\n\s+)+-?[\d.e-]+\n\s+\]/g, (m) => `[${m.slice(1, -1).replace(/\s+/g, '')}]`)}\n`;
}
