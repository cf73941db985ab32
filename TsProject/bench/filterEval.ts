/**
 * Source-filter evaluation (not a test; used by bench/filterSweep.ts and test/sourceFilter.data.test.ts):
 * a real take resampled to the stream rate, sensor-like noise added to its world pose, both run through
 * a live hub (`updateLive`, IK on all four limbs), and the AVATAR's hands and feet (the IK end bones'
 * world positions after the solve, `RetargetHub.ikReached`) compared with the clean run.
 *
 * Noise (seeded, so every run is the same): per bone and frame, white noise on the world position
 * (`posSigma` metres per axis) and on the world rotation (a rotation about a random axis by a normal
 * angle of `rotSigmaDeg` degrees); with probability `spikeRate` per frame one random bone jumps for
 * that single frame by `spikePos` metres in a random direction and `spikeDeg` degrees (as Motive gives
 * on a marker swap). The noisy world pose is turned back into a local one (what NatNet streams).
 *
 * Measures over the four end effectors:
 * - jitter: mean magnitude of the acceleration `(x[t+1] - 2 x[t] + x[t-1]) / dt^2`, m/s^2 (the clean
 *   take has its own, the motion's; noise adds to it);
 * - error: RMS distance to the clean run, mm;
 * - lag: the delay maximising the cross-correlation of the velocity (first difference) with the clean
 *   run's, searched over 0..`maxLagFrames` frames and refined by a parabola through the peak, ms.
 */
import {
  type Clip,
  createClip,
  forwardKinematics,
  readFrame,
  type Skeleton,
  sampleClip,
  vrotateConj,
  worldToLocalRotations,
  writeFrame,
} from '../src/core';
import { RetargetHub, type SourceFilterSettings } from '../src/rig';

export interface NoiseOptions {
  posSigma: number;
  rotSigmaDeg: number;
  spikeRate: number;
  spikePos: number;
  spikeDeg: number;
  seed: number;
}

export const DEFAULT_NOISE: NoiseOptions = {
  posSigma: 0.003,
  rotSigmaDeg: 0.3,
  spikeRate: 0.01,
  spikePos: 0.03,
  spikeDeg: 5,
  seed: 1,
};

/** mulberry32: a small seeded PRNG in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(r: () => number): number {
  const u = Math.max(r(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** The clip resampled to `fps` (slerp/lerp between frames, core sampleClip), at most `seconds` long. */
export function resample(clip: Clip, fps: number, seconds = Number.POSITIVE_INFINITY): Clip {
  const duration = Math.min((clip.frameCount - 1) * clip.frameTime, seconds);
  const count = Math.max(2, Math.floor(duration * fps) + 1);
  const out = createClip(clip.skeleton, count, 1 / fps, clip.name);
  const n = clip.skeleton.boneCount;
  const r = new Float64Array(4 * n);
  const p = new Float64Array(3 * n);
  for (let f = 0; f < count; f++) {
    sampleClip(clip, f / fps, r, p);
    writeFrame(out, f, r, p);
  }
  return out;
}

/** A frame list (local rotations, translations) of a clip. */
export interface Frames {
  skeleton: Skeleton;
  rotations: Float64Array[];
  translations: Float64Array[];
  dt: number;
}

export function clipFrames(clip: Clip): Frames {
  const n = clip.skeleton.boneCount;
  const rotations: Float64Array[] = [];
  const translations: Float64Array[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, f, r, p);
    rotations.push(r);
    translations.push(p);
  }
  return { skeleton: clip.skeleton, rotations, translations, dt: clip.frameTime };
}

/** A noisy copy of the frames (see the module docs). */
export function addNoise(frames: Frames, o: NoiseOptions = DEFAULT_NOISE): Frames {
  const sk = frames.skeleton;
  const n = sk.boneCount;
  const r = rng(o.seed);
  const W = new Float64Array(4 * n);
  const P = new Float64Array(3 * n);
  const v = new Float64Array(3);
  const rotations: Float64Array[] = [];
  const translations: Float64Array[] = [];
  const perturb = (b: number, pos: number, deg: number, fixed: boolean) => {
    // direction and axis uniform on the sphere
    for (const which of [0, 1]) {
      const z = 2 * r() - 1;
      const phi = 2 * Math.PI * r();
      const s = Math.sqrt(1 - z * z);
      const ax = s * Math.cos(phi);
      const ay = s * Math.sin(phi);
      if (which === 0) {
        const m = fixed ? pos : pos * gauss(r);
        P[3 * b] += m * ax;
        P[3 * b + 1] += m * ay;
        P[3 * b + 2] += m * z;
      } else {
        const ang = ((fixed ? deg : deg * gauss(r)) * Math.PI) / 180;
        const sh = Math.sin(ang / 2);
        const qx = sh * ax;
        const qy = sh * ay;
        const qz = sh * z;
        const qw = Math.cos(ang / 2);
        const b4 = 4 * b;
        const x = W[b4];
        const y = W[b4 + 1];
        const zz = W[b4 + 2];
        const w = W[b4 + 3];
        W[b4] = qw * x + qx * w + qy * zz - qz * y;
        W[b4 + 1] = qw * y + qy * w + qz * x - qx * zz;
        W[b4 + 2] = qw * zz + qz * w + qx * y - qy * x;
        W[b4 + 3] = qw * w - qx * x - qy * y - qz * zz;
      }
    }
  };
  for (let f = 0; f < frames.rotations.length; f++) {
    forwardKinematics(sk, frames.rotations[f], frames.translations[f], W, P);
    for (let b = 0; b < n; b++) perturb(b, o.posSigma, o.rotSigmaDeg, false);
    if (r() < o.spikeRate) perturb(Math.floor(r() * n), o.spikePos, o.spikeDeg, true);
    const lr = new Float64Array(4 * n);
    const lp = new Float64Array(3 * n);
    worldToLocalRotations(sk, W, lr);
    for (let b = 0; b < n; b++) {
      const p = sk.parents[b];
      if (p < 0) {
        lp.set(P.subarray(3 * b, 3 * b + 3), 3 * b);
        continue;
      }
      v[0] = P[3 * b] - P[3 * p];
      v[1] = P[3 * b + 1] - P[3 * p + 1];
      v[2] = P[3 * b + 2] - P[3 * p + 2];
      vrotateConj(lp, 3 * b, W, 4 * p, v, 0);
    }
    rotations.push(lr);
    translations.push(lp);
  }
  return { skeleton: sk, rotations, translations, dt: frames.dt };
}

