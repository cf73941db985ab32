/**
 * Benchmark plumbing: data paths, timing (median of repeated runs under a time budget), heap growth per
 * call, and the result table. Node only (uses `fs`, `process`); not part of the library.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';

/**
 * The shared real data folder: `$KIND_SHARED_DATA`, else `../shared/data` next to the repository root
 * (the bundle lives in `TsProject/dist`, so that is `dist/../../../shared/data`).
 */
export const SHARED_DATA = process.env.KIND_SHARED_DATA
  ? path.resolve(process.env.KIND_SHARED_DATA)
  : path.resolve(__dirname, '../../../shared/data');

export const HAS_SHARED_DATA = fs.existsSync(path.join(SHARED_DATA, 'SOURCES.md'));

/** The embedded default sample (always present in the repository). */
export const DEFAULT_ASSETS = path.resolve(__dirname, '../assets/default');

/** Path of a shared data file, or null when the shared folder or the file is absent. */
export function sharedFile(rel: string): string | null {
  const p = path.join(SHARED_DATA, rel);
  return HAS_SHARED_DATA && fs.existsSync(p) ? p : null;
}

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface TimingOptions {
  /** Untimed runs first (JIT warm-up). */
  warmup: number;
  /** At least this many timed runs... */
  minRuns: number;
  /** ...and at most this many, */
  maxRuns: number;
  /** ...stopping once the timed runs have used this many milliseconds (after minRuns). */
  budgetMs: number;
}

export interface Timing {
  /** Median wall time of one run, ms. */
  medianMs: number;
  /** Fastest run, ms. */
  minMs: number;
  runs: number;
}

/**
 * Time `fn`: `warmup` untimed calls, then timed calls until `minRuns` are done and `budgetMs` is used
 * (or `maxRuns` reached). A full GC (when `--expose-gc`) before each timed call keeps one run's
 * garbage from being collected inside the next. The result of `fn` is kept in a sink so the work is
 * not dead code.
 */
export function time(fn: () => unknown, o: TimingOptions): Timing {
  for (let i = 0; i < o.warmup; i++) sink(fn());
  const ts: number[] = [];
  let used = 0;
  while (ts.length < o.maxRuns && (ts.length < o.minRuns || used < o.budgetMs)) {
    settle();
    const t0 = now();
    sink(fn());
    const dt = now() - t0;
    ts.push(dt);
    used += dt;
  }
  return { medianMs: median(ts), minMs: Math.min(...ts), runs: ts.length };
}

/**
 * Time two functions in alternation (a, b, a, b, ...), so both see the same machine load (other processes,
 * thermal state) and the ratio of their medians is fair even when the load drifts. Same rules as
 * {@link time}: `warmup` untimed calls of each, then pairs of timed calls, each after a full GC, until
 * `minRuns` pairs are done and `budgetMs` is used (or `maxRuns` pairs).
 */
