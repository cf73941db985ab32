/**
 * `MocapSolver`: one frame of MediaPipe landmarks -> a humanoid source pose (issue 23 item 1). Engine-free;
 * `step` allocates nothing (every buffer is a typed array made in the constructor).
 *
 * Per frame:
 * 1. The 33 world landmarks go to the internal frame (Y up, facing +Z at the start; bones.ts header) with a
 *    confidence each (visibility, min with presence; unknown = 0.8 as the puppet).
 * 2. Bones in parent-first order. A bone whose primary landmarks are both seen is **measured**: its world
 *    rotation takes the rest basis to (primary direction, twist reference) (points.ts `basisRotation`;
 *    sources in bones.ts `BONE_SPECS`). An unusable twist reference (landmarks not seen, a straight elbow
 *    or knee) is replaced by the parent's rest secondary axis swung onto the bone (the twist that does not
 *    turn relative to the parent), blended in smoothly for bend references. A bone not measured keeps its
 *    last local rotation for `maxHoldMs` (**held**, confidence decaying), then moves towards the relaxed pose
 *    (arms down, legs straight; bones.ts `relaxedLocal`) with time constant `fillTauMs` (**filled**).
 * 3. Forward kinematics with the calibrated lengths (calibrate.ts); hips height: the lowest of the two heels
 *    and two toe tips on the floor (y = 0); hips horizontal position (x, z) from the image landmarks' hip
 *    midpoint through a pinhole camera: the hips' depth D from the limbs' x-y world lengths L_i over their
 *    image lengths l_i, each limb at its own depth D + dz_i (dz_i from the world landmarks' z):
 *    `D = (f sum L_i - sum dz_i l_i) / sum l_i`, focal length f from `fovDeg`; then x = u D / f. The camera is taken as level (its axes the world landmarks'). Relative to the first frame.
 *
 * Kalidokit (yeemachine/kalidokit, MIT) solves the same landmarks with Euler angles per limb and leaves the
 * hips translation at 0; here nothing of its code is used, only the common facts (MediaPipe's landmark
 * order and axes).
 */
import { forwardKinematics, type Skeleton } from '../core/skeleton';
import type { PoseFrame } from '../puppet';
import { MB, MOCAP_BONE_COUNT, MOCAP_PARENTS, MocapStateCode, POINT_COUNT, relaxedLocal } from './bones';
import { type MocapCalibration, mocapSkeleton } from './calibrate';
import { basisRotation, boneSpec, pointDir, readWorldPoints } from './points';

/**
 * Options of a {@link MocapSolver}: visibility threshold, hold and fill times, smoothing, camera field of
 * view.
 */
export interface MocapOptions {
  /** Landmark confidence at or above which a landmark is seen (default 0.5). */
  visibilityThreshold?: number;
  /** How long an unseen bone keeps its last local rotation, ms (default 300). */
  maxHoldMs?: number;
  /** Time constant of the drift to the relaxed pose after the hold, ms (default 250). */
  fillTauMs?: number;
  /** Confidence kept per second while held (default 0.5: halves each second). */
  heldDecayPerSecond?: number;
  /**
   * The camera's field of view across the image's longer side, degrees (default 60, a common webcam /
   * phone main camera). Only the hips' depth (z) depends on it: z moves in proportion to the focal length.
   */
  fovDeg?: number;
  /**
   * A bone seen again after being held or filled catches up from where it was to what is measured over
   * this time, ms (default 150; 0 = snap), and so do the hips' horizontal position when the image has them
   * again: the limb coming back into the frame does not jump (each frame covers its share of what is left:
   * the output is continuous and equals the measurement from the end of the window on).
   */
  reacquireMs?: number;
  /** A bend reference counts fully from this bend angle on, degrees (default 25). */
  bendFullDeg?: number;
  /**
   * One-Euro filter (src/core/oneEuro.ts; Casiez et al. CHI 2012) on the landmark points (metres, relative
   * to the hips) before solving: cutoff at rest, Hz (default 0 = off), ...
   */
  smoothMinCutoff?: number;
  /** ... its cutoff rise per m/s (default 1) ... */
  smoothBeta?: number;
  /** ... and its derivative cutoff, Hz (default 1, the paper's). */
  smoothDCutoff?: number;
}

