/**
 * Bytes allocated on the JS heap per call of `fn`: the growth of V8's new space (where every new object
 * and boxed number is allocated) over a window of `n` calls, after a warm-up that lets the JIT optimise
 * `fn` and everything it calls; the smallest of three windows. Only windows in which no collection ran
 * are read (v8.GCProfiler sees every scavenge): a call that allocates enough to fill new space within `n`
 * calls is read over a window halved until none runs, so a real allocation never reads low. New space
 * only: code the JIT compiles is not counted, so compiling `fn` does not look like allocation. A single allocated object is >= 16 bytes, so per-call allocation reads >= 16 / call,
 * and allocation-free code reads below 0.05 (the fixed cost of reading the heap statistics, measured once with an
 * empty function, is taken off).
 *
 * Deterministic with respect to when V8 optimises: it runs only in a process started by `runAllocProbe`
 * (./allocProbe), whose flags make V8 compile optimised code on the main thread
 * (`--no-concurrent-recompilation`, `--no-concurrent-osr`) and allocate every object in new space
 * (`--no-allocation-site-pretenuring`). V8 decides to optimise a function from the
 * bytecode it has executed (its interrupt budget), not from the clock, so after the warm-up the same
 * functions are optimised on a loaded machine as on a quiet one; with background compilation (V8's
 * default) a busy machine delays the optimised code and the measured windows can still run baseline code,
 * which boxes every double it computes (issue 26: the hub read 16.7 B/frame under jest's workers).
 * After the warm-up `fn` itself is optimised explicitly (`%OptimizeFunctionOnNextCall`, natives syntax).
 * Throws when called elsewhere (e.g. in a jest worker), so no test can measure the machine's load.
 */
import * as v8 from 'node:v8';

/** The V8 flags `runAllocProbe` starts a probe process with (see the module comment). */
export const ALLOC_PROBE_FLAGS = [
  '--expose-gc',
  '--allow-natives-syntax',
  '--no-concurrent-recompilation',
  '--no-concurrent-osr',
  // V8 pretenures an allocation site whose objects keep surviving scavenges (allocation-site feedback,
  // gathered during the GCs): from then on they are allocated straight in old space, which this probe does
  // not read. When that happens depends on when the scavenges ran, so a kept-alive allocation could read 0
  // by chance (a clean-clone CI run read the probe test's kept chain at 0.0032 B/call). Off: every JS
  // allocation lands in new space.
  '--no-allocation-site-pretenuring',
] as const;

function newSpaceUsed(): number {
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_used_size;
  return 0;
}

type Natives = { prepare: (f: () => void) => void; optimizeNext: (f: () => void) => void };
let natives: Natives | null = null;

function requireDeterministicProcess(): Natives {
  if (natives) return natives;
  const missing = ALLOC_PROBE_FLAGS.filter((f) => !process.execArgv.includes(f));
  if (missing.length > 0 || typeof (globalThis as { gc?: unknown }).gc !== 'function') {
    throw new Error(
      `bytesPerCall: this process lacks ${missing.join(' ') || '--expose-gc'}; measure allocation through ` +
        'runAllocProbe (test/helpers/allocProbe), where V8 optimises on the main thread and the reading ' +
        'does not depend on how busy the machine is',
    );
  }
  // Natives syntax is parsed only in code compiled at run time (the bundler cannot read `%F(...)`).
  natives = {
    prepare: new Function('f', '%PrepareFunctionForOptimization(f);') as Natives['prepare'],
    optimizeNext: new Function('f', '%OptimizeFunctionOnNextCall(f);') as Natives['optimizeNext'],
  };
  return natives;
}

/**
 * New-space growth over one window of `m` calls, after a full collection, and whether a collection ran
 * inside the window (v8.GCProfiler): a scavenge in the window empties new space part-way, so its growth
 * says nothing about what the calls allocated, and the window is not used.
 */
function window(fn: () => void, m: number): { grown: number; collected: boolean } {
  (globalThis as { gc?: () => void }).gc?.();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = newSpaceUsed();
  for (let i = 0; i < m; i++) fn();
  const grown = newSpaceUsed() - before;
  const collected = (profiler.stop()?.statistics.length ?? 0) > 0;
  return { grown, collected };
}

/**
 * Growth of the first window of `m`, `m / 2`, `m / 4`, ... calls in which no collection ran (a call that
 * allocates more than new space holds fills it in every window: an error).
 */
function cleanWindow(fn: () => void, n: number): { grown: number; calls: number } {
  for (let m = n; m >= 1; m = Math.floor(m / 2)) {
    const w = window(fn, m);
    if (!w.collected && w.grown >= 0) return { grown: w.grown, calls: m };
  }
  throw new Error(
    'bytesPerCall: a collection ran in every window down to one call (a call allocates megabytes)',
  );
}

let overhead = -1;

/** The fixed bytes one window reads with nothing in it (the statistics objects `newSpaceUsed` makes). */
function windowOverhead(): number {
  if (overhead >= 0) return overhead;
  const empty = () => {};
  for (let i = 0; i < 1000; i++) empty();
  let least = Number.POSITIVE_INFINITY;
  for (let t = 0; t < 3; t++) least = Math.min(least, cleanWindow(empty, 1000).grown);
  overhead = least;
  return overhead;
}

export function bytesPerCall(fn: () => void, n = 20000): number {
  const { prepare, optimizeNext } = requireDeterministicProcess();
  const fixed = windowOverhead();
  prepare(fn);
  for (let i = 0; i < 5 * n; i++) fn();
  optimizeNext(fn);
  fn();
  let least = Number.POSITIVE_INFINITY;
  for (let t = 0; t < 3; t++) {
    const w = cleanWindow(fn, n);
    least = Math.min(least, Math.max(0, w.grown - fixed) / w.calls);
  }
  return least;
}
