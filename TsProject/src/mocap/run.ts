/**
 * A whole recording through the mocap (what `kind mocap` writes): calibrate, solve every frame, collect
 * the clip (BVH-ready: src/io/bvh.ts `writeBvh`), per-frame confidences and states, and summary figures.
 * Engine-free; allocates the outputs once, then `MocapSolver.step` per frame.
 */
import { type Clip, createClip } from '../core/clip';
import type { LandmarkRecording } from '../puppet';
import { MB, MOCAP_BONE_COUNT, MOCAP_BONES, MOCAP_STATES } from './bones';
import { calibrateMocap, type MocapCalibrationOptions, MocapInputError } from './calibrate';
import { type MocapOptions, MocapSolver } from './solver';

/** Options of {@link runMocap}: the solver's, the calibration's and a progress callback. */
export interface MocapRunOptions extends MocapOptions, MocapCalibrationOptions {
  /** Called every so many frames with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * A recording solved into a clip ({@link runMocap}): the BVH clip, the solver, the rate, per frame and bone
 * the confidence and state, the hips path.
 */
export interface MocapRun {
  clip: Clip;
  solver: MocapSolver;
  /** Frames per second the clip is written at: 1000 / the median timestamp step, rounded to 0.001. */
  fps: number;
  /** Confidence per frame and bone, `Float32Array(frames * 21)`, frame-major, bones in MOCAP_BONES order. */
  confidence: Float32Array;
  /** State code per frame and bone (bones.ts MocapStateCode), `Uint8Array(frames * 21)`. */
  state: Uint8Array;
  /** Hips position per frame, metres, internal frame, `Float32Array(frames * 3)`. */
  hips: Float32Array;
  /** Frames with no person (no 33 world landmarks). */
  framesWithoutPerson: number;
  /** Frames whose hips (x, z) came from the image landmarks. */
  framesHipsFromImage: number;
}

/**
 * A recording's frame rate as `kind puppet` reports it (src/puppet/puppetFile.ts `inputRateHz`): the
 * frames over the span from the first timestamp to the last, to 2 decimals; 30 with no span (one frame,
 * equal timestamps). The clip's frame time is its inverse.
 */
export function recordingRateHz(timesMs: readonly number[]): number {
  const n = timesMs.length;
  const span = n > 1 ? timesMs[n - 1] - timesMs[0] : 0;
  return span > 0 ? Math.round((((n - 1) * 1000) / span) * 100) / 100 : 30;
}

/**
 * Run the mocap over a recording (src/puppet/landmarks.ts format; world landmarks needed).
 * The clip has one frame per recording frame at the recording's frame rate ({@link recordingRateHz});
 * uneven timestamps are not resampled.
 * @throws MocapInputError when no frame can be calibrated on (calibrate.ts).
 */
export function runMocap(rec: LandmarkRecording, o: MocapRunOptions = {}): MocapRun {
  const source = o.source ?? rec.source ?? 'recording';
  const frames = rec.frames;
  if (frames.length === 0) throw new MocapInputError('the recording has no frames', `${source}: frames`);
  const cal = calibrateMocap(frames, { ...o, source });
  const solver = new MocapSolver(cal, o);
  // the rate as `kind puppet` measures it (frames over the span), so the two commands agree
  const fps = recordingRateHz(frames.map((f) => f.timestampMs));
  const step = 1000 / fps;
  const F = frames.length;
  const n = MOCAP_BONE_COUNT;
  const clip = createClip(solver.skeleton, F, step / 1000, 'mocap');
  const confidence = new Float32Array(F * n);
  const state = new Uint8Array(F * n);
  const hips = new Float32Array(F * 3);
  let noPerson = 0;
  let fromImage = 0;
  for (let f = 0; f < F; f++) {
    const r = solver.step(frames[f], rec.image);
    if (!r.personFound) noPerson++;
    if (r.hipsFromImage) fromImage++;
    clip.rotations.set(solver.localRotations, 4 * n * f);
    clip.translations.set(solver.localTranslations, 3 * n * f);
    confidence.set(solver.confidence, n * f);
    state.set(solver.state, n * f);
    hips[3 * f] = solver.localTranslations[0];
    hips[3 * f + 1] = solver.localTranslations[1];
    hips[3 * f + 2] = solver.localTranslations[2];
    if (o.onProgress && (f % 100 === 99 || f === F - 1)) o.onProgress(f + 1, F);
  }
  return {
    clip,
    solver,
    fps,
    confidence,
    state,
    hips,
    framesWithoutPerson: noPerson,
    framesHipsFromImage: fromImage,
  };
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The knee angle (degrees, 180 = straight) per frame from the clip's joint positions: thigh vs shin. */
function kneeAngles(run: MocapRun, side: 'Left' | 'Right'): number[] {
  const F = run.clip.frameCount;
  const up = MB[`${side}UpperLeg`];
  const lo = MB[`${side}LowerLeg`];
  const out: number[] = [];
  // world rotations are enough: thigh direction = R_upper (0,-1,0), shin = R_lower (0,-1,0)
  for (let f = 0; f < F; f++) {
    const w = worldRotationsAt(run, f);
    const a = rotY(w, up);
    const b = rotY(w, lo);
    const d = Math.max(-1, Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]));
    out.push(180 - (Math.acos(d) * 180) / Math.PI);
  }
  return out;
}

