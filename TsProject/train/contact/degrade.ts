/**
 * Degraded copies of foot tracks (where thresholds fail): sensor noise (per joint, or on the root only),
 * root drift, foot sliding during contacts, floor offsets, sloped floors, other leg lengths, other frame
 * rates, a raised stretch, and all together.
 * Magnitudes are in leg lengths L so they mean the same for any character. Each copy keeps the time axis
 * (frame rate changes resample it), so the clean labels on the 60 Hz grid still apply.
 */
import { type FootTracks, gridCountOf, type LegTrack, teacherGrid, teacherLabels } from '../../src/contact';
import type { Rng } from './rng';

export const DEGRADATIONS = ['clean', 'noise', 'rootNoise', 'drift', 'slide', 'floor', 'slope', 'legs', 'fps', 'raise', 'all'] as const;
export type Degradation = (typeof DEGRADATIONS)[number];

function copyLeg(l: LegTrack): LegTrack {
  return {
    ankle: l.ankle.slice(),
    toe: l.toe ? l.toe.slice() : null,
    knee: l.knee.slice(),
    hip: l.hip.slice(),
    pitch: l.pitch.slice(),
    roll: l.roll.slice(),
  };
}

export function copyTracks(t: FootTracks): FootTracks {
  return { ...t, left: copyLeg(t.left), right: copyLeg(t.right), hips: t.hips.slice(), up: [...t.up] };
}

function allPositionArrays(t: FootTracks): Float64Array[] {
  const out = [t.hips];
  for (const l of [t.left, t.right]) {
    out.push(l.ankle, l.knee, l.hip);
    if (l.toe) out.push(l.toe);
  }
  return out;
}

/** Two unit horizontal axes perpendicular to `up`. */
function horizontalAxes(up: number[]): [number[], number[]] {
  const a = Math.abs(up[0]) < 0.9 ? [1, 0, 0] : [0, 0, 1];
  const d = a[0] * up[0] + a[1] * up[1] + a[2] * up[2];
  const e1 = [a[0] - d * up[0], a[1] - d * up[1], a[2] - d * up[2]];
  const l = Math.hypot(e1[0], e1[1], e1[2]);
  const x = [e1[0] / l, e1[1] / l, e1[2] / l];
  const y = [up[1] * x[2] - up[2] * x[1], up[2] * x[0] - up[0] * x[2], up[0] * x[1] - up[1] * x[0]];
  return [x, y];
}

function randomHorizontal(t: FootTracks, rng: Rng): number[] {
  const [x, y] = horizontalAxes(t.up);
  const a = rng.uniform(0, 2 * Math.PI);
  return [0, 1, 2].map((c) => Math.cos(a) * x[c] + Math.sin(a) * y[c]);
}

export function addNoise(t: FootTracks, rng: Rng, sigmaL: number, sigmaAngle: number): void {
  const s = sigmaL * t.legLength;
  for (const a of allPositionArrays(t)) for (let i = 0; i < a.length; i++) a[i] += s * rng.gauss();
  for (const l of [t.left, t.right]) {
    for (let f = 0; f < t.frameCount; f++) {
      l.pitch[f] += sigmaAngle * rng.gauss();
      l.roll[f] += sigmaAngle * rng.gauss();
    }
  }
}

/** Whole-body horizontal drift at `speedL` leg lengths per second in a random direction. */
export function addDrift(t: FootTracks, rng: Rng, speedL: number): void {
  const dir = randomHorizontal(t, rng);
  const v = speedL * t.legLength;
  for (const a of allPositionArrays(t))
    for (let f = 0; f < t.frameCount; f++) for (let c = 0; c < 3; c++) a[3 * f + c] += dir[c] * v * f * t.frameTime;
}

/**
 * Root noise: the whole body moved by Gaussian noise of `sigmaL` leg lengths per axis, independently per
 * frame (every joint by the same offset, as noise on a BVH root position channel does).
 */
export function addRootNoise(t: FootTracks, rng: Rng, sigmaL: number): void {
  const s = sigmaL * t.legLength;
  const arrays = allPositionArrays(t);
  for (let f = 0; f < t.frameCount; f++) {
    const o = [s * rng.gauss(), s * rng.gauss(), s * rng.gauss()];
    for (const a of arrays) for (let c = 0; c < 3; c++) a[3 * f + c] += o[c];
  }
}

