/**
 * Interrupted runs leave nothing behind (issue 10, item 2): the real command (bin/kind.cjs on a fresh
 * build of the sources) is interrupted with SIGINT and SIGTERM at many points of a real run, with the
 * previous outputs in the output folder. Afterwards the folder holds exactly the output files, each
 * byte-identical to the previous set or all of them to the new complete set (never a mix), no `.tmp`
 * or `.bak`; the exit code is 130 (SIGINT) or 143 (SIGTERM) with a one-line message, or 0 when the run
 * had finished. Besides delays spread over a run, some tries send the signal the moment a temporary or
 * moved-aside file appears in the folder (the write phase, a few milliseconds of a run), which is where
 * the command without signal handling was killed half-way; and tries stop the command (SIGSTOP) on its
 * first temporary file and signal it there: such a signal must be handled once the write is complete
 * (exit 130/143, the new set), not dropped (exit 0, as retarget and qa did before withInterrupts).
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  guardInterrupts,
  INTERRUPT_EXIT_CODES,
  noteCommitted,
  onInterrupt,
  runUndoActions,
} from '../src/io/node/interrupt';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const ROOT = path.resolve(__dirname, '..');
/** A build of the current sources, laid out as the package is (bin/kind.cjs next to dist/). */
const BUILD = path.join(ROOT, 'dist', `interrupt-test-${process.pid}`);
const BIN = path.join(BUILD, 'bin', 'kind.cjs');

type Sig = 'SIGINT' | 'SIGTERM';
const CODE: Record<Sig, number> = { SIGINT: 130, SIGTERM: 143 };

/**
 * When to send the signal: after a delay from the start, or when a file matching `file` appears. With
 * `freeze`, the command is first stopped (SIGSTOP) the moment the file appears, the folder is listed
 * while it stands still (temporary or moved-aside files there prove it is inside the write phase),
 * then the signal is sent and the command continued (SIGCONT): the signal is pending inside the write.
 */
type When = { delayMs: number } | { file: RegExp; freeze?: boolean };

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** With `freeze`: the folder's files while the command was stopped (null when it had already ended). */
  frozen: string[] | null;
}

/** Run the built command in `cwd`, send `sig` at `when`, wait for it to end. */
function runInterrupted(args: string[], watchDir: string, sig: Sig, when: When): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    let sent = false;
    let frozen: string[] | null = null;
    const send = () => {
      if (sent) return;
      sent = true;
      if ('file' in when && when.freeze && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGSTOP');
        frozen = fs.readdirSync(watchDir).sort();
        child.kill(sig);
        child.kill('SIGCONT');
      } else child.kill(sig);
    };
    let timer: NodeJS.Timeout | undefined;
    let watcher: fs.FSWatcher | undefined;
    if ('delayMs' in when) timer = setTimeout(send, when.delayMs);
    else
      watcher = fs.watch(watchDir, (_event, name) => {
        if (name && when.file.test(String(name))) send();
      });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      watcher?.close();
      resolve({ code, signal, stderr, frozen });
    });
  });
}

type FileSet = Map<string, Buffer>;

/** Every file under `dir`, by relative path ('frames/0000.png' for a folder output), sorted. */
function listFiles(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(dir, r));
    else out.push(r);
  }
  return out.sort();
}

function readSet(dir: string): FileSet {
  const m: FileSet = new Map();
  for (const n of listFiles(dir)) m.set(n, fs.readFileSync(path.join(dir, n)));
  return m;
}

function layDown(dir: string, set: FileSet): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [n, b] of set) {
    fs.mkdirSync(path.dirname(path.join(dir, n)), { recursive: true });
    fs.writeFileSync(path.join(dir, n), b);
  }
}

/** 'old', 'new', or a description of what is wrong (stray files, a mix). */
function classify(dir: string, before: FileSet, after: FileSet): string {
  const names = listFiles(dir);
  const expected = [...before.keys()].sort();
  if (names.join('|') !== expected.join('|'))
    return `files ${names.join(', ')} (expected ${expected.join(', ')})`;
  const which = names.map((n) => {
    const b = fs.readFileSync(path.join(dir, n));
    if (b.equals(before.get(n)!)) return 'old';
    if (b.equals(after.get(n)!)) return 'new';
    return 'other';
  });
  const kinds = [...new Set(which)];
  return kinds.length === 1 && kinds[0] !== 'other'
    ? kinds[0]
    : `a mix: ${names.map((n, i) => `${n} ${which[i]}`).join(', ')}`;
}