/** Figures of one `step`. Reused object: read it before the next step. */
export interface MocapFrameReport {
  personFound: boolean;
  /** Bones measured / held / filled this frame. */
  measured: number;
  held: number;
  filled: number;
  /** Whether the hips' horizontal position came from the image this frame (else held). */
  hipsFromImage: boolean;
}

const DEFAULTS = {
  visibilityThreshold: 0.5,
  maxHoldMs: 300,
  fillTauMs: 250,
  heldDecayPerSecond: 0.5,
  reacquireMs: 150,
  fovDeg: 60,
  bendFullDeg: 25,
  smoothMinCutoff: 0,
  smoothBeta: 1,
  smoothDCutoff: 1,
};

/** Limb segments whose x-y world length over image length gives metres per pixel. */
const SCALE_SEGMENTS = [
  11, 13, 13, 15, 12, 14, 14, 16, 23, 25, 25, 27, 24, 26, 26, 28, 11, 23, 12, 24, 11, 12, 23, 24,
];

/**
 * Solves one frame of MediaPipe landmarks into 21 bone rotations with a confidence and state each, and the
 * hips position (module doc). `step` allocates nothing.
 */
export class MocapSolver {
  readonly skeleton: Skeleton;
  readonly calibration: MocapCalibration;
  /** World rotation per bone, `[x, y, z, w]`, internal frame. `Float64Array(4 * 21)`. */
  readonly worldRotations = new Float64Array(4 * MOCAP_BONE_COUNT);
  /** Local rotation per bone (parent frame; the root's = its world). `Float64Array(4 * 21)`. */
  readonly localRotations = new Float64Array(4 * MOCAP_BONE_COUNT);
  /** Local translation per bone: the calibrated rest ones, the root's = the hips position. `Float64Array(3 * 21)`. */
  readonly localTranslations: Float64Array;
  /** World joint positions after the step, metres. `Float64Array(3 * 21)`. */
  readonly positions = new Float64Array(3 * MOCAP_BONE_COUNT);
  /** Confidence per bone, [0, 1]. `Float64Array(21)`. */
  readonly confidence = new Float64Array(MOCAP_BONE_COUNT);
  /** State per bone: `MocapStateCode` (0 measured, 1 held, 2 filled). `Uint8Array(21)`. */
  readonly state = new Uint8Array(MOCAP_BONE_COUNT);
  /** Landmark points of the last step (internal frame, metres; bones.ts `P` for 33..38). `Float64Array(3 * 39)`. */
  readonly points = new Float64Array(3 * POINT_COUNT);
  readonly pointConfidence = new Float64Array(POINT_COUNT);
  readonly report: MocapFrameReport = {
    personFound: false,
    measured: 0,
    held: 0,
    filled: 0,
    hipsFromImage: false,
  };

  private readonly o: typeof DEFAULTS;

