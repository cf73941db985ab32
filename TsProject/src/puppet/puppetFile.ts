/**
 * `puppet.json` of `kind puppet render` (issue 12, "Commands" and item 8): per frame the 21 joints of the
 * drawing (drawing pixels) with the confidence and the state the pose side gave them, and the figures of the
 * run: jitter before and after smoothing, lag, joints measured / held / inferred per joint, visibility, and
 * the mesh's triangles per frame (flipped, area stretch: quality.ts) for the deformation used and for plain
 * LBS beside it.
 * Engine-free. The recorder copies what it needs each frame into preallocated series (no allocation per
 * frame beyond the growing arrays' own doubling); `build` allocates the JSON object once at the end.
 *
 * Units: drawing joints in pixels of the drawing's texture (origin top-left, y down); jitter in body
 * scales / s^2 (pose space divided by the torso length, metrics.jitter) and in drawing pixels / s^2; lag in
 * ms (metrics.lagMs, least-squares delay of the smoothed joints behind the raw ones). Deterministic: the
 * same drawing, recording and options give the same file (no clock readings).
 */
import { type Character, characterJoints } from './character';
import { jitter, lagMs } from './metrics';
import type { PoseOptions } from './options';
import type { PoseFrameReport } from './pipeline';
import {
  createMeshOverlap,
  createTriangleQuality,
  jointGroups,
  OverlapMeter,
  type TakeOverlap,
  TakeOverlapAccumulator,
  type TakeQuality,
  TakeQualityAccumulator,
  type TriangleQuality,
  triangleParts,
  triangleQuality,
} from './quality';
import type { PuppetSession } from './session';
import type { SkeletonMapping } from './skeleton';
import {
  copyJointSet,
  createJointSet,
  JOINT_STATES,
  type JointSet,
  type JointState,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
} from './types';

const J = PUPPET_JOINT_COUNT;

/** One joint of one frame in puppet.json. */
export interface PuppetJointOut {
  /** Drawing pixels (origin top-left of the drawing, y down); 0.01 px resolution. */
  x: number;
  y: number;
  /** [0, 1], as the pose side gave it (measured: the landmark's visibility; inferred: the fill's low value). */
  confidence: number;
  state: JointState;
}

/**
 * One frame of puppet.json: its time, whether a person was found, and each joint's position, confidence and
 * state.
 */
export interface PuppetFrameOut {
  timestampMs: number;
  /** The frame had a person (33 landmarks in the pose space used). */
  personFound: boolean;
  /** Some landmark of the frame had no visibility field: its confidence was the "unknown" value. */
  visibilityUnknown: boolean;
  joints: PuppetJointOut[];
  /** The deformed mesh of this frame (quality.ts): flipped triangles and the worst area stretch max(r, 1/r). */
  mesh: { flipped: number; stretch: number };
}

/** Mesh figures of a take (quality.ts TakeQuality), ratios to 4 decimals. */
export interface PuppetMeshStats {
  /** The deformation of the frames: 'arap' or 'lbs' (deform.ts). */
  deform: string;
  /** The frames' mesh. */
  deformed: TakeQuality;
  /** Plain LBS of the same frames (the same as `deformed` when deform is 'lbs'). */
  lbs: TakeQuality;
  /**
   * ARAP's fold-over guard: the area-ratio bounds it holds, frames where some triangle was outside them
   * before it, the most sweeps one frame needed, frames it left with a triangle outside (0 = converged).
   */
  guard: {
    minAreaRatio: number;
    maxAreaRatio: number;
    framesOutOfBoundsBefore: number;
    maxSweeps: number;
    framesNotConverged: number;
  };
  /**
   * Self-overlap of the frames' mesh (quality.ts OverlapMeter): area (px^2) where triangles of one body part
   * (triangleParts: the layer groups of PuppetSession.drawOrder split per limb copy; one part without layers)
   * lie over each other and did not at rest, the overlap between parts, and the triangles held at the guard's
   * bounds.
   */
  overlap: TakeOverlap;
}