/** The tries: delays spread over a run of `runMs`, then signals on the first `.tmp` and `.bak`. */
function plan(runMs: number, delays: number): { sig: Sig; when: When }[] {
  const out: { sig: Sig; when: When }[] = [];
  for (let i = 0; i < delays; i++)
    out.push({
      sig: i % 2 === 0 ? 'SIGINT' : 'SIGTERM',
      when: { delayMs: Math.round(runMs * (0.1 + (1.05 * i) / (delays - 1))) },
    });
  for (const sig of ['SIGINT', 'SIGTERM'] as Sig[]) {
    out.push({ sig, when: { file: /\.tmp$/ } });
    out.push({ sig, when: { file: /\.bak$/ } });
  }
  return out;
}

/** `perSignal` tries of each signal sent while the command stands still on its first `.tmp` (the write phase). */
function frozenTries(perSignal: number): { sig: Sig; when: When }[] {
  const out: { sig: Sig; when: When }[] = [];
  for (let i = 0; i < perSignal; i++)
    for (const sig of ['SIGINT', 'SIGTERM'] as Sig[])
      out.push({ sig, when: { file: /\.tmp$/, freeze: true } });
  return out;
}

/**
 * A signal that lands inside the synchronous write is handled once the write is complete: exit 130/143
 * with "after writing" and the complete new set (withInterrupts in src/io/node/interrupt.ts); at least
 * one try of each signal must have landed there (proven by the temporary files seen while the command
 * stood still). Without the extra turn before the guard is released, such a signal was dropped: exit 0.
 */
function expectLandedInWrite(tally: Record<string, number>): void {
  for (const sig of ['SIGINT', 'SIGTERM'] as Sig[])
    expect(tally[`${CODE[sig]} -> new (signal landed in the write phase)`] ?? 0).toBeGreaterThan(0);
}

/**
 * Every try leaves the old or the new complete set, exit 130/143 (with the one-line message) or 0. A
 * process killed by the signal itself (no exit code) is accepted only with the old set untouched: Node
 * is still starting then (before bin/kind.cjs runs, no JavaScript can handle a signal). After the
 * command, bin/kind.cjs exits at once: Node's own teardown put the signals' default action back for
 * about 0.2 s, where a signal killed a finished retarget.
 */
async function interruptMany(
  args: string[],
  outDir: string,
  before: FileSet,
  after: FileSet,
  runMs: number,
  delays: number,
  extra: { sig: Sig; when: When }[] = [],
): Promise<Record<string, number>> {
  const tally: Record<string, number> = {};
  const problems: string[] = [];
  for (const t of [...plan(runMs, delays), ...extra]) {
    layDown(outDir, before);
    const r = await runInterrupted(args, outDir, t.sig, t.when);
    const state = classify(outDir, before, after);
    const at =
      'delayMs' in t.when ? `${t.when.delayMs} ms` : `on ${t.when.file}${t.when.freeze ? ' (stopped)' : ''}`;
    const label = `${t.sig} ${at}`;
    let outcome: string;
    if (r.code === CODE[t.sig]) outcome = `${CODE[t.sig]}`;
    else if (r.code === 0) outcome = '0';
    else if (r.code === null && r.signal === t.sig) outcome = 'killed by the signal';
    else outcome = `exit ${r.code} (${r.signal}): ${r.stderr.trim()}`;
    const inWrite = r.frozen?.some((n) => /\.(tmp|bak)$/.test(n)) ?? false;
    const key = `${outcome} -> ${state}${inWrite ? ' (signal landed in the write phase)' : ''}`;
    tally[key] = (tally[key] ?? 0) + 1;
    if (state !== 'old' && state !== 'new') problems.push(`${label}: ${state} (${outcome})`);
    else if (outcome === '0' && state !== 'new') problems.push(`${label}: exit 0 but the ${state} outputs`);
    else if (outcome === 'killed by the signal' && state !== 'old')
      problems.push(`${label}: killed by the signal after the outputs were written`);
    else if (outcome === `${CODE[t.sig]}`) {
      const lines = r.stderr.trim().split('\n');
      if (lines.length !== 1 || !lines[0].includes(`interrupted (${t.sig})`))
        problems.push(`${label}: exit ${r.code} with stderr ${JSON.stringify(r.stderr)}`);
    } else if (!['0', 'killed by the signal'].includes(outcome)) problems.push(`${label}: ${outcome}`);
    // a signal pending inside the (synchronous) write is handled once every file is in place
    if (inWrite && (outcome !== `${CODE[t.sig]}` || state !== 'new' || !r.stderr.includes('after writing')))
      problems.push(`${label}: landed in the write phase but ${outcome} -> ${state}: ${r.stderr.trim()}`);
  }
  console.log(`${args[0]}: ${JSON.stringify(tally, null, 1)}`);
  expect(problems).toEqual([]);
  return tally;
}