export function timePair(a: () => unknown, b: () => unknown, o: TimingOptions): [Timing, Timing] {
  for (let i = 0; i < o.warmup; i++) {
    sink(a());
    sink(b());
  }
  const ta: number[] = [];
  const tb: number[] = [];
  let used = 0;
  const one = (fn: () => unknown, into: number[]) => {
    settle();
    const t0 = now();
    sink(fn());
    const dt = now() - t0;
    into.push(dt);
    used += dt;
  };
  while (ta.length < o.maxRuns && (ta.length < o.minRuns || used < o.budgetMs)) {
    one(a, ta);
    one(b, tb);
  }
  const t = (xs: number[]): Timing => ({ medianMs: median(xs), minMs: Math.min(...xs), runs: xs.length });
  return [t(ta), t(tb)];
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/**
 * Full GC, then a short synchronous sleep so the collector's background threads (concurrent sweeping)
 * finish before the next timed call instead of competing with it (the garbage of a three.js run would
 * otherwise be swept while our run is timed, and the other way round).
 */
export function settle(ms = 15): void {
  (globalThis as { gc?: () => void }).gc?.();
  Atomics.wait(sleeper, 0, 0, ms);
}

let sunk: unknown = null;
function sink(x: unknown): void {
  sunk = x;
}
/** Last value returned by a timed function (keeps it observable). */
export function lastSunk(): unknown {
  return sunk;
}

/**
 * Heap bytes allocated per call of `fn`, with the fixed cost of measuring removed: bytes allocated
 * over `10n` calls minus those over `n` calls, divided by `9n`; median of three tries, after `5n`
 * warm-up calls so the JIT has optimised `fn`. Same approach as test/helpers/alloc.ts, with one
 * addition: "allocated" is the growth of the JS heap in use PLUS what any garbage collection that ran
 * inside the batch freed (read from `v8.GCProfiler`, Node >= 20), so a scavenge inside a batch does not
 * hide garbage; `gcs` counts such collections. Typed-array backing stores live outside the JS heap and
 * are not counted, but a typed array allocated per call still shows (its JS object is >= 64 bytes). A full GC (needs `--expose-gc`, which the bench script sets)
 * precedes each batch. Every heap object takes >= 16 bytes (the smallest, a boxed double or HeapNumber,
 * takes 16 in Node's 64-bit heap), so each allocation per call adds >= 16; allocation-free code reads
 * ~0 (|x| < 1 is noise: heap bookkeeping, lazily compiled code).
 */
/** Bytes in use in the JS heap. */
function heapUsed(): number {
  return v8.getHeapStatistics().used_heap_size;
}

export function bytesPerCall(fn: () => void, n: number): { bytes: number; gcs: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  let gcs = 0;
  const run = (count: number) => {
    gc?.();
    const prof = v8.GCProfiler ? new v8.GCProfiler() : null;
    prof?.start();
    const before = heapUsed();
    for (let i = 0; i < count; i++) fn();
    const after = heapUsed();
    const stats = prof?.stop()?.statistics ?? [];
    let freed = 0;
    for (const st of stats) {
      const b = st.beforeGC.heapStatistics;
      const a = st.afterGC.heapStatistics;
      freed += b.usedHeapSize - a.usedHeapSize;
    }
    gcs += stats.length;
    return after - before + freed;
  };
  for (let i = 0; i < 5 * n; i++) fn();
  const tries: number[] = [];
  for (let t = 0; t < 3; t++) {
    const small = run(n);
    const big = run(10 * n);
    tries.push((big - small) / (9 * n));
  }
  return { bytes: median(tries), gcs };
}

/** One line of the final table. */
export interface Row {
  bench: string;
  ours: string;
  three: string;
  /** Speed ratio ours over three.js (> 1: ours faster); null when there is no peer figure. */
  ratio: number | null;
  /** The same ratio from the fastest run of each side (less sensitive to a loaded machine). */
  bestRatio?: number;
  /** Name of the peer column (default 'three.js'). */
  peer?: string;
}

export function fmt(x: number, digits = 1): string {
  return x.toFixed(digits);
}

export function printTable(rows: readonly Row[]): void {
  const w0 = Math.max(...rows.map((r) => r.bench.length));
  const w1 = Math.max(...rows.map((r) => r.ours.length));
  const w2 = Math.max(...rows.map((r) => r.three.length));
  for (const r of rows) {
    console.log(
      `${r.bench.padEnd(w0)}  ours ${r.ours.padStart(w1)}  ${(r.peer ?? 'three.js').padEnd(8)} ${r.three.padStart(w2)}  ratio ${r.ratio === null ? '-' : `${fmt(r.ratio)}x`}${r.bestRatio === undefined ? '' : `  (best runs ${fmt(r.bestRatio)}x)`}`,
    );
  }
}

export function readText(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

export function readBytes(file: string): Uint8Array {
  const b = fs.readFileSync(file);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export function fileSize(file: string): number {
  return fs.statSync(file).size;
}

export function shortName(file: string): string {
  return path.basename(file);
}
