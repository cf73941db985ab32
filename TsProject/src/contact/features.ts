/**
 * Per-frame contact features and the model's input windows.
 *
 * The tracks are resampled to a fixed 60 Hz grid (linear interpolation of positions and angles), so a
 * window of `2 * WINDOW_RADIUS + 1` grid frames always spans 1/3 s (t - 1/6 s .. t + 1/6 s) at any
 * source frame rate. Per grid frame and foot, {@link FEATURE_COUNT} features (issue 11, point 2);
 * lengths are divided by the leg length L (so a take scaled by any factor gives the same features):
 *
 * | # | feature | unit |
 * |---|---|---|
 * | 0 | ankle height above the floor, minus the ankles' contact level (5th percentile of that height) | L |
 * | 1 | toe height above the floor, minus the toes' contact level (the ankle's when there is no toe) | L |
 * | 2 | ankle horizontal speed | L/s |
 * | 3 | toe horizontal speed (ankle when no toe) | L/s |
 * | 4 | ankle vertical speed (signed, up positive) | L/s |
 * | 5 | ankle pitch relative to rest | rad |
 * | 6 | ankle roll relative to rest (outer edge up positive, both feet) | rad |
 * | 7 | knee height above the floor | L |
 * | 8 | root (hips) horizontal speed | L/s |
 * | 9 | the other foot's lowest height, min(feature 0, feature 1) of the other foot | L |
 *
 * Speeds are central differences over +-1/60 s (one grid step) of the resampled positions.
 */
import { type FloorEstimate, quantile } from './floor';
import type { FootTracks, LegTrack } from './tracks';

/** Rate of the feature grid, frames per second. */
export const GRID_FPS = 60;
/** Window half-width k in grid frames (1/6 s at 60 Hz). */
export const WINDOW_RADIUS = 10;
/** Grid frames per window (2k + 1). */
export const WINDOW_SIZE = 2 * WINDOW_RADIUS + 1;
/** Features per grid frame and foot. */
export const FEATURE_COUNT = 10;
/** Model input length: WINDOW_SIZE * FEATURE_COUNT, tap-major (`x[j * FEATURE_COUNT + c]`, j = 0 is t - k). */
export const INPUT_SIZE = WINDOW_SIZE * FEATURE_COUNT;
/** Names of the {@link FEATURE_COUNT} features per grid frame and foot, in their order in the model input. */
export const FEATURE_NAMES = [
  'ankleHeight',
  'toeHeight',
  'ankleSpeedH',
  'toeSpeedH',
  'ankleSpeedV',
  'pitch',
  'roll',
  'kneeHeight',
  'rootSpeedH',
  'otherFootHeight',
] as const;

/**
 * The learned model's features of a take on the 60 Hz grid, per foot (heights in leg lengths above the local
 * ground, speeds in leg lengths per second, angles in radians).
 */
export interface ContactFeatures {
  /** Number of grid frames G: grid frame g is at time g / GRID_FPS seconds. */
  gridCount: number;
  /** `Float32Array(G * FEATURE_COUNT)` per foot, frame-major. */
  left: Float32Array;
  right: Float32Array;
}

/** Linear interpolation of a 3-vector track at fractional frame `x` (clamped), into out[0..2]. */
function sample3(a: Float64Array, frames: number, x: number, out: Float64Array): void {
  const xc = x <= 0 ? 0 : Math.min(x, frames - 1);
  const i = Math.min(frames - 2, Math.floor(xc));
  const u = xc - i;
  for (let c = 0; c < 3; c++) out[c] = a[3 * i + c] * (1 - u) + a[3 * i + 3 + c] * u;
}

function sample1(a: Float64Array, frames: number, x: number): number {
  const xc = x <= 0 ? 0 : Math.min(x, frames - 1);
  const i = Math.min(frames - 2, Math.floor(xc));
  const u = xc - i;
  return a[i] * (1 - u) + a[i + 1] * u;
}

/** Number of 60 Hz grid frames covering a take of `frameCount` frames `frameTime` apart. */
export function gridCountOf(frameCount: number, frameTime: number): number {
  return Math.floor((frameCount - 1) * frameTime * GRID_FPS + 1e-6) + 1;
}

/**
 * Features of both feet on the 60 Hz grid (see the module table).
 * @param floor the floor to measure heights from (default: none given means the caller passes
 *   `estimateFloor(tracks)`).
 */