  /** The options in force (defaults filled in), for reports. */
  get options(): Readonly<Required<MocapOptions>> {
    return this.o;
  }
  private readonly lastSeenMs = new Float64Array(MOCAP_BONE_COUNT).fill(Number.NEGATIVE_INFINITY);
  private readonly lastConf = new Float64Array(MOCAP_BONE_COUNT);
  /** Per bone: the time its catch-up after a reacquisition ends, ms (-Infinity: none). */
  private readonly catchEndMs = new Float64Array(MOCAP_BONE_COUNT).fill(Number.NEGATIVE_INFINITY);
  /** The hips' horizontal catch-up end, ms, and whether the last frame's came from the image. */
  private hipsCatchEndMs = Number.NEGATIVE_INFINITY;
  private hipsWasFromImage = false;
  /** Whether a frame with a person has been solved since the reset (the first one snaps: nothing to catch up from). */
  private started = false;
  private readonly relaxed = new Float64Array(4 * MOCAP_BONE_COUNT);
  private readonly v = new Float64Array(12);
  private readonly q = new Float64Array(8);
  /** A bone's local rotation before this frame's measurement (the catch-up's start). */
  private readonly prevLocal = new Float64Array(4);
  private readonly fkRot = new Float64Array(4 * MOCAP_BONE_COUNT);
  /** One-Euro state per point: last output (3), smoothed speed (3); `ready` 1 once a point has a sample. */
  private readonly fValue = new Float64Array(3 * POINT_COUNT);
  private readonly fSpeed = new Float64Array(3 * POINT_COUNT);
  private readonly fReady = new Uint8Array(POINT_COUNT);
  /** [te seconds, minCutoff, beta, dCutoff] for the filter (a typed array: no boxed arguments). */
  private readonly fParams = new Float64Array(4);
  private readonly origin = new Float64Array(3);
  private readonly hipsLast = new Float64Array(3);
  /** `[cos, sin]` of the calibration's heading. */
  private readonly turn = new Float64Array(2);
  private hasOrigin = false;
  private lastMs = Number.NaN;
  private readonly sinBendFull: number;
  private readonly focalOverLongSide: number;

  constructor(calibration: MocapCalibration, options: MocapOptions = {}) {
    // an option given as undefined keeps its default
    const o = { ...DEFAULTS };
    for (const k of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
      const v = options[k];
      if (v !== undefined) {
        if (!(typeof v === 'number' && Number.isFinite(v)))
          throw new RangeError(`mocap option ${k}: ${String(v)} is not a finite number`);
        o[k] = v;
      }
    }
    this.o = o;
    this.calibration = calibration;
    this.skeleton = mocapSkeleton(calibration);
    this.localTranslations = Float64Array.from(calibration.restTranslations);
    this.sinBendFull = Math.sin((this.o.bendFullDeg * Math.PI) / 180);
    this.focalOverLongSide = 0.5 / Math.tan((this.o.fovDeg * Math.PI) / 360);
    for (let b = 0; b < MOCAP_BONE_COUNT; b++) relaxedLocal(b, this.relaxed, 4 * b);
    this.turn[0] = Math.cos(calibration.heading);
    this.turn[1] = Math.sin(calibration.heading);
    this.reset();
  }

  /** Back to the relaxed pose at the calibrated hips height, nothing held, the hips origin forgotten. */
  reset(): void {
    this.localRotations.set(this.relaxed);
    forwardKinematics(
      this.skeleton,
      this.localRotations,
      this.localTranslations,
      this.worldRotations,
      this.positions,
    );
    this.lastSeenMs.fill(Number.NEGATIVE_INFINITY);
    this.catchEndMs.fill(Number.NEGATIVE_INFINITY);
    this.hipsCatchEndMs = Number.NEGATIVE_INFINITY;
    this.hipsWasFromImage = false;
    this.started = false;
    this.lastConf.fill(0);
    this.fReady.fill(0);
    this.confidence.fill(0);
    this.state.fill(MocapStateCode.Filled);
    this.hasOrigin = false;
    this.lastMs = Number.NaN;
    this.localTranslations[0] = 0;
    this.localTranslations[1] = this.calibration.hipsHeight;
    this.localTranslations[2] = 0;
    this.hipsLast.fill(0);
    this.hipsLast[1] = this.calibration.hipsHeight;
  }