function worldRotationsAt(run: MocapRun, f: number): Float64Array {
  const sk = run.solver.skeleton;
  const n = sk.boneCount;
  const w = new Float64Array(4 * n);
  const l = run.clip.rotations.subarray(4 * n * f, 4 * n * (f + 1));
  for (let i = 0; i < n; i++) {
    const p = sk.parents[i];
    if (p < 0) {
      for (let k = 0; k < 4; k++) w[4 * i + k] = l[4 * i + k];
      continue;
    }
    const [ax, ay, az, aw] = [w[4 * p], w[4 * p + 1], w[4 * p + 2], w[4 * p + 3]];
    const [bx, by, bz, bw] = [l[4 * i], l[4 * i + 1], l[4 * i + 2], l[4 * i + 3]];
    w[4 * i] = ax * bw + aw * bx + ay * bz - az * by;
    w[4 * i + 1] = ay * bw + aw * by + az * bx - ax * bz;
    w[4 * i + 2] = az * bw + aw * bz + ax * by - ay * bx;
    w[4 * i + 3] = aw * bw - ax * bx - ay * by - az * bz;
  }
  return w;
}

/** `R_b (0, -1, 0)`. */
function rotY(w: Float64Array, b: number): [number, number, number] {
  const [x, y, z, s] = [w[4 * b], w[4 * b + 1], w[4 * b + 2], w[4 * b + 3]];
  // second column of the rotation matrix, negated
  return [-(2 * (x * y - s * z)), -(1 - 2 * (x * x + z * z)), -(2 * (y * z + s * x))];
}

/** Summary figures of a run (mocap.json `summary`). */
export interface MocapSummary {
  frames: number;
  fps: number;
  durationS: number;
  framesWithoutPerson: number;
  framesHipsFromImage: number;
  /** Per bone: frames measured / held / filled, and the mean confidence. */
  bones: Record<string, { measured: number; held: number; filled: number; meanConfidence: number }>;
  /** Hips height, metres: at rest (calibrated standing), min, max over the take. */
  hipsHeight: { standing: number; min: number; max: number };
  /** Horizontal distance the hips travelled from the first frame, metres: the largest. */
  hipsMaxHorizontal: number;
  /** Knee angle, degrees (180 straight): min and max per side. */
  knees: { left: { min: number; max: number }; right: { min: number; max: number } };
}

/**
 * The figures `kind mocap` prints and writes to mocap.json for a run: bone states, hips height and travel,
 * knee angles.
 */
export function summarizeMocap(run: MocapRun): MocapSummary {
  const F = run.clip.frameCount;
  const n = MOCAP_BONE_COUNT;
  const bones: MocapSummary['bones'] = {};
  for (let b = 0; b < n; b++) {
    const c = [0, 0, 0];
    let s = 0;
    for (let f = 0; f < F; f++) {
      c[run.state[n * f + b]]++;
      s += run.confidence[n * f + b];
    }
    bones[MOCAP_BONES[b]] = { measured: c[0], held: c[1], filled: c[2], meanConfidence: r3(s / F) };
  }
  let hmin = Number.POSITIVE_INFINITY;
  let hmax = Number.NEGATIVE_INFINITY;
  let hor = 0;
  for (let f = 0; f < F; f++) {
    const y = run.hips[3 * f + 1];
    hmin = Math.min(hmin, y);
    hmax = Math.max(hmax, y);
    hor = Math.max(hor, Math.hypot(run.hips[3 * f] - run.hips[0], run.hips[3 * f + 2] - run.hips[2]));
  }
  const kl = kneeAngles(run, 'Left');
  const kr = kneeAngles(run, 'Right');
  const mm = (v: number[]) => ({ min: r3(Math.min(...v)), max: r3(Math.max(...v)) });
  return {
    frames: F,
    fps: run.fps,
    durationS: r3((F - 1) * run.clip.frameTime),
    framesWithoutPerson: run.framesWithoutPerson,
    framesHipsFromImage: run.framesHipsFromImage,
    bones,
    hipsHeight: { standing: r3(run.solver.calibration.hipsHeight), min: r3(hmin), max: r3(hmax) },
    hipsMaxHorizontal: r3(hor),
    knees: { left: mm(kl), right: mm(kr) },
  };
}

/** Knee angles per frame (degrees, 180 = straight), both sides: for reports and tests. */
export function mocapKneeAngles(run: MocapRun): { left: number[]; right: number[] } {
  return { left: kneeAngles(run, 'Left'), right: kneeAngles(run, 'Right') };
}

/**
 * mocap.json: the calibration, the bone order, per frame the time, hips position and per bone the
 * confidence (3 decimals) and state, and the summary.
 */
export function mocapJson(run: MocapRun, input: string, outputs: { bvh: string }): object {
  const cal = run.solver.calibration;
  const F = run.clip.frameCount;
  const n = MOCAP_BONE_COUNT;
  const lengths: Record<string, number> = {};
  for (const [k, v] of Object.entries(cal.lengths)) lengths[k] = r3(v);
  const frames = [];
  for (let f = 0; f < F; f++) {
    const confidence: number[] = [];
    const state: string[] = [];
    for (let b = 0; b < n; b++) {
      confidence.push(r3(run.confidence[n * f + b]));
      state.push(MOCAP_STATES[run.state[n * f + b]]);
    }
    frames.push({
      frame: f,
      hips: [r3(run.hips[3 * f]), r3(run.hips[3 * f + 1]), r3(run.hips[3 * f + 2])],
      confidence,
      state,
    });
  }
  return {
    tool: 'kind mocap',
    version: 1,
    input,
    outputs,
    units: {
      lengths: 'metres',
      hips: 'metres, Y up, the performer facing +Z at the first frame',
      bvh: 'centimetres',
    },
    bones: [...MOCAP_BONES],
    options: { ...run.solver.options },
    calibration: {
      frames: cal.frames,
      headingDeg: r3((cal.heading * 180) / Math.PI),
      lengths,
      defaulted: cal.defaulted,
      hipsHeight: r3(cal.hipsHeight),
    },
    summary: summarizeMocap(run),
    frames,
  };
}
