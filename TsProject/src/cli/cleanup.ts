/**
 * `kind cleanup`: foot-slide cleanup of BVH takes (issue 11). One take: `<dir>/<name>.bvh` (the
 * cleaned take, in the input's layout), `<dir>/cleanup.json` and `<dir>/cleanup.html`, written all or
 * nothing (./files.ts `writeFilesAtomically`, interrupts guarded by src/io/node/interrupt.ts). With
 * `--batch <folder>`: every .bvh under the folder, cleaned in worker threads, written as
 * `<dir>/<stem>.bvh`, `<dir>/<stem>.cleanup.json`, `<dir>/<stem>.cleanup.html` and one
 * `<dir>/summary.json`, again all or nothing; a summary table is printed.
 *
 * Exit codes: 0 done; 1 bad input (one line naming the file, line, bone or frame; nothing written),
 * or with --batch when some take failed (the others are written, the failures listed); 2 usage.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { FootName } from '../cleanup';
import type { CleanupFile } from '../cleanup-report';
import { defaultAssetsDir, describeFsError } from '../io/node';
import { interruptPoint, withInterrupts } from '../io/node/interrupt';
import { runWorkerPool } from '../io/node/workerPool';
import { outDirArg } from './args';
import {
  CLEANUP_STAGES,
  type CleanupJob,
  cleanTake,
  DEFAULT_REVIEW_BAND,
  formatCleanupSummary,
  takeStem,
} from './cleanupRun';
import { CLEANUP_WORKER_MARK, type CleanupWorkerReply, runCleanupJob } from './cleanupWorker';
import { CONTACT_MODEL_NAMES, type ContactModelName, DEFAULT_CONTACT_MODEL } from './contactSource';
import {
  checkOutputDir,
  ensureOutputDir,
  type OutputFile,
  refuseOverwritingInputs,
  writeFilesAtomically,
} from './files';

export interface CleanupCommandOptions {
  outDir: string;
  model?: ContactModelName;
  modelFile?: string;
  rootCorrection?: boolean;
  reviewBand?: [number, number];
  /** Worker threads for --batch (default: the number of CPUs). */
  jobs?: number;
  onStage?: (stage: number, total: number, frames: number) => void;
  onProgress?: (done: number, total: number, name: string) => void;
}

export interface CleanupRunResult {
  file: CleanupFile;
  outputs: { bvh: string; json: string; html: string };
}

function jobOf(input: string, outBvh: string, o: CleanupCommandOptions): CleanupJob {
  return {
    input,
    outBvh,
    model: o.model ?? DEFAULT_CONTACT_MODEL,
    modelFile: o.modelFile,
    rootCorrection: o.rootCorrection ?? false,
    reviewBand: o.reviewBand ?? DEFAULT_REVIEW_BAND,
  };
}

/** Clean one take and write its three outputs (all or nothing). */
export async function runCleanup(input: string, o: CleanupCommandOptions): Promise<CleanupRunResult> {
  checkOutputDir(o.outDir);
  const outputs = {
    bvh: path.join(o.outDir, `${takeStem(input)}.bvh`),
    json: path.join(o.outDir, 'cleanup.json'),
    html: path.join(o.outDir, 'cleanup.html'),
  };
  if (path.resolve(outputs.bvh) === path.resolve(input))
    throw new Error(`${outputs.bvh}: would overwrite the input; choose another output folder`);
  // the same file through a symbolic or hard link, `..` or letter case: compared by device and inode
  refuseOverwritingInputs([outputs.bvh, outputs.json, outputs.html], [{ role: 'input take', path: input }]);
  let F = 0;
  const done = await cleanTake(jobOf(input, outputs.bvh, o), {
    onStage: (s, frames) => {
      F = frames;
      o.onStage?.(s, CLEANUP_STAGES.length, frames);
    },
  });
  await interruptPoint(); // nothing is written once interrupted; the write below is never cut short
  ensureOutputDir(o.outDir);
  writeFilesAtomically([
    { path: outputs.bvh, data: done.bvh },
    { path: outputs.json, data: done.json },
    { path: outputs.html, data: done.html },
  ]);
  o.onStage?.(CLEANUP_STAGES.length, CLEANUP_STAGES.length, F);
  return { file: done.file, outputs };
}

/** .bvh files under `dir` (recursive), relative paths with '/' separators, sorted. */
export function listTakes(dir: string): string[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw new Error(describeFsError(dir, e));
  }
  if (!st.isDirectory()) throw new Error(`${dir}: is a file; --batch takes a folder of .bvh takes`);
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
      else if (path.extname(d.name).toLowerCase() === '.bvh') out.push(r);
    }
  };
  walk('');
  return out.sort();
}