  /**
   * Solve one frame. `frame` in the recording format (src/puppet/landmarks.ts): 33 world landmarks (needed
   * for the pose; a frame without them is "no person": every bone held, then filled) and optionally 33
   * normalised image landmarks (for the hips' horizontal position). `image`: the camera image size in pixels.
   * Writes `worldRotations`, `localRotations`, `localTranslations` (root = hips position), `positions`,
   * `confidence`, `state`; returns `report` (the same object every call).
   */
  step(frame: PoseFrame, image: { width: number; height: number }): MocapFrameReport {
    const o = this.o;
    const t = frame.timestampMs;
    const dt = Number.isNaN(this.lastMs) ? 0 : Math.max(0, t - this.lastMs);
    this.lastMs = t;
    const pts = this.points;
    const conf = this.pointConfidence;
    const found = readWorldPoints(frame, this.turn, pts, conf);
    const thr = o.visibilityThreshold;
    if (found && o.smoothMinCutoff > 0) {
      const fp = this.fParams;
      fp[0] = dt / 1000;
      fp[1] = o.smoothMinCutoff;
      fp[2] = o.smoothBeta;
      fp[3] = o.smoothDCutoff;
      // a point not seen restarts when it comes back (no slide from a stale value)
      for (let i = 0; i < POINT_COUNT; i++) {
        if (conf[i] >= thr) this.smoothPoint(i);
        else this.fReady[i] = 0;
      }
    }
    const wr = this.worldRotations;
    const lr = this.localRotations;
    const v = this.v;
    const q = this.q;
    let measured = 0;
    let held = 0;
    let filled = 0;
    for (let b = 0; b < MOCAP_BONE_COUNT; b++) {
      const sp = boneSpec(b);
      const p = MOCAP_PARENTS[b];
      let c = 0;
      let ok = false;
      if (sp.kind === 'copy') {
        // the toes: the foot's rotation (local identity), its state and confidence
        lr[4 * b] = 0;
        lr[4 * b + 1] = 0;
        lr[4 * b + 2] = 0;
        lr[4 * b + 3] = 1;
        this.compose(b, p);
        this.state[b] = this.state[p];
        this.confidence[b] = this.confidence[p];
        if (this.state[b] === MocapStateCode.Measured) measured++;
        else if (this.state[b] === MocapStateCode.Held) held++;
        else filled++;
        continue;
      }
      if (found) {
        c = Math.min(conf[sp.from], conf[sp.to]);
        if (c >= thr && pointDir(pts, sp.from, sp.to, v, 0)) {
          q[7] = c;
          ok = this.measure(b, p, v, q);
        }
      }
      if (ok) {
        // back after a hold or fill (not at the start): catch up over reacquireMs from the last output
        if (this.started && this.state[b] !== MocapStateCode.Measured && o.reacquireMs > 0)
          this.catchEndMs[b] = t + o.reacquireMs;
        const catching = t < this.catchEndMs[b];
        if (catching) for (let k = 0; k < 4; k++) this.prevLocal[k] = lr[4 * b + k];
        this.state[b] = MocapStateCode.Measured;
        this.lastSeenMs[b] = t;
        this.lastConf[b] = this.confidence[b];
        measured++;
        // local = inverse(parent world) * world
        if (p < 0) {
          for (let k = 0; k < 4; k++) lr[4 * b + k] = wr[4 * b + k];
        } else this.localFromWorld(b, p);
        if (catching) {
          // this frame covers dt of the (remaining + dt) window: 1 at its end
          q[7] = dt > 0 ? Math.min(1, dt / (this.catchEndMs[b] - t + dt)) : 0;
          slerpInto(this.prevLocal, 0, lr, 4 * b, q, 7);
          for (let k = 0; k < 4; k++) lr[4 * b + k] = this.prevLocal[k];
          if (p < 0) for (let k = 0; k < 4; k++) wr[k] = lr[k];
          else this.compose(b, p);
        }
        continue;
      }
      const since = t - this.lastSeenMs[b];
      if (since <= o.maxHoldMs) {
        // hold the last local rotation (relative to the parent, which may move)
        this.state[b] = MocapStateCode.Held;
        this.confidence[b] = this.lastConf[b] * o.heldDecayPerSecond ** (since / 1000);
        held++;
      } else {
        this.state[b] = MocapStateCode.Filled;
        this.confidence[b] = 0.05;
        filled++;
        q[7] = dt > 0 ? 1 - Math.exp(-dt / o.fillTauMs) : 0;
        slerpInto(lr, 4 * b, this.relaxed, 4 * b, q, 7);
      }
      if (p < 0) for (let k = 0; k < 4; k++) wr[k] = lr[k];
      else this.compose(b, p);
    }
    // forward kinematics with the hips at the origin, then the hips height from the lowest foot point
    const lt = this.localTranslations;
    lt[0] = 0;
    lt[1] = 0;
    lt[2] = 0;
    forwardKinematics(this.skeleton, lr, lt, this.fkRot, this.positions);
    this.footLow(MB.LeftFoot, MB.LeftToes, 0, 0);
    this.footLow(MB.RightFoot, MB.RightToes, 3, 1);
    const minY = Math.min(q[4], q[5]);
    const fromImage = found && this.hipsFromImage(frame, image);
    if (!fromImage) {
      // held: the last horizontal position
      lt[0] = this.hipsLast[0];
      lt[2] = this.hipsLast[2];
    } else {
      // the image has the hips again after frames without: catch up from the held position
      if (this.started && !this.hipsWasFromImage && o.reacquireMs > 0)
        this.hipsCatchEndMs = t + o.reacquireMs;
      if (t < this.hipsCatchEndMs) {
        const a = dt > 0 ? Math.min(1, dt / (this.hipsCatchEndMs - t + dt)) : 0;
        lt[0] = this.hipsLast[0] + a * (lt[0] - this.hipsLast[0]);
        lt[2] = this.hipsLast[2] + a * (lt[2] - this.hipsLast[2]);
      }
    }
    this.hipsWasFromImage = fromImage;
    if (found) this.started = true;
    lt[1] = found ? -minY : this.hipsLast[1];
    this.hipsLast[0] = lt[0];
    this.hipsLast[1] = lt[1];
    this.hipsLast[2] = lt[2];
    const pos = this.positions;
    for (let i = 0; i < MOCAP_BONE_COUNT; i++) {
      pos[3 * i] += lt[0];
      pos[3 * i + 1] += lt[1];
      pos[3 * i + 2] += lt[2];
    }
    const r = this.report;
    r.personFound = found;
    r.measured = measured;
    r.held = held;
    r.filled = filled;
    r.hipsFromImage = fromImage;
    return r;
  }

