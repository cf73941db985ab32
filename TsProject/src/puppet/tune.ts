/**
 * The tune sweep (issue 12, item 8, data side; `kind puppet tune` prints it): run the pose pipeline over
 * recordings for each combination of option values and report jitter against lag, so the defaults are chosen
 * from data. Also the helpers that make a webcam-like test recording from a clean one (resample to a webcam
 * rate, add seeded landmark noise), because the real reference recording is 5 fps and already smooth.
 * And the drawing side of a recording (issue 22 part 3): {@link tuneMesh} runs recordings onto drawings and
 * reports the mesh's flipped triangles and area stretch, plain LBS against the deformation used, and the
 * deformed mesh's self-overlap (quality.ts OverlapMeter: puppetFile.ts `stats.mesh.overlap`).
 * Engine-free.
 */
import type { Character } from './character';
import type { DeformMode } from './deform';
import { makeLandmark, makePoseFrame } from './landmarks';
import { jitter, lagMs, rmsError, runPipeline } from './metrics';
import { type PoseOptions, resolvePoseOptions } from './options';
import { type PuppetMeshStats, PuppetRecorder } from './puppetFile';
import { PuppetSession } from './session';
import type { Landmark, LandmarkRecording, PoseFrame } from './types';

/** A sweep: for each pose option swept, the values tried. */
export type TuneGrid = Partial<Record<keyof PoseOptions, number[]>>;

/** The default sweep: the smoothing time constant, its speed adaptation and the outlier jump. */
export const DEFAULT_TUNE_GRID: TuneGrid = {
  smoothingMs: [0, 15, 30, 60, 100, 200],
  speedGain: [0, 1, 3, 10],
  outlierJump: [0.75, 1.5, 3],
};

/**
 * One row of `kind puppet tune`: the options of the row and what they gave (jitter before and after, lag,
 * error against the clean recording, joints not measured, outliers).
 */
export interface TuneRow {
  /** The swept values of this row (the other options: defaults, or `base`). */
  options: Partial<PoseOptions>;
  /**
   * Mean joint acceleration before smoothing (raw joints), body scales / s^2, frame-weighted over
   * recordings; joints below the visibility threshold in a frame used are left out (as puppet.json's).
   */
  jitterRaw: number;
  /** The same after the pipeline. */
  jitterFiltered: number;
  /** jitterFiltered / jitterRaw (< 1: smoother). */
  jitterRatio: number;
  /** Delay of the output behind the raw joints (metrics.lagMs, pooled), ms, frame-weighted mean. */
  lagMs: number;
  /** RMS distance of the output from the clean recording, body scales (only when clean recordings are given). */
  errorVsClean?: number;
  /** RMS distance of the raw joints from the clean recording, body scales (the noise level). */
  rawErrorVsClean?: number;
  /** Fraction of joint-frames that were not measured (held or inferred). */
  notMeasured: number;
  /** Outliers dropped per 100 frames. */
  outliersPer100: number;
  frames: number;
}

/**
 * Options of the tune sweep: the options not swept, clean recordings to measure the error against, and the
 * lag search.
 */
export interface TuneOptions {
  /** Options not swept (default DEFAULT_POSE_OPTIONS). */
  base?: Partial<PoseOptions>;
  /** Clean versions of the recordings (same frames), for errorVsClean; entries may be undefined. */
  clean?: (LandmarkRecording | undefined)[];
  /** Lag search limit and resolution, ms (default 600 and 5). */
  maxLagMs?: number;
  lagStepMs?: number;
}

function combinations(grid: TuneGrid): Partial<PoseOptions>[] {
  let rows: Partial<PoseOptions>[] = [{}];
  for (const [k, values] of Object.entries(grid)) {
    if (!values || values.length === 0) continue;
    const next: Partial<PoseOptions>[] = [];
    for (const r of rows) for (const v of values) next.push({ ...r, [k]: v });
    rows = next;
  }
  return rows;
}

/**
 * Sweep `grid` (each key a numeric PoseOptions field, each value list tried; the full product) over
 * `recordings`. Jitter is in body scales / s^2 (each recording's median torso length), so recordings of
 * different resolutions pool.
 * @throws RangeError for a grid value that is not a valid option (resolvePoseOptions), or no recordings.
 */
