/**
 * Benchmark: `kind cleanup`'s whole pipeline on a long take (the Bandai dance, or the embedded sliding
 * default without the shared data): read the BVH, contact probabilities (src/contact through
 * src/cli/contactSource.ts), cleanupClip (segments, anchors, DLS leg IK, blending, metrics), the
 * cleaned BVH in the input's layout and cleanup.json (not the HTML page). Frames per second, beside a
 * peer in the same process: `parseBvh` of the same file (the ratio says how many parses one cleanup
 * costs), and the cleanup stage alone (cleanupClip on ready probabilities). No wall-clock assertion.
 */
import { cleanupClip } from '../src/cleanup';
import { cleanTake, readTake } from '../src/cli/cleanupRun';
import { contactSource } from '../src/cli/contactSource';
import { parseBvh } from '../src/io/bvh';
import { DEFAULT_ASSETS, fmt, type Row, readBytes, sharedFile, shortName, time } from './harness';

const OPTS = { warmup: 2, minRuns: 5, maxRuns: 30, budgetMs: 6000 };

export async function runCleanupBench(): Promise<Row[]> {
  const file =
    sharedFile('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh') ??
    `${DEFAULT_ASSETS}/default-slide.bvh`;
  const { clip } = readTake(file);
  const F = clip.frameCount;
  console.log(`\n== cleanup: ${shortName(file)}, ${F} frames at ${fmt(1 / clip.frameTime)} fps`);
  const rows: Row[] = [];
  for (const model of ['rule', 'learned', 'teacher'] as const) {
    const source = contactSource({ model });
    // one run outside the timing (async contact source, JIT)
    await cleanTake({ input: file, model, outBvh: 'bench.bvh' }, { source, html: false });
    const ms: number[] = [];
    for (let i = 0; i < 8; i++) {
      const t0 = performance.now();
      await cleanTake({ input: file, model, outBvh: 'bench.bvh' }, { source, html: false });
      ms.push(performance.now() - t0);
    }
    ms.sort((a, b) => a - b);
    const whole = ms[ms.length >> 1];
    const bytes = readBytes(file);
    const parse = time(() => parseBvh(bytes, { fileName: 'bench.bvh' }), OPTS).medianMs;
    const est = await source(clip);
    const stage = time(() => cleanupClip({ clip, probabilities: est, floor: est.floor }), OPTS).medianMs;
    console.log(
      `  ${model}: whole pipeline ${fmt(whole)} ms = ${fmt((F / whole) * 1000, 0)} frames/s; cleanupClip alone ${fmt(stage)} ms = ${fmt((F / stage) * 1000, 0)} frames/s; parseBvh ${fmt(parse, 2)} ms = ${fmt((F / parse) * 1000, 0)} frames/s`,
    );
    rows.push({
      bench: `cleanup pipeline (${model} contacts), frames/s`,
      ours: fmt((F / whole) * 1000, 0),
      three: fmt((F / parse) * 1000, 0),
      peer: 'parseBvh',
      ratio: parse / whole,
    });
  }
  return rows;
}
