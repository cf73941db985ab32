/**
 * The pose side of the puppet for one frame: landmarks -> 21 joints (joints.ts) -> confidence filter
 * (filter.ts) -> occlusion fill (occlusion.ts). Engine-free, allocation-free per frame.
 */
import { ConfidenceFilter } from './filter';
import { createFrameInfo, type LandmarkFrameInfo, landmarksToJoints } from './joints';
import { OcclusionFill, REST_OFFSETS } from './occlusion';
import { type PoseOptions, resolvePoseOptions } from './options';
import {
  createJointSet,
  JOINT_STATES,
  type JointSet,
  type JointState,
  JointStateCode,
  type PoseFrame,
  PUPPET_JOINT_COUNT,
} from './types';

/** What happened in one frame (the same object is reused by every step of a pipeline: copy what you keep). */
export interface PoseFrameReport {
  /** The frame had 33 landmarks in the chosen space. */
  personFound: boolean;
  /** Some landmark had no visibility/presence: its confidence was PoseOptions.unknownVisibilityConfidence. */
  visibilityUnknown: boolean;
  space: 'image' | 'world';
  /** Joints per state this frame (sums to 21). */
  counts: Record<JointState, number>;
  /** Joints before smoothing and fill (landmarksToJoints), pose space: for jitter before/after. */
  rawJoints: JointSet;
  /** Running body scale (torso length) in pose-space units. */
  bodyScale: number;
}

const J = PUPPET_JOINT_COUNT;

/**
 * The pose side of the puppet for one frame (module doc): landmarks -> 21 joints -> confidence filter ->
 * occlusion fill. Allocation-free per frame.
 */
export class PosePipeline {
  readonly options: PoseOptions;
  /**
   * Pose-space rest pose used by the 'rest' state: REST_OFFSETS (an A-pose in torso lengths) times the
   * running body scale, placed at the last Hips that had a value (the image centre, or the world origin,
   * before any). Confidence restConfidence, state rest.
   */
  readonly restPose: JointSet = createJointSet();
  readonly filter: ConfidenceFilter;
  readonly fill: OcclusionFill;
  private readonly raw = createJointSet();
  private readonly info: LandmarkFrameInfo = createFrameInfo();
  private readonly report: PoseFrameReport;
  private lastMs = Number.NaN;
  private hipsX = Number.NaN;
  private hipsY = 0;

  /**
   * @param options overrides of DEFAULT_POSE_OPTIONS (checked: RangeError naming the option).
   * @param image the camera image size in pixels (default 640 x 480); recordings carry theirs.
   */
  constructor(
    options: Partial<PoseOptions> = {},
    readonly image: { width: number; height: number } = { width: 640, height: 480 },
  ) {
    this.options = resolvePoseOptions(options);
    this.filter = new ConfidenceFilter(this.options);
    this.fill = new OcclusionFill(this.options);
    this.report = {
      personFound: false,
      visibilityUnknown: false,
      space: 'image',
      counts: { measured: 0, held: 0, parent: 0, child: 0, torso: 0, rest: 0 },
      rawJoints: this.raw,
      bodyScale: 0,
    };
    this.reset();
  }

  /** Forget every joint's history (the filter's and the fill's): the next frame starts afresh. */
  reset(): void {
    this.filter.reset();
    this.fill.reset();
    this.lastMs = Number.NaN;
    this.hipsX = Number.NaN;
    this.placeRest('image');
  }

  /**
   * One frame.
   * @param frame landmarks of the frame (timestampMs non-decreasing across calls).
   * @param out pose-space joints (y down), confidence in [0, 1], state (JointStateCode) for each of the 21.
   * @returns the frame's report (a reused object).
   */
  step(frame: PoseFrame, out: JointSet): PoseFrameReport {
    const info = landmarksToJoints(frame, this.image, this.options, this.raw, this.info);
    const dt = Number.isNaN(this.lastMs) ? 0 : frame.timestampMs - this.lastMs;
    this.lastMs = frame.timestampMs;
    const f = this.filter;
    f.step(this.raw, dt, out);
    if (f.missing[0] === 0) {
      this.hipsX = out.x[0];
      this.hipsY = out.y[0];
    }
    this.placeRest(info.space);
    this.fill.fill(out, f.missing, this.restPose, this.scale(info.space, f.bodyScale));
    f.commit(out);
    const r = this.report;
    r.personFound = info.personFound;
    r.visibilityUnknown = info.visibilityUnknown;
    r.space = info.space;
    r.bodyScale = f.bodyScale;
    const c = r.counts;
    c.measured = c.held = c.parent = c.child = c.torso = c.rest = 0;
    for (let j = 0; j < J; j++) c[JOINT_STATES[out.state[j]]]++;
    return r;
  }

  private scale(space: 'image' | 'world', s: number): number {
    if (s > 0) return s;
    // before any body was seen: a person a quarter of the image high, or 0.5 m
    return space === 'world' ? 0.5 : this.image.height / 4;
  }

  private placeRest(space: 'image' | 'world'): void {
    const s = this.scale(space, this.filter.bodyScale);
    let hx = this.hipsX;
    let hy = this.hipsY;
    if (Number.isNaN(hx)) {
      hx = space === 'world' ? 0 : this.image.width / 2;
      hy = space === 'world' ? 0 : this.image.height / 2;
    }
    const rp = this.restPose;
    for (let j = 0; j < J; j++) {
      rp.x[j] = hx + REST_OFFSETS[j][0] * s;
      rp.y[j] = hy + REST_OFFSETS[j][1] * s;
      rp.confidence[j] = this.options.restConfidence;
      rp.state[j] = JointStateCode.Rest;
    }
  }
}