export function tune(
  recordings: LandmarkRecording[],
  grid: TuneGrid = DEFAULT_TUNE_GRID,
  o: TuneOptions = {},
): TuneRow[] {
  if (recordings.length === 0) throw new RangeError('tune: need at least one recording');
  const rows: TuneRow[] = [];
  const cleanRuns = (o.clean ?? []).map((c) =>
    c ? runPipeline(c, { ...o.base, smoothingMs: 0, outlierJump: Infinity }) : undefined,
  );
  for (const swept of combinations(grid)) {
    const opts = { ...o.base, ...swept };
    // jitter and lag over the joints at or above the threshold, as puppet.json and the page measure them
    // (a filled or junk joint is not the filter's jitter)
    const minConfidence = resolvePoseOptions(opts).visibilityThreshold;
    let frames = 0;
    let jr = 0;
    let jf = 0;
    let lag = 0;
    let lagFrames = 0;
    let err = 0;
    let rawErr = 0;
    let errFrames = 0;
    let notMeasured = 0;
    let outliers = 0;
    recordings.forEach((rec, i) => {
      const run = runPipeline(rec, opts);
      const n = rec.frames.length;
      const s = run.bodyScale > 0 ? run.bodyScale : 1;
      frames += n;
      const same = { bodyScale: s, minConfidence, confidenceFrom: run.raw };
      jr += jitter(run.raw, run.timesMs, same) * n;
      jf += jitter(run.filtered, run.timesMs, same) * n;
      const l = lagMs(run.filtered, run.raw, run.timesMs, {
        maxLagMs: o.maxLagMs ?? 600,
        stepMs: o.lagStepMs ?? 5,
        minConfidence,
      });
      if (Number.isFinite(l.lagMs)) {
        lag += l.lagMs * n;
        lagFrames += n;
      }
      const clean = cleanRuns[i];
      if (clean) {
        // the clean joints are the reference: its raw joints (no smoothing)
        err += rmsError(run.filtered, clean.raw, { bodyScale: s }) ** 2 * n;
        rawErr += rmsError(run.raw, clean.raw, { bodyScale: s }) ** 2 * n;
        errFrames += n;
      }
      for (const f of run.frames) notMeasured += 21 - f.counts.measured;
      outliers += run.outliers;
    });
    const row: TuneRow = {
      options: swept,
      jitterRaw: jr / frames,
      jitterFiltered: jf / frames,
      jitterRatio: jr > 0 ? jf / jr : 1,
      lagMs: lagFrames > 0 ? lag / lagFrames : Number.NaN,
      notMeasured: notMeasured / (21 * frames),
      outliersPer100: (100 * outliers) / frames,
      frames,
    };
    if (errFrames > 0) {
      row.errorVsClean = Math.sqrt(err / errFrames);
      row.rawErrorVsClean = Math.sqrt(rawErr / errFrames);
    }
    rows.push(row);
  }
  return rows;
}

/**
 * The row to use as defaults: the smallest errorVsClean when known, else the smallest jitterFiltered, among
 * rows whose lag is at most maxLagMs (all rows when none is).
 */
export function chooseTuneRow(rows: TuneRow[], maxLagMs = 100): TuneRow {
  const ok = rows.filter((r) => r.lagMs <= maxLagMs);
  const pool = ok.length > 0 ? ok : rows;
  const key = (r: TuneRow) => r.errorVsClean ?? r.jitterFiltered;
  return pool.reduce((a, b) => (key(b) < key(a) ? b : a));
}

function lerpLandmarks(
  a: Landmark[] | undefined,
  b: Landmark[] | undefined,
  u: number,
): Landmark[] | undefined {
  if (!a || !b || a.length !== b.length)
    return a ? a.map((p) => makeLandmark(p.x, p.y, p.z, p.visibility, p.presence)) : undefined;
  const mix = (p: number | undefined, q: number | undefined) =>
    p !== undefined && q !== undefined ? p + u * (q - p) : undefined;
  return a.map((p, i) => {
    const q = b[i];
    return makeLandmark(
      p.x + u * (q.x - p.x),
      p.y + u * (q.y - p.y),
      p.z + u * (q.z - p.z),
      mix(p.visibility, q.visibility),
      mix(p.presence, q.presence),
    );
  });
}