/**
 * puppet.json `stats`: frames, rate, joint-frames per state, jitter before and after smoothing, lag,
 * outliers, and the mesh and layer figures.
 */
export interface PuppetStats {
  frames: number;
  personFrames: number;
  /** Frames where visibility was absent (unknown, not 0). */
  visibilityUnknownFrames: number;
  /** Last frame's timestamp minus the first's, ms. */
  durationMs: number;
  /** Pose results per second of the input: (frames - 1) / duration (a recording's own rate). */
  inputRateHz: number;
  /** 'image' (pixels of the camera image) or 'world' (metres): the pose space of the run. */
  space: 'image' | 'world';
  /** Median torso length in pose-space units (pixels or metres). */
  bodyScale: number;
  /** Joint-frames per state over the whole run (sums to 21 x frames). */
  states: Record<JointState, number>;
  /** Per joint: frames per state and mean confidence. */
  perJoint: ({ name: string; meanConfidence: number } & Record<JointState, number>)[];
  /**
   * Mean joint acceleration (metrics.jitter) before smoothing (the raw joints) and after (the pipeline's
   * output), over the same joint-frames: those whose raw confidence is at least the visibility threshold
   * (measured); body scales / s^2. With no smoothing the two are equal.
   */
  jitter: { raw: number; smoothed: number; ratio: number; drawingPxPerS2: number };
  /** Delay of the smoothed joints behind the raw ones (measured joints), ms. */
  lagMs: number;
  /** Measurements dropped as outliers (jumps) by the filter. */
  outliers: number;
  /** Flipped triangles and area stretch of the mesh over the take (quality.ts). */
  mesh: PuppetMeshStats;
  /** The depth-ordered body-part layers (depthOrder.ts) over the take; `enabled: false` with `--layers off`. */
  layers: PuppetLayerStats;
}

/**
 * The layers of a take (depthOrder.ts): the body-part groups, each back-to-front group order the frames were
 * drawn in and how many frames held it, and how often the order changed from one frame to the next.
 */
export interface PuppetLayerStats {
  /** false: one mesh in its static order (limbs over the body), as before layers existed. */
  enabled: boolean;
  /** Hysteresis margin, torso lengths (depthOrder.ts DEPTH_MARGIN); 0 when off. */
  margin: number;
  /** The groups in their default order: name, the character joints whose bones they hold, their triangles. */
  groups: { name: string; joints: string[]; triangles: number }[];
  /** Each group order (back to front, group names) drawn in some frame, first seen first, and its frames. */
  orders: { order: string[]; frames: number }[];
  /** Frames whose order differed from the frame before. */
  orderChanges: number;
}

/**
 * The puppet.json `kind puppet render` writes (docs/puppet.md, `kind puppet render`): joints, the drawing and frame
 * geometry, the options used, every frame and the stats.
 */
