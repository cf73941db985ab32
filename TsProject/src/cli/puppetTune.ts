/**
 * `kind puppet tune` (./puppet.ts): the smoothing sweep over recordings (src/puppet/tune.ts) and its
 * terminal table. Moved as is from ./puppet.ts.
 */
import * as path from 'node:path';
import { loadLandmarkRecording, type RecordingLoadOptions } from '../io/node';
import { interruptPoint } from '../io/node/interrupt';
import {
  addLandmarkNoise,
  type Character,
  chooseTuneRow,
  DEFAULT_POSE_OPTIONS,
  DEFAULT_TUNE_GRID,
  frameHasPerson,
  framesText,
  type LandmarkRecording,
  type PoseOptions,
  PuppetInputError,
  resampleRecording,
  type TakeQuality,
  type TuneGrid,
  type TuneMeshRow,
  type TuneRow,
  tune,
  tuneMesh,
} from '../puppet';
import { checkOutputDir, refuseOverwritingInputs, writeFilesAtomically } from './files';
import { loadPuppetCharacter } from './puppetCharacter';
import { defaultPuppetDir, noPersonMessage } from './puppetRender';

export interface PuppetTuneOptions {
  recordings: string[];
  recording?: RecordingLoadOptions;
  /** Resample every recording at this rate first (e.g. a 5 fps reference to a webcam's 30). */
  resampleFps?: number;
  /** Gaussian landmark noise, a fraction of the image height (tune.ts addLandmarkNoise); the input is then the clean reference. */
  noise?: number;
  /** Noise seeds (one noisy copy per seed); default 3 when `noise` is given. */
  seeds?: number;
  grid?: TuneGrid;
  /** Lag allowed for the chosen row, ms (default 100). */
  maxLagMs?: number;
  /** Write the rows as JSON here (all or nothing). */
  json?: string;
  /**
   * Drawings (AnimatedDrawings folders or images) to run each recording onto for the mesh figures
   * (flipped triangles, area stretch: LBS against ARAP, with the chosen row's options); default the embedded
   * drawing. `false`: no mesh figures.
   */
  characters?: string[] | false;
}

export interface PuppetTuneResult {
  rows: TuneRow[];
  /** Per recording and drawing: the mesh figures (empty when not asked for). */
  mesh: TuneMeshRow[];
  chosen: TuneRow;
  defaults: Partial<PoseOptions>;
  recordings: { source: string; frames: number; copies: number }[];
  notes: string[];
}

/** The tune sweep over recording files. @throws as loadLandmarkRecording; RangeError for a bad grid value. */
export async function runPuppetTune(o: PuppetTuneOptions): Promise<PuppetTuneResult> {
  if (o.json) {
    checkOutputDir(path.dirname(path.resolve(o.json)));
    refuseOverwritingInputs(
      [o.json],
      o.recordings.map((r) => ({ role: 'landmark recording', path: r })),
      'choose another --json file',
    );
  }
  const notes: string[] = [];
  const recs: LandmarkRecording[] = [];
  const clean: (LandmarkRecording | undefined)[] = [];
  const listed: PuppetTuneResult['recordings'] = [];
  const seeds = o.noise ? (o.seeds ?? 3) : 1;
  const meshRecs: LandmarkRecording[] = [];
  for (const file of o.recordings) {
    const loaded = loadLandmarkRecording(file, o.recording);
    notes.push(...loaded.notes);
    if (o.json && loaded.worldFile)
      refuseOverwritingInputs(
        [o.json],
        [{ role: 'world landmarks file', path: loaded.worldFile }],
        'choose another --json file',
      );
    let rec = loaded.recording;
    if (!rec.frames.some((f) => frameHasPerson(f, 'auto')))
      throw new PuppetInputError(noPersonMessage(rec.frames.length, 'auto'), file);
    if (rec.frames.length < 3)
      throw new PuppetInputError(`${rec.frames.length} frame(s); jitter needs at least 3`, file);
    if (o.resampleFps) rec = resampleRecording(rec, o.resampleFps);
    meshRecs.push({ ...rec, source: file });
    for (let s = 0; s < seeds; s++) {
      if (o.noise) {
        recs.push(addLandmarkNoise(rec, o.noise, s + 1));
        clean.push(rec);
      } else {
        recs.push(rec);
        clean.push(undefined);
      }
    }
    listed.push({ source: file, frames: rec.frames.length, copies: seeds });
    await interruptPoint();
  }
  const grid = o.grid ?? DEFAULT_TUNE_GRID;
  const rows = tune(recs, grid, { clean: o.noise ? clean : undefined });
  const chosen = chooseTuneRow(rows, o.maxLagMs ?? 100);
  const defaults = Object.fromEntries(
    Object.keys(grid).map((k) => [k, DEFAULT_POSE_OPTIONS[k as keyof PoseOptions]]),
  ) as Partial<PoseOptions>;
  const characters: Character[] = [];
  // a big drawing is scaled down as for render (puppetCharacter.ts), the line saying so among the notes
  for (const c of o.characters === false ? [] : (o.characters ?? [defaultPuppetDir()])) {
    const loadedCharacter = await loadPuppetCharacter(c, {
      ...(o.characters === undefined ? { name: 'default' } : {}),
      onScaled: (line) => notes.push(line),
    });
    characters.push(loadedCharacter.character);
    await interruptPoint();
  }
  await interruptPoint();
  const mesh = tuneMesh(characters, meshRecs, { pose: chosen.options });
  const result: PuppetTuneResult = { rows, mesh, chosen, defaults, recordings: listed, notes };
  if (o.json) {
    await interruptPoint();
    writeFilesAtomically([
      {
        path: o.json,
        data: `${JSON.stringify({ tool: 'kind puppet tune', ...result, grid, noise: o.noise ?? 0, resampleFps: o.resampleFps ?? null }, null, 1)}\n`,
      },
    ]);
  }
  return result;
}