/** The recording resampled at `fps` by linear interpolation of every landmark between neighbouring frames. */
export function resampleRecording(rec: LandmarkRecording, fps: number): LandmarkRecording {
  if (!(fps > 0)) throw new RangeError(`resampleRecording: fps must be > 0, got ${fps}`);
  const fr = rec.frames;
  const t0 = fr[0].timestampMs;
  const t1 = fr[fr.length - 1].timestampMs;
  const out: PoseFrame[] = [];
  let k = 0;
  for (let i = 0; t0 + (i * 1000) / fps <= t1 + 1e-9; i++) {
    const t = t0 + (i * 1000) / fps;
    while (k + 1 < fr.length - 1 && fr[k + 1].timestampMs <= t) k++;
    const a = fr[k];
    const b = fr[Math.min(k + 1, fr.length - 1)];
    const u =
      b.timestampMs > a.timestampMs ? Math.min(1, (t - a.timestampMs) / (b.timestampMs - a.timestampMs)) : 0;
    out.push(
      makePoseFrame(
        t,
        lerpLandmarks(a.landmarks, b.landmarks, u),
        lerpLandmarks(a.worldLandmarks, b.worldLandmarks, u),
      ),
    );
  }
  return { image: { ...rec.image }, frames: out, source: `${rec.source ?? 'recording'} @${fps} fps` };
}

/** mulberry32 (Tommy Ettinger's 32-bit PRNG): a seeded uniform in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A copy with independent Gaussian noise (Box-Muller) added to every landmark's x and y: `sigma` is a
 * fraction of the image HEIGHT for `landmarks` (isotropic in pixels: e.g. 0.003 = 3.8 px on a 1280-high
 * image, both axes), and sigma x
 * `worldSigmaPerImage` metres for world landmarks (default 2: a ~2 m tall field of view). Seeded: the same
 * seed gives the same noise.
 */
export function addLandmarkNoise(
  rec: LandmarkRecording,
  sigma: number,
  seed = 1,
  worldSigmaPerImage = 2,
): LandmarkRecording {
  const rnd = mulberry32(seed);
  const gauss = () => {
    const u = 1 - rnd();
    const v = rnd();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const aspect = rec.image.height / rec.image.width;
  const noisy = (ls: Landmark[] | undefined, sx: number, sy: number) =>
    ls?.map((p) => makeLandmark(p.x + sx * gauss(), p.y + sy * gauss(), p.z, p.visibility, p.presence));
  return {
    image: { ...rec.image },
    source: `${rec.source ?? 'recording'} + noise ${sigma}`,
    frames: rec.frames.map((f) =>
      makePoseFrame(
        f.timestampMs,
        noisy(f.landmarks, sigma * aspect, sigma),
        noisy(f.worldLandmarks, sigma * worldSigmaPerImage, sigma * worldSigmaPerImage),
      ),
    ),
  };
}

/** One recording on one drawing: the mesh figures of the take (puppet.json's stats.mesh). */
export interface TuneMeshRow {
  recording: string;
  character: string;
  frames: number;
  mesh: PuppetMeshStats;
}

/**
 * Run each recording onto each drawing through a PuppetSession (pose options `pose`, deformation `deform`,
 * default ARAP) and collect the mesh figures: flipped triangles and area stretch of the deformation and of
 * plain LBS on the same frames (quality.ts). Setup per pair: the mesh and geodesic weights (up to a second).
 */
export function tuneMesh(
  characters: Character[],
  recordings: LandmarkRecording[],
  o: { pose?: Partial<PoseOptions>; deform?: DeformMode } = {},
): TuneMeshRow[] {
  const rows: TuneMeshRow[] = [];
  for (const character of characters)
    for (const rec of recordings) {
      const session = new PuppetSession(character, { pose: o.pose, image: rec.image, deform: o.deform });
      const recorder = new PuppetRecorder(session);
      for (const f of rec.frames) recorder.add(f.timestampMs, session.step(f));
      rows.push({
        recording: rec.source ?? 'recording',
        character: character.name,
        frames: rec.frames.length,
        mesh: recorder.meshStats(),
      });
    }
  return rows;
}
