/**
 * `kind qa`: compare a golden (approved) clip with a retargeted one and write `<dir>/qa.json` and a
 * self-contained `<dir>/qa.html` (atomically); `kind qa --batch` does the same for two folders of
 * clips, pairing them by relative path, evaluating in worker threads, with one review queue across
 * all clips.
 *
 * Exit codes (see {@link qaExitCode}): 0 when every clip is Pass or Warning; 3 when any clip is Error
 * (the report is written: artists must review); 1 for bad input (a file or profile that cannot be
 * read, a one-line error naming the file and field; in a batch, when no clip is Error but some pair
 * could not be read, after writing the report); 2 for a usage error.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { describeFsError, readInput } from '../io/node';
import { interruptPoint, withInterrupts } from '../io/node/interrupt';
import { runWorkerPool as runPool } from '../io/node/workerPool';
import { parseRigProfile, type RigProfile } from '../qa';
import { buildQaFile, type QaClipEntry, type QaFile, qaFileToJson } from '../qa-report';
import { type ChartAssets, renderQaHtml } from '../qa-report/html';
import { numberArg, outDirArg } from './args';
import { checkOutputDir, ensureOutputDir, refuseOverwritingInputs, writeFilesAtomically } from './files';
import { readJsonArgument } from './jsonArgument';
import { evaluatePair, QA_WORKER_MARK, type QaJob, type QaWorkerReply } from './qaWorker';
import { FPS_RANGE, fpsInRange } from './retarget';

/** Exit code of `kind qa` when a clip is Error. */
export const QA_EXIT_ERROR = 3;

export interface QaOptions {
  outDir: string;
  /** Rig profile JSON of the retargeted character (src/qa `parseRigProfile`). */
  profile?: string;
  lambda?: number;
  sampling?: 'seconds' | 'normalized';
  /** Animation in glTF/VRM inputs (both sides), and per side (these win). */
  clip?: string;
  goldenClip?: string;
  retargetedClip?: string;
  fps?: number;
}

export interface QaBatchOptions extends QaOptions {
  /** Worker threads: min(cpus, jobs, pairs); default the number of CPUs. */
  jobs?: number;
  onProgress?: (done: number, total: number, name: string) => void;
}

export interface QaRunResult {
  file: QaFile;
  outputs: { json: string; html: string };
}

/** uPlot's minified script and style sheet, read from its npm package (a dependency of the kind command). */
export function loadChartAssets(): ChartAssets {
  const read = (spec: string): string => {
    let p: string;
    try {
      p = require.resolve(spec, { paths: [__dirname, process.cwd()] });
    } catch {
      throw new Error(`${spec}: not found; the HTML report needs the uplot package (npm ci in TsProject)`);
    }
    return new TextDecoder().decode(readInput(p));
  };
  return { js: read('uplot/dist/uPlot.iife.min.js'), css: read('uplot/dist/uPlot.min.css') };
}

/** `--profile`: inline JSON or a JSON file (src/cli/jsonArgument.ts). */
function readProfile(value: string | undefined): RigProfile | undefined {
  if (value === undefined) return undefined;
  const { text, where } = readJsonArgument('--profile', value);
  return parseRigProfile(text, where);
}

function optionsOf(o: QaOptions): QaFile['options'] {
  return { lambda: o.lambda ?? null, sampling: o.sampling ?? 'seconds', profile: o.profile ?? null };
}

function jobOf(o: QaOptions, name: string, golden: string, retargeted: string, profile?: RigProfile): QaJob {
  return {
    name,
    golden,
    retargeted,
    goldenClip: o.goldenClip ?? o.clip,
    retargetedClip: o.retargetedClip ?? o.clip,
    fps: o.fps,
    profile,
    lambda: o.lambda,
    sampling: o.sampling,
  };
}

async function writeReport(outDir: string, file: QaFile, profile?: string): Promise<QaRunResult['outputs']> {
  const html = renderQaHtml(file, loadChartAssets());
  const outputs = { json: path.join(outDir, 'qa.json'), html: path.join(outDir, 'qa.html') };
  // the clips are BVH/glTF files and cannot be qa.json or qa.html; a --profile file can
  if (profile !== undefined)
    refuseOverwritingInputs([outputs.json, outputs.html], [{ role: '--profile file', path: profile }]);
  await interruptPoint(); // nothing is written once interrupted; the write below is never cut short
  ensureOutputDir(outDir);
  writeFilesAtomically([
    { path: outputs.json, data: qaFileToJson(file) },
    { path: outputs.html, data: html },
  ]);
  return outputs;
}

/**
 * One pair: load both clips, evaluate, write qa.json and qa.html.
 * @throws Error naming the file (and line or field) when a clip or the profile cannot be read; nothing
 * is written then.
 */