/** Run the built command to the end; returns its duration (used only to spread the delays). */
function runToEnd(args: string[]): number {
  const t0 = performance.now();
  execFileSync(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return performance.now() - t0;
}

describeWithData('interrupted kind commands leave the previous outputs or the new ones, nothing else', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-interrupt-'));
  const dance = dataPath('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh');
  const xbot = dataPath('threejs/Xbot.glb');
  /** The plain retarget of the dance: the previous outputs of the retarget tries, a pair of the QA batch. */
  const plain = path.join(work, 'plain');

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [path.resolve(ROOT, '../tools/build.mjs'), 'cli', path.join(BUILD, 'dist')],
      { stdio: 'inherit' },
    );
    fs.mkdirSync(path.dirname(BIN), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'bin', 'kind.cjs'), BIN);
    expect((await runKind(['retarget', dance, xbot, '-o', plain, '-q'])).code).toBe(0);
  });
  afterAll(() => {
    fs.rmSync(BUILD, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('kind retarget --ik of a real take onto Xbot: 6 delays, 4 signals on the first .tmp/.bak, 6 signals landed inside the write phase', async () => {
    const out = path.join(work, 'rt');
    const before = readSet(plain);
    expect([...before.keys()]).toEqual([
      'dataset-1_dance-short_normal_001.bvh',
      'dataset-1_dance-short_normal_001.glb',
      'summary.json',
    ]);
    // the same command's summary.json names the output folder: lay the previous outputs down there
    layDown(out, before);
    const args = ['retarget', dance, xbot, '-o', out, '-q', '--ik'];
    const ms = runToEnd(args);
    const after = readSet(out);
    for (const [n, b] of before) expect(b.equals(after.get(n)!)).toBe(false);
    expectLandedInWrite(await interruptMany(args, out, before, after, ms, 6, frozenTries(3)));
  });

  it('kind retarget --vrma of a real take (the Bandai dance): 4 delays, 4 signals on the first .tmp/.bak, signals landed inside the write phase', async () => {
    const out = path.join(work, 'vrma');
    const file = path.join(out, 'dance.vrma');
    // the previous output: the walk's VRM Animation at the same path (every byte differs)
    const walk = dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
    runToEnd(['retarget', walk, '--vrma', file, '-q']);
    const before = readSet(out);
    const args = ['retarget', dance, '--vrma', file, '-q'];
    const ms = runToEnd(args);
    const after = readSet(out);
    expect([...before.keys()]).toEqual(['dance.vrma']);
    expect(before.get('dance.vrma')!.equals(after.get('dance.vrma')!)).toBe(false);
    expectLandedInWrite(await interruptMany(args, out, before, after, ms, 4, frozenTries(2)));
  });

  it('kind qa --batch (worker threads) over three real retargets: 4 delays, 4 signals on the first .tmp/.bak, 6 signals landed inside the write phase', async () => {
    const g = path.join(work, 'golden');
    const r = path.join(work, 'retargeted');
    fs.mkdirSync(g);
    fs.mkdirSync(r);
    for (const take of ['walk', 'run']) {
      const src = dataPath(`bandai-namco-motiondataset/dataset-1_${take}_normal_001.bvh`);
      expect((await runKind(['retarget', src, xbot, '-o', path.join(work, take), '-q'])).code).toBe(0);
    }
    for (const dir of ['walk', 'run', 'plain'])
      for (const f of fs.readdirSync(path.join(work, dir))) {
        if (f.endsWith('.bvh')) fs.copyFileSync(path.join(work, dir, f), path.join(g, f));
        if (f.endsWith('.glb')) fs.copyFileSync(path.join(work, dir, f), path.join(r, f));
      }
    const out = path.join(work, 'qa');
    const args = ['qa', '--batch', g, r, '-o', out, '-q'];
    runToEnd([...args, '--lambda', '0.3']);
    const before = readSet(out);
    const ms = runToEnd(args);
    const after = readSet(out);
    expect([...before.keys()]).toEqual(['qa.html', 'qa.json']);
    expect(before.get('qa.json')!.equals(after.get('qa.json')!)).toBe(false);
    expectLandedInWrite(await interruptMany(args, out, before, after, ms, 4, frozenTries(3)));
  });

  it('kind cleanup of a real take (the Bandai dance): 4 delays, 4 signals on the first .tmp/.bak, and signals landed inside the write phase', async () => {
    const out = path.join(work, 'cleanup');
    const args = ['cleanup', dance, '-o', out, '-q'];
    // the previous outputs: the learned model's (other contacts, so every file differs)
    runToEnd([...args, '--model', 'learned']);
    const before = readSet(out);
    const ms = runToEnd(args);
    const after = readSet(out);
    expect([...before.keys()]).toEqual([
      'cleanup.html',
      'cleanup.json',
      'dataset-1_dance-short_normal_001.bvh',
    ]);
    for (const [n, b] of before) expect(b.equals(after.get(n)!)).toBe(false);
    // the write phase is a few milliseconds: the command is stopped the moment its first temporary file
    // appears, so the signal is pending while the files are being placed (6 tries per signal)
    expectLandedInWrite(await interruptMany(args, out, before, after, ms, 4, frozenTries(6)));
  });
  it('kind puppet render of the real squat onto char1 (a frames folder, preview.gif, puppet.json): 4 delays, 4 signals on the first .tmp/.bak, signals landed inside the write phase', async () => {
    const out = path.join(work, 'puppet');
    const args = [
      'puppet',
      'render',
      dataPath('animated-drawings/characters/char1'),
      '--landmarks',
      dataPath('pose-landmarks/pose_squats.full.json'),
      '--image-size',
      '720x1280',
      '--fps',
      '5',
      '-o',
      out,
      '-q',
    ];
    // the previous outputs: the same take with the joints drawn and other weights (every file differs)
    runToEnd([...args, '--joints', '--weights', 'segments']);
    const before = readSet(out);
    const ms = runToEnd(args);
    const after = readSet(out);
    expect([...before.keys()].filter((n) => n.startsWith('frames/'))).toHaveLength(65);
    expect([...before.keys()].filter((n) => !n.startsWith('frames/'))).toEqual([
      'preview.gif',
      'puppet.json',
    ]);
    for (const [n, b] of before) expect(b.equals(after.get(n)!)).toBe(false);
    // the frames are rendered into frames.<pid>.tmp (the first .tmp: mid-render, not yet the write), so the
    // stopped tries wait for the first file .tmp (puppet.json's, written right before the renames)
    expectLandedInWrite(
      await interruptMany(args, out, before, after, ms, 4, [
        ...(['SIGINT', 'SIGTERM', 'SIGINT', 'SIGTERM', 'SIGINT', 'SIGTERM'] as Sig[]).map((sig) => ({
          sig,
          when: { file: /\.json\.\d+\.tmp$/, freeze: true },
        })),
      ]),
    );
  });
});

describe('the interrupt guard (src/io/node/interrupt.ts), in process', () => {
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const baseline = () => signals.map((s) => process.listenerCount(s));

  it('a signal runs the undo actions newest first, prints one line and exits 128 + the signal number', () => {
    const before = baseline();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-guard-'));
    const tmp = path.join(dir, 'a.glb.1.tmp');
    fs.writeFileSync(tmp, 'half');
    const order: string[] = [];
    const lines: string[] = [];
    const codes: number[] = [];
    const release = guardInterrupts('kind test', { exit: (c) => codes.push(c), print: (l) => lines.push(l) });
    onInterrupt(() => order.push('first'));
    onInterrupt(() => {
      order.push('second');
      fs.rmSync(tmp);
    });
    const forgotten = onInterrupt(() => order.push('forgotten'));
    forgotten();
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT'); // a second signal while exiting: ignored
    release();
    expect(order).toEqual(['second', 'first']);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(codes).toEqual([130]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\n?kind test: interrupted \(SIGINT\); nothing written \(temporary files removed\), the previous outputs are unchanged$/,
    );
    expect(baseline()).toEqual(before);
    fs.rmSync(dir, { recursive: true });
  });

  it('SIGTERM after a commit: 143, naming the files written; nothing registered is left for the next command', () => {
    const lines: string[] = [];
    const codes: number[] = [];
    const release = guardInterrupts('kind test', { exit: (c) => codes.push(c), print: (l) => lines.push(l) });
    noteCommitted(['out/a.glb', 'out/summary.json']);
    process.emit('SIGTERM', 'SIGTERM');
    release();
    expect(codes).toEqual([143]);
    expect(lines[0]).toMatch(
      /kind test: interrupted \(SIGTERM\); after writing out\/a\.glb, out\/summary\.json$/,
    );
    expect(runUndoActions()).toBe(0);
    expect(INTERRUPT_EXIT_CODES).toEqual({ SIGHUP: 129, SIGINT: 130, SIGTERM: 143 });
  });
});