/**
 * The avatar's end effectors over the frames: `Float64Array(12 * frames)` (left hand, right hand,
 * left foot, right foot; metres), the hub calibrated on `calibration` (the clean first frame), fed
 * by `updateLive` with `filter`.
 */
export function runEffectors(
  frames: Frames,
  target: Skeleton,
  filter: SourceFilterSettings,
  calibration: { rotations: Float64Array; translations: Float64Array },
): Float64Array {
  const hub = new RetargetHub(frames.skeleton, target, {
    ik: 'on',
    fingers: 'none',
    settings: { sourceFilter: filter },
  });
  hub.calibrate(calibration);
  const count = frames.rotations.length;
  const out = new Float64Array(12 * count);
  for (let f = 0; f < count; f++) {
    hub.updateLive(frames.rotations[f], frames.translations[f], frames.dt);
    out.set(hub.ikReached, 12 * f);
  }
  return out;
}

export interface EffectorMeasures {
  /** Mean acceleration magnitude, m/s^2: hands (2 effectors), feet (2). */
  jitterHands: number;
  jitterFeet: number;
  /** RMS distance to the clean run, mm. */
  errorHands: number;
  errorFeet: number;
  /** Cross-correlation delay against the clean run, ms. */
  lagHands: number;
  lagFeet: number;
}

function jitter(x: Float64Array, e: number, dt: number): number {
  const count = x.length / 12;
  let sum = 0;
  for (let f = 1; f + 1 < count; f++) {
    let s2 = 0;
    for (let c = 0; c < 3; c++) {
      const i = 12 * f + 3 * e + c;
      const a = (x[i + 12] - 2 * x[i] + x[i - 12]) / (dt * dt);
      s2 += a * a;
    }
    sum += Math.sqrt(s2);
  }
  return sum / Math.max(1, count - 2);
}

function rms(x: Float64Array, clean: Float64Array, e: number): number {
  const count = x.length / 12;
  let s = 0;
  for (let f = 0; f < count; f++) {
    for (let c = 0; c < 3; c++) {
      const d = x[12 * f + 3 * e + c] - clean[12 * f + 3 * e + c];
      s += d * d;
    }
  }
  return 1000 * Math.sqrt(s / count);
}

/** Delay in frames (sub-frame) of `x` behind `clean`, by the velocities' cross-correlation. */
function lagFrames(x: Float64Array, clean: Float64Array, e: number, maxLag: number): number {
  const count = x.length / 12;
  const corr = new Float64Array(maxLag + 1);
  for (let k = 0; k <= maxLag; k++) {
    let s = 0;
    for (let f = 1; f + k < count; f++) {
      for (let c = 0; c < 3; c++) {
        const i = 3 * e + c;
        const vc = clean[12 * f + i] - clean[12 * (f - 1) + i];
        const vx = x[12 * (f + k) + i] - x[12 * (f + k - 1) + i];
        s += vc * vx;
      }
    }
    corr[k] = s / (count - k);
  }
  let best = 0;
  for (let k = 1; k <= maxLag; k++) if (corr[k] > corr[best]) best = k;
  if (best === 0 || best === maxLag) return best;
  const a = corr[best - 1];
  const b = corr[best];
  const c = corr[best + 1];
  const den = a - 2 * b + c;
  return den < 0 ? best + (0.5 * (a - c)) / den : best;
}

/** Jitter, error and lag of `x` (the end effectors of a run) against the clean run. */
export function measure(
  x: Float64Array,
  clean: Float64Array,
  dt: number,
  maxLagFrames = 30,
): EffectorMeasures {
  const mean2 = (f: (e: number) => number, e0: number) => (f(e0) + f(e0 + 1)) / 2;
  return {
    jitterHands: mean2((e) => jitter(x, e, dt), 0),
    jitterFeet: mean2((e) => jitter(x, e, dt), 2),
    errorHands: mean2((e) => rms(x, clean, e), 0),
    errorFeet: mean2((e) => rms(x, clean, e), 2),
    lagHands: 1000 * dt * mean2((e) => lagFrames(x, clean, e, maxLagFrames), 0),
    lagFeet: 1000 * dt * mean2((e) => lagFrames(x, clean, e, maxLagFrames), 2),
  };
}

/** The same parameters in every group. */
export function uniformFilter(minCutoff: number, beta: number, dCutoff = 1): SourceFilterSettings {
  return {
    body: { minCutoff, beta, dCutoff },
    hands: { minCutoff, beta, dCutoff },
    feet: { minCutoff, beta, dCutoff },
  };
}