export async function runQa(golden: string, retargeted: string, o: QaOptions): Promise<QaRunResult> {
  checkOutputDir(o.outDir);
  const profile = readProfile(o.profile);
  const name = path.basename(retargeted, path.extname(retargeted));
  const entry = await evaluatePair(jobOf(o, name, golden, retargeted, profile));
  if (entry.error) throw new Error(entry.error);
  const file = buildQaFile({ mode: 'single', golden, retargeted, options: optionsOf(o), clips: [entry] });
  return { file, outputs: await writeReport(o.outDir, file, o.profile) };
}

/** File types `kind qa` reads, in the order of preference when a folder holds one clip in several. */
export const QA_CLIP_EXTENSIONS = ['.bvh', '.glb', '.vrm', '.gltf'] as const;

export interface QaPairing {
  pairs: { name: string; golden: string; retargeted: string }[];
  /** Relative paths with no partner. */
  unpaired: { golden: string[]; retargeted: string[] };
  notes: string[];
}

/** Clip files under `dir` (recursive), relative paths with '/' separators, sorted. */
function listClips(dir: string, label: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw new Error(describeFsError(dir, e));
  }
  if (!st.isDirectory()) throw new Error(`${dir}: the ${label} folder is a file; --batch takes two folders`);
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(dir, rel);
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      throw new Error(describeFsError(abs, e));
    }
    for (const d of names) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) walk(r);
      else if ((QA_CLIP_EXTENSIONS as readonly string[]).includes(path.extname(d.name).toLowerCase()))
        out.push(r);
    }
  };
  walk('');
  return out.sort();
}

const stemOf = (rel: string): string => rel.slice(0, rel.length - path.extname(rel).length);

/**
 * Pair the clips of two folders: by relative path without the extension (case-insensitive), then the
 * remaining ones by file name without extension when that is unique on both sides. When a folder has
 * one clip in several formats (walk.bvh and walk.glb, as `kind retarget` writes), the first of
 * {@link QA_CLIP_EXTENSIONS} is used and the others are noted.
 */
export function pairClips(goldenDir: string, retargetedDir: string): QaPairing {
  const notes: string[] = [];
  const index = (dir: string, label: string) => {
    const m = new Map<string, string>();
    const rank = (r: string) =>
      (QA_CLIP_EXTENSIONS as readonly string[]).indexOf(path.extname(r).toLowerCase());
    for (const rel of listClips(dir, label)) {
      const key = stemOf(rel).toLowerCase();
      const prev = m.get(key);
      if (prev === undefined) m.set(key, rel);
      else {
        const [keep, drop] = rank(rel) < rank(prev) ? [rel, prev] : [prev, rel];
        m.set(key, keep);
        notes.push(`${label} ${drop}: same clip as ${keep}; using ${keep}`);
      }
    }
    return m;
  };
  const g = index(goldenDir, 'golden');
  const r = index(retargetedDir, 'retargeted');
  const pairs: QaPairing['pairs'] = [];
  for (const [k, rel] of g) {
    const other = r.get(k);
    if (other === undefined) continue;
    pairs.push({
      name: stemOf(other),
      golden: path.join(goldenDir, rel),
      retargeted: path.join(retargetedDir, other),
    });
    g.delete(k);
    r.delete(k);
  }
  // by file name, where unique on both sides
  const byBase = (m: Map<string, string>) => {
    const b = new Map<string, string[]>();
    for (const k of m.keys()) {
      const base = k.split('/').pop()!;
      b.set(base, [...(b.get(base) ?? []), k]);
    }
    return b;
  };
  const gb = byBase(g);
  const rb = byBase(r);
  for (const [base, gk] of gb) {
    const rk = rb.get(base);
    if (gk.length !== 1 || !rk || rk.length !== 1) continue;
    const gr = g.get(gk[0])!;
    const rr = r.get(rk[0])!;
    pairs.push({
      name: stemOf(rr),
      golden: path.join(goldenDir, gr),
      retargeted: path.join(retargetedDir, rr),
    });
    notes.push(`paired by file name: golden ${gr} with retargeted ${rr}`);
    g.delete(gk[0]);
    r.delete(rk[0]);
  }
  pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { pairs, unpaired: { golden: [...g.values()].sort(), retargeted: [...r.values()].sort() }, notes };
}

/**
 * The worker bundle: dist/qaWorker.cjs next to the bundled command (dist/kind.cjs), or, when running
 * from the sources (tests), TsProject/dist/qaWorker.cjs as `npm run build` makes it. Null if absent.
 */
export function findWorkerBundle(): string | null {
  const candidates = [
    path.join(__dirname, 'qaWorker.cjs'),
    path.resolve(__dirname, '../../dist/qaWorker.cjs'),
  ];
  return candidates.find((c) => fs.existsSync(c)) ?? null;
}