  /**
   * One-Euro filter of point `i` in place (G. Casiez, N. Roussel, D. Vogel, "1€ Filter", CHI 2012,
   * Algorithm 1; the same formulas as src/core/oneEuro.ts, written here so that no double travels as a
   * call argument: `OneEuroBank.step` takes its interval and cutoffs as arguments, which V8 boxed here,
   * 608 B per frame). Per axis: `alpha(fc) = 1 / (1 + 1 / (2 pi fc te))`; speed `dx = (x - x̂prev) / te`
   * low-passed at `dCutoff`; `fc = minCutoff + beta |dx̂|`; `x̂ = x̂prev + alpha(fc) (x - x̂prev)`. The first
   * sample, and one after a gap over 0.5 s, passes through.
   */
  private smoothPoint(i: number): void {
    const fp = this.fParams;
    const te = fp[0];
    const pts = this.points;
    const val = this.fValue;
    const spd = this.fSpeed;
    const o = 3 * i;
    if (this.fReady[i] === 0 || !(te > 0 && te <= 0.5)) {
      val[o] = pts[o];
      val[o + 1] = pts[o + 1];
      val[o + 2] = pts[o + 2];
      spd[o] = 0;
      spd[o + 1] = 0;
      spd[o + 2] = 0;
      this.fReady[i] = 1;
      return;
    }
    const aD = 1 / (1 + 1 / (2 * Math.PI * fp[3] * te));
    for (let k = 0; k < 3; k++) {
      const prev = val[o + k];
      const dx = (pts[o + k] - prev) / te;
      const d = spd[o + k] + aD * (dx - spd[o + k]);
      spd[o + k] = d;
      const fc = fp[1] + fp[2] * Math.abs(d);
      const a = 1 / (1 + 1 / (2 * Math.PI * fc * te));
      const x = prev + a * (pts[o + k] - prev);
      val[o + k] = x;
      pts[o + k] = x;
    }
  }