export interface BatchEntry {
  name: string;
  input: string;
  error?: string;
  /** The per-take figures (from its cleanup.json). */
  frames?: number;
  fps?: number;
  model?: string;
  segments?: Record<FootName, number>;
  /**
   * The supporting point's slide in contact (issue 20: the heel while it is pinned, else the toe), both
   * feet summed, metres: cleanup.json's `metrics.<before|after>.<foot>.pinnedSlide`, and its heel and toe
   * parts (`slideHeel`, `slideToe`). This is the figure the terminal's headline gives.
   */
  supportSlideBefore?: number;
  supportSlideAfter?: number;
  heelSlideBefore?: number;
  heelSlideAfter?: number;
  toeSlideBefore?: number;
  toeSlideAfter?: number;
  /** The ankle's own slide in contact (cleanup.json's version-1 `slideTotal`), both feet, metres. */
  slideBefore?: number;
  slideAfter?: number;
  speedBefore?: number;
  speedAfter?: number;
  penetrationBefore?: number;
  penetrationAfter?: number;
  skatingBefore?: number;
  skatingAfter?: number;
  kneePops?: number;
  ikKneeMaxDeg?: number;
  review?: number;
  limits?: number;
  /** Ground levels the contacts stand on and the highest minus the lowest, metres (issue 20). */
  groundLevels?: number;
  groundSpread?: number;
  outputs?: { bvh: string; json: string; html: string };
}

export interface BatchResult {
  tool: 'kind cleanup --batch';
  folder: string;
  takes: BatchEntry[];
  counts: { takes: number; cleaned: number; failed: number };
  summary: string;
}

type Summed = 'slideTotal' | 'pinnedSlide' | 'slideHeel' | 'slideToe';
const sum = (f: CleanupFile, w: 'before' | 'after', k: Summed | 'penetrationMax' | 'skatingRatio') =>
  k === 'slideTotal' || k === 'pinnedSlide' || k === 'slideHeel' || k === 'slideToe'
    ? f.metrics[w].left[k] + f.metrics[w].right[k]
    : Math.max(f.metrics[w].left[k], f.metrics[w].right[k]);

const meanSpeed = (f: CleanupFile, w: 'before' | 'after') => {
  const l = f.metrics[w].left;
  const r = f.metrics[w].right;
  const n = l.contactFrames + r.contactFrames;
  return n > 0 ? (l.meanContactSpeed * l.contactFrames + r.meanContactSpeed * r.contactFrames) / n : 0;
};

function entryOf(name: string, input: string, f: CleanupFile, outputs: BatchEntry['outputs']): BatchEntry {
  return {
    name,
    input,
    frames: f.frames,
    fps: f.fps,
    model: f.model,
    segments: { left: f.feet.left.segments.length, right: f.feet.right.segments.length },
    supportSlideBefore: sum(f, 'before', 'pinnedSlide'),
    supportSlideAfter: sum(f, 'after', 'pinnedSlide'),
    heelSlideBefore: sum(f, 'before', 'slideHeel'),
    heelSlideAfter: sum(f, 'after', 'slideHeel'),
    toeSlideBefore: sum(f, 'before', 'slideToe'),
    toeSlideAfter: sum(f, 'after', 'slideToe'),
    slideBefore: sum(f, 'before', 'slideTotal'),
    slideAfter: sum(f, 'after', 'slideTotal'),
    speedBefore: meanSpeed(f, 'before'),
    speedAfter: meanSpeed(f, 'after'),
    penetrationBefore: sum(f, 'before', 'penetrationMax'),
    penetrationAfter: sum(f, 'after', 'penetrationMax'),
    skatingBefore: sum(f, 'before', 'skatingRatio'),
    skatingAfter: sum(f, 'after', 'skatingRatio'),
    kneePops: f.ik.left.kneePops + f.ik.right.kneePops,
    ikKneeMaxDeg: Math.max(f.ik.left.knee.maxDeg, f.ik.right.knee.maxDeg),
    review: f.review.length,
    limits: f.limits.length,
    groundLevels: f.ground.levels.length,
    groundSpread: f.ground.spread,
    outputs,
  };
}