/**
 * A raised stretch: every point raised by `heightL` leg lengths along up on the frames between two random
 * times (the first in the first half of the take, the second 25-50 % of the take later), as if the take
 * stepped onto a platform and off it again. The labels stay the clean take's: the feet rest on the
 * platform as they rested on the floor.
 */
export function addRaisedStretch(t: FootTracks, rng: Rng, heightL: number): void {
  const F = t.frameCount;
  const a = Math.floor(rng.uniform(0.1, 0.5) * F);
  const b = Math.min(F, a + Math.floor(rng.uniform(0.25, 0.5) * F));
  const o = heightL * t.legLength;
  for (const arr of allPositionArrays(t)) for (let f = a; f < b; f++) for (let c = 0; c < 3; c++) arr[3 * f + c] += t.up[c] * o;
}

/** Move every point along up by `offsetL` leg lengths. */
export function addFloorOffset(t: FootTracks, offsetL: number): void {
  const o = offsetL * t.legLength;
  for (const a of allPositionArrays(t)) for (let f = 0; f < t.frameCount; f++) for (let c = 0; c < 3; c++) a[3 * f + c] += t.up[c] * o;
}

/** A floor sloped by `angle` radians: every point rises by tan(angle) times its horizontal distance along a random direction. */
export function addSlope(t: FootTracks, rng: Rng, angle: number): void {
  const dir = randomHorizontal(t, rng);
  const k = Math.tan(angle);
  for (const a of allPositionArrays(t)) {
    for (let f = 0; f < t.frameCount; f++) {
      const x = dir[0] * a[3 * f] + dir[1] * a[3 * f + 1] + dir[2] * a[3 * f + 2];
      for (let c = 0; c < 3; c++) a[3 * f + c] += t.up[c] * k * x;
    }
  }
}

/** Legs scaled by `s` about each hip joint (root motion kept: feet slide and sink or float), leg length too. */
export function scaleLegs(t: FootTracks, s: number): void {
  for (const l of [t.left, t.right]) {
    for (const a of [l.knee, l.ankle, l.toe]) {
      if (!a) continue;
      for (let f = 0; f < t.frameCount; f++) for (let c = 0; c < 3; c++) a[3 * f + c] = l.hip[3 * f + c] + s * (a[3 * f + c] - l.hip[3 * f + c]);
    }
  }
  t.legLength *= s;
}

/**
 * Foot sliding: during each clean contact segment (60 Hz grid labels) the foot (ankle, toe, and the
 * knee by half) moves horizontally at `speedL` L/s in a random direction, then returns over 0.25 s.
 */
export function addSlide(t: FootTracks, rng: Rng, speedL: number, labels: [Uint8Array, Uint8Array]): void {
  const v = speedL * t.legLength;
  const sides = [t.left, t.right];
  for (let side = 0; side < 2; side++) {
    const lab = labels[side];
    const l = sides[side];
    const disp = new Float64Array(t.frameCount);
    const dirs: number[][] = [];
    const segDir = new Int32Array(t.frameCount).fill(-1);
    // per native frame: displacement magnitude and the direction of its segment
    let g = 0;
    while (g < lab.length) {
      if (!lab[g]) {
        g++;
        continue;
      }
      let e = g;
      while (e < lab.length && lab[e]) e++;
      const t0 = g / 60;
      const t1 = e / 60;
      const di = dirs.length;
      dirs.push(randomHorizontal(t, rng));
      for (let f = 0; f < t.frameCount; f++) {
        const tf = f * t.frameTime;
        let d = 0;
        if (tf >= t0 && tf < t1) d = v * (tf - t0);
        else if (tf >= t1 && tf < t1 + 0.25) d = v * (t1 - t0) * (1 - (tf - t1) / 0.25);
        if (d > 0) {
          disp[f] = d;
          segDir[f] = di;
        }
      }
      g = e;
    }
    for (let f = 0; f < t.frameCount; f++) {
      if (segDir[f] < 0) continue;
      const dir = dirs[segDir[f]];
      for (const [a, w] of [
        [l.ankle, 1],
        [l.toe, 1],
        [l.knee, 0.5],
      ] as [Float64Array | null, number][]) {
        if (!a) continue;
        for (let c = 0; c < 3; c++) a[3 * f + c] += w * disp[f] * dir[c];
      }
    }
  }
}

