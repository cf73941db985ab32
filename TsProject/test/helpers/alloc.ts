/**
 * Bytes allocated on the JS heap per call of `fn`: the growth of V8's new space (where every new object
 * and boxed number is allocated) over `n` calls, after a warm-up that lets the JIT optimise `fn`;
 * the smallest of three tries (a try during which a scavenge emptied new space reads low, never high,
 * and is discarded by taking the smallest non-negative reading). New space only: code the JIT compiles
 * and objects promoted by a collection are not counted, so compiling `fn` does not look like
 * allocation. A single allocated object is >= 16 bytes, so per-call allocation reads >= 16 here, and
 * allocation-free code reads close to 0.
 */
import * as v8 from 'node:v8';

function newSpaceUsed(): number {
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_used_size;
  return 0;
}

export function bytesPerCall(fn: () => void, n = 20000): number {
  for (let i = 0; i < 5 * n; i++) fn();
  const tries: number[] = [];
  for (let t = 0; t < 3; t++) {
    (globalThis as { gc?: () => void }).gc?.();
    const before = newSpaceUsed();
    for (let i = 0; i < n; i++) fn();
    const grown = newSpaceUsed() - before;
    if (grown >= 0) tries.push(grown / n);
  }
  return tries.length > 0 ? Math.min(...tries) : 0;
}