/** The batch's summary table (fixed-width text). */
export function formatBatchTable(entries: readonly BatchEntry[]): string {
  const head = [
    'take',
    'frames',
    'segs L/R',
    'support slide cm before',
    'after',
    'ankle slide cm before',
    'after',
    'S m/s before',
    'after',
    'pen cm before',
    'after',
    'skate before',
    'after',
    'knee max',
    'pops',
    'review',
    'limits',
    'ground',
  ];
  const rows = entries.map((e) =>
    e.error
      ? [e.name, `failed: ${e.error}`]
      : [
          e.name,
          String(e.frames),
          `${e.segments!.left}/${e.segments!.right}`,
          (e.supportSlideBefore! * 100).toFixed(1),
          (e.supportSlideAfter! * 100).toFixed(1),
          (e.slideBefore! * 100).toFixed(1),
          (e.slideAfter! * 100).toFixed(1),
          e.speedBefore!.toFixed(3),
          e.speedAfter!.toFixed(3),
          (e.penetrationBefore! * 100).toFixed(1),
          (e.penetrationAfter! * 100).toFixed(1),
          e.skatingBefore!.toFixed(3),
          e.skatingAfter!.toFixed(3),
          `${e.ikKneeMaxDeg!.toFixed(1)}°`,
          String(e.kneePops),
          String(e.review),
          String(e.limits),
          e.groundLevels! > 1
            ? `${e.groundLevels} levels, ${Math.round(e.groundSpread! * 100)} cm`
            : 'one level',
        ],
  );
  const w = head.map((h, i) =>
    Math.max(h.length, ...rows.filter((r) => r.length > 2).map((r) => r[i].length)),
  );
  const line = (r: string[]) =>
    r.length === 2
      ? `${r[0].padEnd(w[0])}  ${r[1]}`
      : r.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}

/** The worker bundle dist/cleanupWorker.cjs (next to kind.cjs, or TsProject/dist from the sources), or null. */
export function findCleanupWorker(): string | null {
  const c = [
    path.join(__dirname, 'cleanupWorker.cjs'),
    path.resolve(__dirname, '../../dist/cleanupWorker.cjs'),
  ];
  return c.find((x) => fs.existsSync(x)) ?? null;
}

/**
 * Run jobs on `size` worker threads (src/io/node/workerPool.ts). A worker that dies fails only its
 * current job (an error reply) and is replaced. Replies come back in job order. An interrupt
 * terminates the workers.
 */
export function runCleanupPool(
  jobs: readonly CleanupJob[],
  size: number,
  workerFile: string,
  onDone?: (reply: CleanupWorkerReply, done: number) => void,
): Promise<CleanupWorkerReply[]> {
  return runWorkerPool<CleanupJob, CleanupWorkerReply>(jobs, {
    workerFile,
    size,
    workerData: { mark: CLEANUP_WORKER_MARK },
    failed: (job, id, why) => ({ id, error: `${job.input}: the cleanup worker stopped (${why})` }),
    onDone,
  });
}

/**
 * Clean every .bvh under `folder` (worker threads when dist/cleanupWorker.cjs exists, else one by one)
 * and write all outputs and summary.json at once. A take that cannot be read or cleaned is listed with
 * its error; the others are written.
 * @throws Error when the folder cannot be read, holds no .bvh, or the outputs cannot be written.
 */