/** The same motion at `fps` frames per second (linear interpolation of positions and angles). */
export function resampleTracks(t: FootTracks, fps: number): FootTracks {
  const duration = (t.frameCount - 1) * t.frameTime;
  const dt = 1 / fps;
  const F = Math.floor(duration / dt + 1e-6) + 1;
  const lerp3 = (a: Float64Array) => {
    const o = new Float64Array(3 * F);
    for (let f = 0; f < F; f++) {
      const x = Math.min(t.frameCount - 1, (f * dt) / t.frameTime);
      const i = Math.min(t.frameCount - 2, Math.floor(x));
      const u = x - i;
      for (let c = 0; c < 3; c++) o[3 * f + c] = a[3 * i + c] * (1 - u) + a[3 * i + 3 + c] * u;
    }
    return o;
  };
  const lerp1 = (a: Float64Array) => {
    const o = new Float64Array(F);
    for (let f = 0; f < F; f++) {
      const x = Math.min(t.frameCount - 1, (f * dt) / t.frameTime);
      const i = Math.min(t.frameCount - 2, Math.floor(x));
      const u = x - i;
      o[f] = a[i] * (1 - u) + a[i + 1] * u;
    }
    return o;
  };
  const leg = (l: LegTrack): LegTrack => ({
    ankle: lerp3(l.ankle),
    toe: l.toe ? lerp3(l.toe) : null,
    knee: lerp3(l.knee),
    hip: lerp3(l.hip),
    pitch: lerp1(l.pitch),
    roll: lerp1(l.roll),
  });
  return { ...t, frameCount: F, frameTime: dt, left: leg(t.left), right: leg(t.right), hips: lerp3(t.hips), up: [...t.up] };
}

/**
 * Training labels of the clean take on the 60 Hz grid: the offline teacher's per-foot contacts (heel OR
 * toe, src/contact/teacher.ts) on the clean take's own frames, carried to the grid by nearest frame. The
 * training takes are clean (their planted feet do not slide), so the teacher's sliding dwells are left out
 * (`slides: false`): there they only add a landing's or a lift-off's last slow frames; the `slide` copies
 * carry the clean labels like every other copy.
 */
export function cleanLabels(t: FootTracks): [Uint8Array, Uint8Array] {
  return teacherGrid(teacherLabels(t, { slides: false }), gridCountOf(t.frameCount, t.frameTime));
}

const OTHER_RATES = [24, 25, 30, 50, 120];

/** A degraded copy of `t` (never modifies `t`). `labels` are the clean take's grid labels (for `slide`). */
export function degrade(t: FootTracks, kind: Degradation, rng: Rng, labels: [Uint8Array, Uint8Array]): FootTracks {
  let c = copyTracks(t);
  const fps = () => {
    const native = 1 / t.frameTime;
    const rates = OTHER_RATES.filter((r) => Math.abs(r - native) > 2);
    return rates[rng.int(rates.length)];
  };
  switch (kind) {
    case 'clean':
      break;
    case 'noise':
      addNoise(c, rng, rng.uniform(0.005, 0.02), rng.uniform(0.01, 0.05));
      break;
    case 'rootNoise':
      addRootNoise(c, rng, rng.uniform(0.005, 0.02));
      break;
    case 'drift':
      addDrift(c, rng, rng.uniform(0.03, 0.3));
      break;
    case 'slide':
      addSlide(c, rng, rng.uniform(0.1, 0.4), labels);
      break;
    case 'floor':
      addFloorOffset(c, rng.uniform(-0.6, 0.6));
      break;
    case 'slope':
      addSlope(c, rng, rng.uniform(0.05, 0.17));
      break;
    case 'legs':
      scaleLegs(c, rng.uniform(0.8, 1.2));
      break;
    case 'fps':
      c = resampleTracks(c, fps());
      break;
    case 'raise':
      addRaisedStretch(c, rng, rng.uniform(0.1, 0.4));
      if (rng.next() < 0.5) c = resampleTracks(c, fps());
      break;
    case 'all':
      scaleLegs(c, rng.uniform(0.85, 1.15));
      addSlide(c, rng, rng.uniform(0.05, 0.25), labels);
      addDrift(c, rng, rng.uniform(0.03, 0.2));
      addSlope(c, rng, rng.uniform(0, 0.1));
      addFloorOffset(c, rng.uniform(-0.5, 0.5));
      if (rng.next() < 0.3) addRaisedStretch(c, rng, rng.uniform(0.1, 0.3));
      if (rng.next() < 0.5) c = resampleTracks(c, fps());
      if (rng.next() < 0.5) addRootNoise(c, rng, rng.uniform(0.003, 0.012));
      addNoise(c, rng, rng.uniform(0.003, 0.012), rng.uniform(0.01, 0.03));
      break;
  }
  return c;
}