export function contactFeatures(tracks: FootTracks, floor: FloorEstimate): ContactFeatures {
  const F = tracks.frameCount;
  const dt = tracks.frameTime;
  const G = gridCountOf(F, dt);
  const L = tracks.legLength;
  const n = floor.normal;
  const h = 1 / GRID_FPS;
  const duration = (F - 1) * dt;
  const heightOf = (p: Float64Array) => n[0] * p[0] + n[1] * p[1] + n[2] * p[2] + floor.d;
  const a = new Float64Array(3);
  const b = new Float64Array(3);
  // Raw per-grid heights (metres) for the contact levels.
  const raw = (leg: LegTrack) => {
    const ankle = new Float64Array(G);
    const toe = new Float64Array(G);
    const knee = new Float64Array(G);
    for (let g = 0; g < G; g++) {
      const x = (g * h) / dt;
      sample3(leg.ankle, F, x, a);
      ankle[g] = heightOf(a);
      if (leg.toe) {
        sample3(leg.toe, F, x, a);
        toe[g] = heightOf(a);
      }
      sample3(leg.knee, F, x, a);
      knee[g] = heightOf(a);
    }
    return { ankle, toe, knee };
  };
  const rl = raw(tracks.left);
  const rr = raw(tracks.right);
  const both = (x: Float64Array, y: Float64Array) => {
    const c = new Float64Array(2 * G);
    c.set(x);
    c.set(y, G);
    return c;
  };
  const ankleLevel = quantile(both(rl.ankle, rr.ankle), 0.05);
  const hasToe = tracks.left.toe !== null && tracks.right.toe !== null;
  const toeLevel = hasToe ? quantile(both(rl.toe, rr.toe), 0.05) : ankleLevel;
  // Speed of a track at grid time t: central difference over [t - h, t + h] clamped to the take.
  const speed = (arr: Float64Array, t: number, out: { h: number; v: number }) => {
    const t0 = Math.max(0, t - h);
    const t1 = Math.min(duration, t + h);
    sample3(arr, F, t0 / dt, a);
    sample3(arr, F, t1 / dt, b);
    const span = t1 - t0 > 1e-12 ? t1 - t0 : 1;
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const dz = b[2] - a[2];
    const dn = dx * n[0] + dy * n[1] + dz * n[2];
    out.v = dn / span;
    out.h = Math.hypot(dx - dn * n[0], dy - dn * n[1], dz - dn * n[2]) / span;
  };
  const sA = { h: 0, v: 0 };
  const sT = { h: 0, v: 0 };
  const sR = { h: 0, v: 0 };
  const left = new Float32Array(G * FEATURE_COUNT);
  const right = new Float32Array(G * FEATURE_COUNT);
  for (let g = 0; g < G; g++) {
    const t = g * h;
    const x = t / dt;
    speed(tracks.hips, t, sR);
    for (let side = 0; side < 2; side++) {
      const leg = side === 0 ? tracks.left : tracks.right;
      const r = side === 0 ? rl : rr;
      const o = side === 0 ? rr : rl;
      const out = side === 0 ? left : right;
      const k = g * FEATURE_COUNT;
      speed(leg.ankle, t, sA);
      if (leg.toe) speed(leg.toe, t, sT);
      else {
        sT.h = sA.h;
        sT.v = sA.v;
      }
      const ah = (r.ankle[g] - ankleLevel) / L;
      const th = leg.toe ? (r.toe[g] - toeLevel) / L : ah;
      const oah = (o.ankle[g] - ankleLevel) / L;
      const oth = hasToe ? (o.toe[g] - toeLevel) / L : oah;
      out[k] = ah;
      out[k + 1] = th;
      out[k + 2] = sA.h / L;
      out[k + 3] = sT.h / L;
      out[k + 4] = sA.v / L;
      out[k + 5] = sample1(leg.pitch, F, x);
      out[k + 6] = sample1(leg.roll, F, x);
      out[k + 7] = r.knee[g] / L;
      out[k + 8] = sR.h / L;
      out[k + 9] = Math.min(oah, oth);
    }
  }
  return { gridCount: G, left, right };
}

/**
 * Copy the window around grid frame `g` of one foot's features into `out` at `offset`
 * (INPUT_SIZE values, tap-major; taps past either end repeat the end frame). Allocates nothing.
 */
export function writeWindow(
  features: Float32Array,
  gridCount: number,
  g: number,
  out: Float32Array,
  offset: number,
): void {
  for (let j = 0; j < WINDOW_SIZE; j++) {
    let s = g + j - WINDOW_RADIUS;
    if (s < 0) s = 0;
    else if (s >= gridCount) s = gridCount - 1;
    const src = s * FEATURE_COUNT;
    const dst = offset + j * FEATURE_COUNT;
    for (let c = 0; c < FEATURE_COUNT; c++) out[dst + c] = features[src + c];
  }
}

/**
 * Values on the 60 Hz grid (`grid`, length G) back at the take's own frames (linear interpolation in
 * time; frames past the last grid time take the last value). Returns `Float32Array(frameCount)`.
 */
export function gridToFrames(grid: ArrayLike<number>, frameCount: number, frameTime: number): Float32Array {
  const out = new Float32Array(frameCount);
  const G = grid.length;
  for (let f = 0; f < frameCount; f++) {
    const x = f * frameTime * GRID_FPS;
    if (x >= G - 1) out[f] = grid[G - 1];
    else {
      const i = Math.floor(x);
      const u = x - i;
      out[f] = grid[i] * (1 - u) + grid[i + 1] * u;
    }
  }
  return out;
}