const fmt = (v: number | undefined, d: number) =>
  v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(d);

/** The tune table for the terminal: one row per setting, the chosen one and the defaults marked. */
export function formatTune(r: PuppetTuneResult): string {
  const keys = Object.keys(r.rows[0]?.options ?? {});
  const withErr = r.rows.some((x) => x.errorVsClean !== undefined);
  const same = (a: Partial<PoseOptions>, b: Partial<PoseOptions>) =>
    keys.every((k) => a[k as keyof PoseOptions] === b[k as keyof PoseOptions]);
  const head = [
    ...keys,
    'jitter raw',
    'smoothed',
    'ratio',
    'lag ms',
    ...(withErr ? ['error vs clean'] : []),
    'not measured',
    'outliers/100',
    '',
  ];
  const body = r.rows.map((x) => [
    ...keys.map((k) => String(x.options[k as keyof PoseOptions])),
    fmt(x.jitterRaw, 2),
    fmt(x.jitterFiltered, 2),
    fmt(x.jitterRatio, 3),
    fmt(x.lagMs, 0),
    ...(withErr ? [fmt(x.errorVsClean, 4)] : []),
    fmt(100 * x.notMeasured, 1),
    fmt(x.outliersPer100, 2),
    `${x === r.chosen ? '<- chosen' : ''}${same(x.options, r.defaults) ? `${x === r.chosen ? ', ' : '<- '}defaults` : ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padStart(widths[i]))
      .join('  ')
      .trimEnd();
  const recs = r.recordings.map(
    (x) => `${x.source} (${framesText(x.frames)}${x.copies > 1 ? ` x ${x.copies} noise seeds` : ''})`,
  );
  return [
    `tune over ${recs.join(', ')}: ${r.rows.length} settings; jitter = mean joint acceleration, body scales/s^2; lag behind the raw joints${withErr ? '; error = RMS distance from the clean joints, body scales' : ''}`,
    line(head),
    ...body.map(line),
    `chosen (${withErr ? 'least error vs clean' : 'least smoothed jitter'} with lag <= the limit): ${keys.map((k) => `${k} ${r.chosen.options[k as keyof PoseOptions]}`).join(', ')}; defaults: ${keys.map((k) => `${k} ${r.defaults[k as keyof PoseOptions]}`).join(', ')}`,
    ...formatTuneMesh(r.mesh),
    ...r.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

/** The mesh figures of tune: one line per recording and drawing, plain LBS -> ARAP. */
function formatTuneMesh(rows: TuneMeshRow[]): string[] {
  if (rows.length === 0) return [];
  const q = (t: TakeQuality) => `${t.framesWithFlips}/${t.frames} (${t.maxFlipped})`;
  return [
    'mesh, chosen options: frames with flipped triangles (most in a frame), area stretch max(r, 1/r) worst and p99; plain LBS -> the deformation',
    ...rows.map((x) => {
      const m = x.mesh;
      const d = m.deformed;
      const l = m.lbs;
      return `  ${x.recording} on ${x.character} (${m.deform}): flipped ${q(l)} -> ${q(d)}; stretch worst ${l.worstStretch.toFixed(2)} -> ${d.worstStretch.toFixed(2)}, p99 ${l.p99Stretch.toFixed(2)} -> ${d.p99Stretch.toFixed(2)}${m.guard.framesNotConverged > 0 ? `; guard not converged in ${m.guard.framesNotConverged} frame(s)` : ''}`;
    }),
  ];
}