export interface PuppetFile {
  tool: 'kind puppet render';
  /** Format version of this file. */
  version: 1;
  /** The drawing's joints: the 21 PUPPET_JOINTS, or a character's own (six arms, four legs: skeleton.ts). */
  joints: string[];
  /** Parent index of each joint (-1 for Hips / a root). */
  parents: number[];
  /** The drawing: its pixel size (frame PNGs may be larger: see `frame`). */
  image: { width: number; height: number };
  /** The frame PNGs: their size and where the drawing's pixel (0, 0) lies in them. */
  frame: { width: number; height: number; originX: number; originY: number };
  character: {
    name: string;
    /** Rest joints (drawing pixels) and whether each was annotated (`measured`) or synthesised (`rest`). */
    restJoints: { x: number; y: number; state: JointState }[];
    /** How each joint of the drawing is driven from the 21 pose joints (skeleton.ts), as `kind puppet render` prints it. */
    mapping: SkeletonMapping;
    /**
     * A drawing above PUPPET_WORK_PIXELS (downscale.ts) was scaled down by `factor`: its file and size as
     * read. Every pixel figure of this file is in the scaled drawing's pixels (multiply by `factor`).
     */
    scaledFrom?: { file: string; width: number; height: number; factor: number };
  };
  /** The input recording: its file, camera image size. */
  input: {
    source: string;
    image: { width: number; height: number };
    /**
     * A tfjs-models keypoint file (keypoints.ts): its keypoint set and coordinates, the BlazePose landmarks it
     * lacks, and the joints made only of those (never measured: filled by the occlusion chain every frame,
     * with its low confidences and states in `frames`). Absent for MediaPipe recordings.
     */
    keypoints?: {
      set: 'coco17' | 'blazepose33';
      coordinates: 'pixels' | 'normalized';
      absentLandmarks: number[];
      filledJoints: string[];
      multiPoseFrames: number;
    };
  };
  mesh: { vertices: number; triangles: number; spacing: number; weights: string; deform: string };
  options: PoseOptions;
  frames: PuppetFrameOut[];
  stats: PuppetStats;
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const r4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** A group's name for puppet.json: a retarget config's group without depth drivers has none of its own. */
const groupName = (name: string, k: number) => name || `group ${k} (no depth drivers)`;

/** Collects what puppet.json needs, frame by frame, from a PuppetSession. */
export class PuppetRecorder {
  private readonly raw: JointSet[] = [];
  private readonly smoothed: JointSet[] = [];
  private readonly drawing: JointSet[] = [];
  private readonly times: number[] = [];
  private readonly person: boolean[] = [];
  private readonly unknown: boolean[] = [];
  private readonly scales: number[] = [];
  private space: 'image' | 'world' = 'image';
  private readonly quality: TriangleQuality = createTriangleQuality();
  private readonly scratch: Float64Array;
  private readonly deformedTake = new TakeQualityAccumulator();
  private readonly lbsTake = new TakeQualityAccumulator();
  private readonly meshFrames: { flipped: number; stretch: number }[] = [];
  private framesOutOfBounds = 0;
  private maxSweeps = 0;
  private framesNotConverged = 0;
  private readonly overlapMeter: OverlapMeter;
  private readonly overlap = createMeshOverlap();
  private readonly overlapTake = new TakeOverlapAccumulator();
  /** Frames per group order (key: group numbers joined by ','), in first-seen order. */
  private readonly orderFrames = new Map<string, number>();
  private lastOrder = '';
  private orderChanges = 0;
  private triangleCounts: number[] | null = null;

  constructor(private readonly session: PuppetSession) {
    this.scratch = new Float64Array(session.mesh.triangleCount);
    const o = session.deformer.options;
    this.overlapMeter = new OverlapMeter(session.mesh, {
      groups: session.drawOrder
        ? triangleParts(
            session.mesh,
            session.weights,
            characterJoints(session.character).parents,
            jointGroups(session.drawOrder.groups, session.rig.jointCount),
          )
        : null,
      minAreaRatio: o.minAreaRatio,
      maxAreaRatio: o.maxAreaRatio,
    });
  }

  /** Number of frames recorded so far. */
  get frames(): number {
    return this.times.length;
  }

  /** Record the session's state after `session.step(frame)` returned `report`. */
  add(timestampMs: number, report: PoseFrameReport): void {
    const keep = (list: JointSet[], src: JointSet) => {
      const c = createJointSet(src.x.length);
      copyJointSet(c, src);
      list.push(c);
    };
    keep(this.raw, report.rawJoints);
    keep(this.smoothed, this.session.poseJoints);
    keep(this.drawing, this.session.drawingJoints);
    this.times.push(timestampMs);
    this.person.push(report.personFound);
    this.unknown.push(report.visibilityUnknown);
    if (report.bodyScale > 0) this.scales.push(report.bodyScale);
    if (report.personFound) this.space = report.space;
    const { mesh, deformer } = this.session;
    const q = triangleQuality(mesh, this.session.skinned, this.quality, this.scratch);
    this.deformedTake.add(q);
    this.meshFrames.push({ flipped: q.flipped, stretch: r4(q.worstStretch) });
    this.lbsTake.add(triangleQuality(mesh, deformer.lbs, this.quality, this.scratch));
    this.overlapTake.add(this.overlapMeter.measure(this.session.skinned, this.overlap));
    if (deformer.mode === 'arap' && this.session.posed) {
      if (deformer.lastOutOfBoundsBefore > 0) this.framesOutOfBounds++;
      if (deformer.lastOutOfBoundsAfter > 0) this.framesNotConverged++;
      if (deformer.lastGuardSweeps > this.maxSweeps) this.maxSweeps = deformer.lastGuardSweeps;
    }
    const d = this.session.drawOrder;
    if (d) {
      // only the groups with triangles: an empty group (no arms on a four-legged figure) draws nothing, so
      // its place in the order is no order of the drawing
      const triangles = this.groupTriangles(d);
      const key = Array.from(d.groupOrder)
        .filter((g) => triangles[g] > 0)
        .join(',');
      this.orderFrames.set(key, (this.orderFrames.get(key) ?? 0) + 1);
      if (this.lastOrder !== '' && key !== this.lastOrder) this.orderChanges++;
      this.lastOrder = key;
    }
  }

