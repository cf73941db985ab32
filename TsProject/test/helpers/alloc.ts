/**
 * Heap bytes allocated per call of `fn`, with the fixed cost of measuring removed: the heap growth over
 * `10n` calls minus that over `n` calls, divided by `9n`, median of three tries (n small enough that no scavenge
 * runs inside a try and hides garbage), after a warm-up that
 * lets the JIT optimise `fn`. Needs `--expose-gc` for a clean reading (the `npm test` script sets it);
 * without it the figure is noisier but still meaningful. A single allocated object is >= 16 bytes, so a
 * per-frame allocation shows up as >= 16 here, and allocation-free code reads close to 0.
 */
export function bytesPerCall(fn: () => void, n = 2000): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  const run = (count: number) => {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < count; i++) fn();
    return process.memoryUsage().heapUsed - before;
  };
  for (let i = 0; i < 5 * n; i++) fn();
  const tries: number[] = [];
  for (let t = 0; t < 3; t++) {
    const small = run(n);
    const big = run(10 * n);
    tries.push((big - small) / (9 * n));
  }
  tries.sort((a, b) => a - b);
  return tries[1];
}