  /** The measured world rotation of bone `b` into `worldRotations`; false when the basis is degenerate. */
  private measure(b: number, p: number, v: Float64Array, q: Float64Array): boolean {
    // q[7]: the primary's confidence (in a typed array: a double argument to a call not inlined is boxed)
    const sp = boneSpec(b);
    const pts = this.points;
    const conf = this.pointConfidence;
    const thr = this.o.visibilityThreshold;
    // fallback twist reference: the parent's (or, for the root, the last) rest secondary axis, swung
    // onto this bone's direction (no turn about the bone relative to the parent)
    const pr = p < 0 ? b : p;
    rotateInto(v, 6, this.worldRotations, 4 * pr, sp.restPrimary);
    rotateInto(v, 9, this.worldRotations, 4 * pr, sp.restSecondary);
    swingVector(v, 6, v, 0, v, 9); // v[9..11] := swing(v6 -> v0) applied to v9
    let w = 0;
    let sc = 1;
    if (sp.kind === 'vec') {
      const a = Math.min(conf[sp.s0], conf[sp.s1]);
      let okS = a >= thr && pointDir(pts, sp.s0, sp.s1, v, 3);
      if (okS && sp.s2 >= 0) {
        const a2 = Math.min(conf[sp.s2], conf[sp.s3]);
        if (a2 >= thr && pointDir(pts, sp.s2, sp.s3, q, 4)) {
          v[3] += q[4];
          v[4] += q[5];
          v[5] += q[6];
        } else okS = false;
      }
      if (okS) w = 1;
      else sc = 0.8;
    } else if (sp.kind === 'bend') {
      const a = Math.min(conf[sp.s0], conf[sp.s1]);
      if (a >= thr && pointDir(pts, sp.s0, sp.s1, v, 3)) {
        const d = v[3] * v[0] + v[4] * v[1] + v[5] * v[2];
        const x = sp.sign * (v[3] - d * v[0]);
        const y = sp.sign * (v[4] - d * v[1]);
        const z = sp.sign * (v[5] - d * v[2]);
        const l = Math.sqrt(x * x + y * y + z * z);
        if (l > 1e-9) {
          w = l >= this.sinBendFull ? 1 : l / this.sinBendFull;
          v[3] = x / l;
          v[4] = y / l;
          v[5] = z / l;
        }
      }
    }
    if (w < 1) {
      v[3] = w * v[3] + (1 - w) * v[9];
      v[4] = w * v[4] + (1 - w) * v[10];
      v[5] = w * v[5] + (1 - w) * v[11];
    }
    let ok = basisRotation(v, 0, v, 3, sp.restPrimary, sp.restSecondary, this.worldRotations, 4 * b);
    if (!ok) ok = basisRotation(v, 0, v, 9, sp.restPrimary, sp.restSecondary, this.worldRotations, 4 * b);
    if (ok) this.confidence[b] = q[7] * sc;
    return ok;
  }

  /** localRotations[b] = inverse(world[p]) * world[b]. */
  private localFromWorld(b: number, p: number): void {
    const w = this.worldRotations;
    const ax = -w[4 * p];
    const ay = -w[4 * p + 1];
    const az = -w[4 * p + 2];
    const aw = w[4 * p + 3];
    const bx = w[4 * b];
    const by = w[4 * b + 1];
    const bz = w[4 * b + 2];
    const bw = w[4 * b + 3];
    const l = this.localRotations;
    l[4 * b] = ax * bw + aw * bx + ay * bz - az * by;
    l[4 * b + 1] = ay * bw + aw * by + az * bx - ax * bz;
    l[4 * b + 2] = az * bw + aw * bz + ax * by - ay * bx;
    l[4 * b + 3] = aw * bw - ax * bx - ay * by - az * bz;
  }