/**
 * Evaluate jobs on a pool of `size` worker threads running `workerFile` (src/io/node/workerPool.ts).
 * A worker that dies (an uncaught error, out of memory) fails only its current job, with an error
 * entry, and is replaced. Results come back in job order. While the pool runs, an interrupt
 * (src/io/node/interrupt.ts) terminates its workers.
 */
export async function runWorkerPool(
  jobs: readonly QaJob[],
  size: number,
  workerFile: string,
  onDone?: (entry: QaClipEntry, done: number) => void,
): Promise<QaClipEntry[]> {
  const replies = await runPool<QaJob, QaWorkerReply>(jobs, {
    workerFile,
    size,
    workerData: { mark: QA_WORKER_MARK },
    failed: (j, id, why) => ({
      id,
      entry: {
        name: j.name,
        golden: j.golden,
        retargeted: j.retargeted,
        result: 'Failed',
        severity: 0,
        error: `${j.retargeted}: the QA worker stopped (${why})`,
      },
    }),
    onDone: onDone && ((r, done) => onDone(r.entry, done)),
  });
  return replies.map((r) => r.entry);
}

/**
 * Two folders: pair the clips ({@link pairClips}), evaluate each pair in a worker thread, write one
 * qa.json and qa.html with the review queue across all clips. A pair that cannot be read is an error
 * entry in the report, not a failure of the batch.
 * @throws Error for a folder that cannot be read, a bad profile, or an output folder that cannot be made.
 */
export async function runQaBatch(
  goldenDir: string,
  retargetedDir: string,
  o: QaBatchOptions,
): Promise<QaRunResult> {
  checkOutputDir(o.outDir);
  const profile = readProfile(o.profile);
  const pairing = pairClips(goldenDir, retargetedDir);
  const notes = [...pairing.notes];
  const jobs = pairing.pairs.map((p) => jobOf(o, p.name, p.golden, p.retargeted, profile));
  const size = Math.max(
    1,
    Math.min(os.availableParallelism?.() ?? os.cpus().length, o.jobs ?? Infinity, jobs.length),
  );
  const worker = findWorkerBundle();
  let clips: QaClipEntry[];
  if (worker && jobs.length > 0) {
    clips = await runWorkerPool(jobs, size, worker, (e, done) => o.onProgress?.(done, jobs.length, e.name));
  } else {
    if (jobs.length > 0)
      notes.push(
        'the worker bundle dist/qaWorker.cjs was not found (npm run build): clips were evaluated one by one in the main thread',
      );
    clips = [];
    for (const j of jobs) {
      clips.push(await evaluatePair(j));
      await interruptPoint();
      o.onProgress?.(clips.length, jobs.length, j.name);
    }
  }
  const file = buildQaFile({
    mode: 'batch',
    golden: goldenDir,
    retargeted: retargetedDir,
    options: optionsOf(o),
    clips,
    unpaired: pairing.unpaired,
    notes,
  });
  return { file, outputs: await writeReport(o.outDir, file, o.profile) };
}

/** 3 when any clip is Error; else 1 when some pair could not be evaluated or there was no pair; else 0. */
export function qaExitCode(file: QaFile): number {
  if (file.counts.error > 0) return QA_EXIT_ERROR;
  if (file.counts.failed > 0 || file.counts.clips === 0) return 1;
  return 0;
}

/** A short human summary: the result, the worst runs with their one-line messages, the files written. */
export function formatQaSummary(r: QaRunResult, worst = 5): string {
  const f = r.file;
  const lines: string[] = [];
  if (f.mode === 'single' && f.clips[0]?.report) {
    const c = f.clips[0].report;
    lines.push(
      `qa '${c.name}': ${c.result} (${c.frames} frames at ${c.fps.toFixed(3)} fps, ${c.durationSeconds.toFixed(2)} s; score S max ${c.maxScore.toFixed(3)}, mean ${c.meanScore.toFixed(3)}; ${c.runs.length} flagged run${c.runs.length === 1 ? '' : 's'})`,
    );
    // the clip-level findings (length mismatch, short excursions, mirrored, resampling), up to three
    for (const w of c.warnings.filter((x) => !/^(golden|retargeted): /.test(x)).slice(0, 3))
      lines.push(`  note: ${w}`);
  } else {
    const n = f.counts;
    lines.push(
      `qa batch: ${f.result} (${n.clips} clip${n.clips === 1 ? '' : 's'}: ${n.pass} Pass, ${n.warning} Warning, ${n.error} Error, ${n.failed} failed; ${f.reviewQueue.length} flagged runs)`,
    );
    for (const c of f.clips.filter((x) => x.error)) lines.push(`  failed: ${c.name}: ${c.error}`);
    const un = [
      ...f.unpaired.golden.map((g) => `golden ${g}`),
      ...f.unpaired.retargeted.map((g) => `retargeted ${g}`),
    ];
    if (un.length > 0)
      lines.push(
        `  unpaired: ${un.slice(0, 6).join(', ')}${un.length > 6 ? `, ... (${un.length} in qa.json)` : ''}`,
      );
  }
  for (const e of f.reviewQueue.slice(0, worst)) {
    const where = f.mode === 'batch' ? `${e.clip}: ` : '';
    lines.push(`  [${e.level}] ${where}${e.message}`);
  }
  if (f.reviewQueue.length > worst)
    lines.push(`  ... ${f.reviewQueue.length - worst} more in the review queue`);
  for (const n of f.notes.slice(0, 3)) lines.push(`  note: ${n}`);
  lines.push(`  wrote ${r.outputs.json}, ${r.outputs.html}`);
  return lines.join('\n');
}