  /** Triangles of each layer group (constant for a session: counted once). */
  private groupTriangles(d: NonNullable<PuppetSession['drawOrder']>): number[] {
    if (!this.triangleCounts) {
      this.triangleCounts = new Array<number>(d.groups.length).fill(0);
      for (const g of d.triangleGroup) if (g >= 0) this.triangleCounts[g]++;
    }
    return this.triangleCounts;
  }

  /** The layers' figures so far (PuppetLayerStats). */
  layerStats(): PuppetLayerStats {
    const d = this.session.drawOrder;
    if (!d) return { enabled: false, margin: 0, groups: [], orders: [], orderChanges: 0 };
    const names = this.session.rig.skeleton.names;
    const triangles = this.groupTriangles(d);
    return {
      enabled: true,
      margin: d.margin,
      // the groups that hold triangles (as the orders): an empty group is drawn nowhere
      groups: d.groups
        .map((g, k) => ({
          name: groupName(d.groups[k].name, k),
          joints: g.joints.map((j) => names[j]),
          triangles: triangles[k],
        }))
        .filter((g) => g.triangles > 0),
      orders: [...this.orderFrames].map(([key, frames]) => ({
        order: key.split(',').map((k) => groupName(d.groups[Number(k)].name, Number(k))),
        frames,
      })),
      orderChanges: this.orderChanges,
    };
  }

  /** The mesh figures so far. */
  meshStats(): PuppetMeshStats {
    const round = (t: TakeQuality): TakeQuality => ({
      ...t,
      worstStretch: r4(t.worstStretch),
      p99Stretch: r4(t.p99Stretch),
      minAreaRatio: r4(t.minAreaRatio),
      maxAreaRatio: r4(t.maxAreaRatio),
    });
    const d = this.session.deformer;
    return {
      deform: d.mode,
      deformed: round(this.deformedTake.take),
      lbs: round(this.lbsTake.take),
      guard: {
        minAreaRatio: d.options.minAreaRatio,
        maxAreaRatio: d.options.maxAreaRatio,
        framesOutOfBoundsBefore: this.framesOutOfBounds,
        maxSweeps: this.maxSweeps,
        framesNotConverged: this.framesNotConverged,
      },
      overlap: (({ maxOverlap, maxOverlapPercent, meanOverlap, maxCrossOverlap, ...rest }) => ({
        ...rest,
        maxOverlap: r2(maxOverlap),
        maxOverlapPercent: r4(maxOverlapPercent),
        meanOverlap: r2(meanOverlap),
        maxCrossOverlap: r2(maxCrossOverlap),
      }))(this.overlapTake.take),
    };
  }