  /** worldRotations[b] = world[p] * local[b]. */
  private compose(b: number, p: number): void {
    const w = this.worldRotations;
    const l = this.localRotations;
    const ax = w[4 * p];
    const ay = w[4 * p + 1];
    const az = w[4 * p + 2];
    const aw = w[4 * p + 3];
    const bx = l[4 * b];
    const by = l[4 * b + 1];
    const bz = l[4 * b + 2];
    const bw = l[4 * b + 3];
    w[4 * b] = ax * bw + aw * bx + ay * bz - az * by;
    w[4 * b + 1] = ay * bw + aw * by + az * bx - ax * bz;
    w[4 * b + 2] = az * bw + aw * bz + ax * by - ay * bx;
    w[4 * b + 3] = aw * bw - ax * bx - ay * by - az * bz;
  }

  /** Lowest y (hips at the origin) of the heel (foot + R heel offset) and the toe tip (the Toes joint), into q[4 + slot]. */
  private footLow(foot: number, toes: number, heelOffset: number, slot: number): void {
    const v = this.v;
    const pos = this.positions;
    rotateInto(v, 6, this.fkRot, 4 * foot, this.calibration.heel, heelOffset);
    const heelY = pos[3 * foot + 1] + v[7];
    const toeY = pos[3 * toes + 1];
    this.q[4 + slot] = Math.min(heelY, toeY);
  }

  /**
   * Hips (x, z) from the image landmarks' hip midpoint through the pinhole camera, into
   * `localTranslations[0, 2]`, relative to the first frame that had it. False when the frame has no 33
   * image landmarks or too few seen limb segments (the caller holds the last value).
   */
  private hipsFromImage(frame: PoseFrame, image: { width: number; height: number }): boolean {
    const img = frame.landmarks;
    const wl = frame.worldLandmarks;
    if (img?.length !== 33 || !wl) return false;
    const conf = this.pointConfidence;
    const thr = this.o.visibilityThreshold;
    // the hip midpoint is what is tracked: both hips must be seen (a guess at 0.05 visibility jumps)
    if (!(conf[23] >= thr && conf[24] >= thr)) return false;
    const W = image.width;
    const H = image.height;
    // segment i at depth D + dz_i (dz_i: its world landmarks' mean z, relative to the hips) has image length
    // l_i = f L_i / (D + dz_i), L_i its x-y world length: D = (f sum L_i - sum dz_i l_i) / sum l_i
    const f = this.focalOverLongSide * Math.max(W, H);
    let sw = 0;
    let si = 0;
    let sz = 0;
    for (let k = 0; k < SCALE_SEGMENTS.length; k += 2) {
      const a = SCALE_SEGMENTS[k];
      const b = SCALE_SEGMENTS[k + 1];
      if (!(conf[a] >= thr && conf[b] >= thr)) continue;
      const wx = wl[a].x - wl[b].x;
      const wy = wl[a].y - wl[b].y;
      const ix = (img[a].x - img[b].x) * W;
      const iy = (img[a].y - img[b].y) * H;
      const li = Math.sqrt(ix * ix + iy * iy);
      sw += Math.sqrt(wx * wx + wy * wy);
      si += li;
      sz += 0.5 * (wl[a].z + wl[b].z) * li;
    }
    if (!(si > 1e-6 && sw > 0)) return false;
    const depth = (f * sw - sz) / si;
    if (!(depth > 0)) return false;
    const s = depth / f; // metres per pixel at the hips' depth
    const u = 0.5 * (img[23].x + img[24].x) * W - 0.5 * W;
    const vv = 0.5 * (img[23].y + img[24].y) * H - 0.5 * H;
    // camera frame (MediaPipe axes): (u s, v s, f s) -> internal: Ry(heading) (x, -y, -z)
    const cx = u * s;
    const cz = -f * s;
    const x = cx * this.turn[0] + cz * this.turn[1];
    const z = -cx * this.turn[1] + cz * this.turn[0];
    if (!this.hasOrigin) {
      this.origin[0] = x;
      this.origin[2] = z;
      this.origin[1] = vv * s;
      this.hasOrigin = true;
    }
    const lt = this.localTranslations;
    lt[0] = x - this.origin[0];
    lt[2] = z - this.origin[2];
    return true;
  }
}