export async function runCleanupBatch(folder: string, o: CleanupCommandOptions): Promise<BatchResult> {
  checkOutputDir(o.outDir);
  const rels = listTakes(folder);
  if (rels.length === 0) throw new Error(`${folder}: no .bvh takes in this folder`);
  const stems = new Map<string, number>();
  const named = rels.map((rel) => {
    let stem = takeStem(rel.replace(/\//g, '_'));
    const k = stem.toLowerCase();
    const seen = stems.get(k) ?? 0;
    stems.set(k, seen + 1);
    if (seen > 0) stem = `${stem}_${seen + 1}`;
    return { rel, stem, input: path.join(folder, rel) };
  });
  const jobs = named.map((t) => jobOf(t.input, path.join(o.outDir, `${t.stem}.bvh`), o));
  // `-o` the takes' own folder (or a link to it) would replace the takes by their cleaned copies: refused
  // before any work, comparing files by device and inode
  refuseOverwritingInputs(
    [
      ...named.flatMap((t) =>
        ['.bvh', '.cleanup.json', '.cleanup.html'].map((ext) => path.join(o.outDir, `${t.stem}${ext}`)),
      ),
      path.join(o.outDir, 'summary.json'),
    ],
    named.map((t) => ({ role: 'input take', path: t.input })),
  );
  const size = Math.max(
    1,
    Math.min(os.availableParallelism?.() ?? os.cpus().length, o.jobs ?? Infinity, jobs.length),
  );
  const worker = findCleanupWorker();
  let replies: CleanupWorkerReply[];
  const notes: string[] = [];
  if (worker) {
    replies = await runCleanupPool(jobs, size, worker, (_r, n) =>
      o.onProgress?.(n, jobs.length, named[_r.id].rel),
    );
  } else {
    notes.push(
      'the worker bundle dist/cleanupWorker.cjs was not found (npm run build): takes were cleaned one by one',
    );
    replies = [];
    for (let i = 0; i < jobs.length; i++) {
      replies.push(await runCleanupJob(i, jobs[i]));
      await interruptPoint();
      o.onProgress?.(i + 1, jobs.length, named[i].rel);
    }
  }
  const files: OutputFile[] = [];
  const takes: BatchEntry[] = replies.map((r, i) => {
    const t = named[i];
    if ('error' in r) return { name: t.rel, input: t.input, error: r.error };
    const outputs = {
      bvh: jobs[i].outBvh,
      json: path.join(o.outDir, `${t.stem}.cleanup.json`),
      html: path.join(o.outDir, `${t.stem}.cleanup.html`),
    };
    files.push(
      { path: outputs.bvh, data: r.outcome.bvh },
      { path: outputs.json, data: r.outcome.json },
      { path: outputs.html, data: r.outcome.html },
    );
    return entryOf(t.rel, t.input, r.outcome.file, outputs);
  });
  const cleaned = takes.filter((t) => !t.error).length;
  const summaryPath = path.join(o.outDir, 'summary.json');
  const result: BatchResult = {
    tool: 'kind cleanup --batch',
    folder,
    takes,
    counts: { takes: takes.length, cleaned, failed: takes.length - cleaned },
    summary: summaryPath,
  };
  files.push({ path: summaryPath, data: `${JSON.stringify({ ...result, notes }, null, 2)}\n` });
  await interruptPoint();
  ensureOutputDir(o.outDir);
  writeFilesAtomically(files);
  return result;
}

function reviewBandArg(value: string): [number, number] {
  const p = value.split(',').map((s) => s.trim());
  const v = p.map(Number);
  if (p.length !== 2 || p.some((s) => s === '') || !v.every(Number.isFinite))
    throw new InvalidArgumentError(`--review-band: '${value}' is not two numbers low,high`);
  if (!(v[0] >= 0 && v[0] < v[1] && v[1] <= 1))
    throw new InvalidArgumentError(`--review-band: ${value} is out of range (0 <= low < high <= 1)`);
  return [v[0], v[1]];
}

/**
 * A folder given as the take without `--batch`: a usage error that says how to clean it (the .bvh takes
 * it holds, counted, and the command line with --batch). Anything else is left to the reader.
 * @throws InvalidArgumentError (exit 2) when `take` is a folder.
 */
export function refuseFolderWithoutBatch(take: string, outDir: string): void {
  let folder = false;
  try {
    folder = fs.statSync(take).isDirectory();
  } catch {
    return; // a missing path is named by the reader
  }
  if (!folder) return;
  let n = -1;
  try {
    n = listTakes(take).length;
  } catch {
    // an unreadable folder: still suggest --batch, without the count
  }
  if (n === 0)
    throw new InvalidArgumentError(
      `${take}: is a folder with no .bvh takes in it; kind cleanup takes a .bvh file, or with --batch a folder of them`,
    );
  const what = n < 0 ? 'a folder' : `a folder of ${n} .bvh take${n === 1 ? '' : 's'}`;
  throw new InvalidArgumentError(
    `${take}: is ${what}; to clean every take in it, add --batch: kind cleanup --batch ${quoteArg(take)} -o ${quoteArg(outDir)}`,
  );
}

/** A path as a shell word (quoted when it holds spaces or shell characters). */
function quoteArg(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/** Add `kind cleanup` to the program; `setExitCode` gets 1 when some take of a batch failed. */
export function registerCleanupCommand(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('cleanup')
    .description(
      'foot-slide cleanup of a BVH take: finds the foot contacts, pins the feet (leg IK), writes <dir>/<take>.bvh (same layout as the input), <dir>/cleanup.json and a self-contained <dir>/cleanup.html.\nWith no file, uses the embedded default (a walk with sliding feet). With --batch, <take> is a folder of .bvh takes (worker threads, a summary table, <dir>/summary.json).',
    )
    .argument('[take]', 'the take: a .bvh file (a folder with --batch)')
    .option('-o, --out <dir>', 'output folder', outDirArg, 'cleanup-out')
    .addOption(
      new Option(
        '--model <kind>',
        "contact detector: the rule baseline, the learned model or the offline teacher (the whole take at once, heel and toe apart); the default is the best on the model card's detector table against an independent reference",
      )
        .choices([...CONTACT_MODEL_NAMES])
        .default(DEFAULT_CONTACT_MODEL),
    )
    .option(
      '--model-file <file.onnx>',
      'run this ONNX contact model (onnxruntime-web) instead of the shipped one; implies --model learned',
    )
    .option('--root-correction', 'also move the hips (only while both feet are in contact, capped per frame)')
    .option(
      '--review-band <low,high>',
      'contact probabilities left for a person, not fixed (default 0.45,0.65)',
      reviewBandArg,
    )
    .option('--batch', 'clean every .bvh under the folder <take>')
    .option('--jobs <n>', 'worker threads with --batch (default: the number of CPUs)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 256)
        throw new InvalidArgumentError(`--jobs: '${v}' is not a whole number 1..256`);
      return n;
    })
    .option('-q, --quiet', 'print nothing but errors')
    .action(async (takeArg: string | undefined, opts, cmd: Command) => {
      // --model-file means the learned model unless --model rule is given explicitly
      if (opts.modelFile !== undefined && cmd.getOptionValueSource('model') !== 'cli') opts.model = 'learned';
      if (opts.jobs !== undefined && !opts.batch) throw new InvalidArgumentError('--jobs applies to --batch');
      if (opts.modelFile !== undefined && opts.model !== 'learned')
        throw new InvalidArgumentError('--model-file applies to --model learned');
      if (opts.batch && !takeArg) throw new InvalidArgumentError('--batch: name a folder of .bvh takes');
      const common: CleanupCommandOptions = {
        outDir: opts.out,
        model: opts.model,
        modelFile: opts.modelFile,
        rootCorrection: opts.rootCorrection === true,
        reviewBand: opts.reviewBand,
        jobs: opts.jobs,
      };
      let bar: SingleBar | null = null;
      const tty = !opts.quiet && process.stderr.isTTY;
      if (opts.batch) {
        const r = await withInterrupts('kind cleanup', () =>
          runCleanupBatch(takeArg!, {
            ...common,
            onProgress: (done, total, name) => {
              if (!tty) return;
              if (!bar) {
                bar = new SingleBar({
                  format: 'cleanup [{bar}] {value}/{total} takes | {take}',
                  stream: process.stderr,
                });
                bar.start(total, 0, { take: '' });
              }
              bar.update(done, { take: name });
              if (done === total) bar.stop();
            },
          }),
        );
        if (!opts.quiet) {
          console.log(
            `cleanup batch: ${r.counts.cleaned} of ${r.counts.takes} takes cleaned${r.counts.failed ? `, ${r.counts.failed} failed` : ''} (contacts: ${opts.model}${opts.modelFile ? `, ${opts.modelFile}` : ''})`,
          );
          console.log(formatBatchTable(r.takes));
          console.log(`  wrote ${r.counts.cleaned * 3} files and ${r.summary} in ${opts.out}`);
        } else
          for (const t of r.takes.filter((x) => x.error)) console.error(`kind cleanup: failed: ${t.error}`);
        setExitCode(r.counts.failed > 0 ? 1 : 0);
        return;
      }
      let take = takeArg;
      if (take) refuseFolderWithoutBatch(take, opts.out);
      if (!take) {
        take = path.join(defaultAssetsDir(), 'default-slide.bvh');
        if (!opts.quiet)
          console.log(
            `no take given: using the embedded default (${path.relative(process.cwd(), take) || take})`,
          );
      }
      const r = await withInterrupts('kind cleanup', () =>
        runCleanup(take, {
          ...common,
          onStage: (stage, total, frames) => {
            // a bar for long takes only (20 s at 60 fps and more)
            if (!tty || frames < 1200) return;
            if (!bar) {
              bar = new SingleBar({
                format: 'cleanup [{bar}] {value}/{total} steps | {stage}',
                stream: process.stderr,
              });
              bar.start(total, stage, { stage: CLEANUP_STAGES[stage] ?? 'written' });
            }
            bar.update(stage, { stage: CLEANUP_STAGES[stage] ?? 'written' });
            if (stage === total) bar.stop();
          },
        }),
      );
      if (!opts.quiet)
        console.log(formatCleanupSummary(r.file, [r.outputs.bvh, r.outputs.json, r.outputs.html]));
    });
}