/**
 * Add `kind qa` to the program. `setExitCode` receives the command's exit code (0, 1 or 3) when the
 * report was written; errors before that are thrown (exit 1 or 2 by `main`).
 */
export function registerQaCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('qa')
    .description(
      'compare a golden clip with a retargeted one: flagged runs (twist, rotation, wrist, shoulder, hand position), a review queue, <dir>/qa.json and a self-contained <dir>/qa.html.\nWith --batch, <golden> and <retargeted> are folders whose clips are paired by relative path.\nExit code 0: Pass or Warning; 3: some clip is Error; 1: bad input (or, with --batch, a pair that could not be read); 2: usage.',
    )
    .argument('<golden>', 'golden (approved) clip: .bvh, or .glb/.gltf/.vrm (a folder with --batch)')
    .argument('<retargeted>', 'retargeted clip to check (a folder with --batch)')
    .option('-o, --out <dir>', 'output folder', outDirArg, 'qa-out')
    .option(
      '--profile <json>',
      'rig profile of the retargeted character (bone map, twist axes, thresholds, weights, flags): a JSON file, or inline JSON {...}',
    )
    .option(
      '--lambda <x>',
      'weight of the hand twist in the wrist measure (default 0.6)',
      numberArg('--lambda', '0..10', (v) => v >= 0 && v <= 10),
    )
    .addOption(
      new Option('--sampling <mode>', 'time matching of the two clips')
        .choices(['seconds', 'normalized'])
        .default('seconds'),
    )
    .option('--clip <name>', 'animation to use in glTF/VRM inputs (default: the first)')
    .option('--golden-clip <name>', 'animation to use in a glTF/VRM golden file')
    .option('--retargeted-clip <name>', 'animation to use in a glTF/VRM retargeted file')
    .option(
      '--fps <n>',
      'sampling rate for glTF clips with uneven keys',
      numberArg('--fps', FPS_RANGE.text, fpsInRange),
    )
    .option('--batch', 'compare every clip of two folders (worker threads, one review queue)')
    .option(
      '--jobs <n>',
      'worker threads with --batch (default: the number of CPUs)',
      numberArg('--jobs', 'a whole number 1..256', (v) => Number.isInteger(v) && v >= 1 && v <= 256),
    )
    .option('-q, --quiet', 'print nothing but errors')
    .action(async (golden: string, retargeted: string, opts) => {
      if (opts.jobs !== undefined && !opts.batch) throw new InvalidArgumentError('--jobs applies to --batch');
      const common: QaOptions = {
        outDir: opts.out,
        profile: opts.profile,
        lambda: opts.lambda,
        sampling: opts.sampling,
        clip: opts.clip,
        goldenClip: opts.goldenClip,
        retargetedClip: opts.retargetedClip,
        fps: opts.fps,
      };
      let result: QaRunResult;
      if (opts.batch) {
        let bar: SingleBar | null = null;
        result = await withInterrupts('kind qa', () =>
          runQaBatch(golden, retargeted, {
            ...common,
            jobs: opts.jobs,
            onProgress: (done, total, name) => {
              if (opts.quiet || !process.stderr.isTTY) return;
              if (!bar) {
                bar = new SingleBar({
                  format: 'qa [{bar}] {value}/{total} clips | {clip}',
                  stream: process.stderr,
                });
                bar.start(total, 0, { clip: '' });
              }
              bar.update(done, { clip: name });
              if (done === total) bar.stop();
            },
          }),
        );
      } else {
        result = await withInterrupts('kind qa', () => runQa(golden, retargeted, common));
      }
      if (!opts.quiet) console.log(formatQaSummary(result));
      // quiet: still say what could not be read (the report has it too)
      else
        for (const c of result.file.clips.filter((x) => x.error))
          console.error(`kind qa: failed: ${c.name}: ${c.error}`);
      setExitCode(qaExitCode(result.file));
    });
}