  /** The figures of the run so far. */
  stats(): PuppetStats {
    const n = this.times.length;
    const states = Object.fromEntries(JOINT_STATES.map((s) => [s, 0])) as Record<JointState, number>;
    const perJoint = PUPPET_JOINTS.map((name) => ({
      name,
      meanConfidence: 0,
      ...(Object.fromEntries(JOINT_STATES.map((s) => [s, 0])) as Record<JointState, number>),
    }));
    for (const f of this.smoothed)
      for (let j = 0; j < J; j++) {
        const st = JOINT_STATES[f.state[j]];
        states[st]++;
        perJoint[j][st]++;
        perJoint[j].meanConfidence += f.confidence[j] / n;
      }
    for (const p of perJoint) p.meanConfidence = r4(p.meanConfidence);
    const sorted = [...this.scales].sort((a, b) => a - b);
    const bodyScale = sorted.length ? sorted[sorted.length >> 1] : 0;
    const t = Float64Array.from(this.times);
    const minConfidence = this.session.pipeline.options.visibilityThreshold;
    const s = bodyScale > 0 ? bodyScale : 1;
    // the same joint-frames before and after: those measured at or above the threshold in the raw joints
    const same = { minConfidence, confidenceFrom: this.raw };
    const raw = jitter(this.raw, t, { bodyScale: s, ...same });
    const smoothed = jitter(this.smoothed, t, { bodyScale: s, ...same });
    // a character's own skeleton (M joints, not the 21): its joints' own confidences (the pose joints they report)
    const own = this.session.character.skeleton;
    const drawingPx = own
      ? jitter(this.drawing, t, { minConfidence, joints: own.names.map((_, j) => j) })
      : jitter(this.drawing, t, same);
    const lag = lagMs(this.smoothed, this.raw, t, { minConfidence, maxLagMs: 600, stepMs: 5 }).lagMs;
    const durationMs = n > 1 ? this.times[n - 1] - this.times[0] : 0;
    return {
      frames: n,
      personFrames: this.person.filter(Boolean).length,
      visibilityUnknownFrames: this.unknown.filter(Boolean).length,
      durationMs: r2(durationMs),
      inputRateHz: durationMs > 0 ? r2(((n - 1) * 1000) / durationMs) : 0,
      space: this.space,
      bodyScale: r4(bodyScale),
      states,
      perJoint,
      jitter: {
        raw: r4(raw),
        smoothed: r4(smoothed),
        ratio: raw > 0 ? r4(smoothed / raw) : 1,
        drawingPxPerS2: r2(drawingPx),
      },
      lagMs: lag,
      outliers: this.session.pipeline.filter.outliers,
      mesh: this.meshStats(),
      layers: this.layerStats(),
    };
  }

  /** The whole puppet.json object. */
  build(o: {
    character: Character;
    input: { source: string; image: { width: number; height: number } };
    frame: PuppetFile['frame'];
    /** The figures, when the caller has them already from {@link stats} (its lag search is not cheap). */
    stats?: PuppetStats;
  }): PuppetFile {
    const c = o.character;
    const rest = c.restJoints;
    const { names, parents } = characterJoints(c);
    const file: PuppetFile = {
      tool: 'kind puppet render',
      version: 1,
      joints: [...names],
      parents: [...parents],
      image: { width: c.width, height: c.height },
      frame: o.frame,
      character: {
        name: c.name,
        restJoints: names.map((_, j) => ({
          x: r2(rest.x[j]),
          y: r2(rest.y[j]),
          state: JOINT_STATES[rest.state[j]],
        })),
        mapping: this.session.rig.skeleton.mapping,
      },
      input: o.input,
      mesh: {
        vertices: this.session.mesh.vertexCount,
        triangles: this.session.mesh.triangleCount,
        spacing: r2(this.session.mesh.spacing),
        weights: this.session.weightMode,
        deform: this.session.deformer.mode,
      },
      options: { ...this.session.pipeline.options },
      frames: this.times.map((timestampMs, f) => ({
        timestampMs,
        personFound: this.person[f],
        visibilityUnknown: this.unknown[f],
        joints: names.map((_, j) => ({
          x: r2(this.drawing[f].x[j]),
          y: r2(this.drawing[f].y[j]),
          confidence: r4(this.drawing[f].confidence[j]),
          state: JOINT_STATES[this.drawing[f].state[j]],
        })),
        mesh: this.meshFrames[f],
      })),
      stats: o.stats ?? this.stats(),
    };
    return file;
  }
}