/** `out[o..o+2] = q v` for the unit quaternion `q` at `qo` of `qa`. */
function rotateInto(
  out: Float64Array,
  o: number,
  qa: Float64Array,
  qo: number,
  v: ArrayLike<number>,
  vo = 0,
): void {
  const qx = qa[qo];
  const qy = qa[qo + 1];
  const qz = qa[qo + 2];
  const qw = qa[qo + 3];
  const x = v[vo];
  const y = v[vo + 1];
  const z = v[vo + 2];
  const uvx = qy * z - qz * y;
  const uvy = qz * x - qx * z;
  const uvz = qx * y - qy * x;
  out[o] = x + 2 * (qw * uvx + qy * uvz - qz * uvy);
  out[o + 1] = y + 2 * (qw * uvy + qz * uvx - qx * uvz);
  out[o + 2] = z + 2 * (qw * uvz + qx * uvy - qy * uvx);
}

/**
 * `c := swing(a -> b) c`, in place at `co`: the shortest-arc rotation taking unit `a` to unit `b`
 * (Rodrigues' formula), applied to `c`. For opposite `a`, `b`, `c` is left as it is.
 */
function swingVector(
  A: Float64Array,
  ao: number,
  B: Float64Array,
  bo: number,
  C: Float64Array,
  co: number,
): void {
  const ax = A[ao];
  const ay = A[ao + 1];
  const az = A[ao + 2];
  const bx = B[bo];
  const by = B[bo + 1];
  const bz = B[bo + 2];
  const d = ax * bx + ay * by + az * bz;
  if (d < -0.999999) return;
  // k = a x b (|k| = sin); R c = c cos + (k x c) + k (k . c) / (1 + cos)   (k unnormalised)
  const kx = ay * bz - az * by;
  const ky = az * bx - ax * bz;
  const kz = ax * by - ay * bx;
  const cx = C[co];
  const cy = C[co + 1];
  const cz = C[co + 2];
  const kc = (kx * cx + ky * cy + kz * cz) / (1 + d);
  C[co] = cx * d + (ky * cz - kz * cy) + kx * kc;
  C[co + 1] = cy * d + (kz * cx - kx * cz) + ky * kc;
  C[co + 2] = cz * d + (kx * cy - ky * cx) + kz * kc;
}

/** `a := slerp(a, b, t)`, `t = ts[to]`, for the quaternions at `ao` of `a` and `bo` of `b` (shortest way, normalised lerp for small angles). */
function slerpInto(
  a: Float64Array,
  ao: number,
  b: Float64Array,
  bo: number,
  ts: Float64Array,
  to: number,
): void {
  const t = ts[to];
  if (t <= 0) return;
  let bx = b[bo];
  let by = b[bo + 1];
  let bz = b[bo + 2];
  let bw = b[bo + 3];
  let d = a[ao] * bx + a[ao + 1] * by + a[ao + 2] * bz + a[ao + 3] * bw;
  if (d < 0) {
    d = -d;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  let s0 = 1 - t;
  let s1 = t;
  if (d < 0.9995) {
    const th = Math.acos(d);
    const sn = Math.sin(th);
    s0 = Math.sin((1 - t) * th) / sn;
    s1 = Math.sin(t * th) / sn;
  }
  const x = s0 * a[ao] + s1 * bx;
  const y = s0 * a[ao + 1] + s1 * by;
  const z = s0 * a[ao + 2] + s1 * bz;
  const w = s0 * a[ao + 3] + s1 * bw;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  a[ao] = x / l;
  a[ao + 1] = y / l;
  a[ao + 2] = z / l;
  a[ao + 3] = w / l;
}
