/**
 * Benchmark 1: BVH parse throughput, ours (`parseBvh`, src/io/bvh.ts) against three.js `BVHLoader.parse`
 * on the same text, in the same process. Throughput is file bytes / median wall time (MB = 10^6 bytes).
 * Both parsers get the whole file as a JS string (what `BVHLoader.parse` takes); ours is also timed on
 * the raw bytes (`Uint8Array`, what the CLI passes), for information. The two parsers are timed in
 * alternation so both see the same machine load.
 */
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { parseBvh } from '../src/io/bvh';
import {
  DEFAULT_ASSETS,
  fileSize,
  fmt,
  type Row,
  readBytes,
  readText,
  SHARED_DATA,
  sharedFile,
  shortName,
  time,
  timePair,
} from './harness';

/** The takes to parse: the two largest real takes, or the embedded default walk when the shared data is absent. */
export function parseBenchFiles(): string[] {
  const files = [
    sharedFile('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh'),
    sharedFile('animated-drawings/rokoko/jesse_dance.bvh'),
  ].filter((f): f is string => f !== null);
  if (files.length === 0) {
    console.log(
      `note: shared data not found at ${SHARED_DATA} (set KIND_SHARED_DATA); using the embedded default-walk.bvh, a small synthetic file`,
    );
    files.push(`${DEFAULT_ASSETS}/default-walk.bvh`);
  }
  return files;
}

/** Ours and three.js alternate (same load for both); three.js takes ~95% of each pair's time. */
const PAIR_OPTS = { warmup: 5, minRuns: 15, maxRuns: 100, budgetMs: 4000 };
const BYTES_OPTS = { warmup: 5, minRuns: 15, maxRuns: 100, budgetMs: 500 };

export function runParseBench(): Row[] {
  const rows: Row[] = [];
  for (const file of parseBenchFiles()) {
    const name = shortName(file);
    const text = readText(file);
    const bytes = readBytes(file);
    const mb = fileSize(file) / 1e6;
    const fileName = name;

    // Sanity: both read the same frame count before anything is timed.
    const ours = parseBvh(text, { fileName });
    const three = new BVHLoader().parse(text);
    const threeFrames = Math.max(...three.clip.tracks.map((t) => t.times.length));
    console.log(
      `${name}: ${fmt(mb, 2)} MB, ${ours.clip.frameCount} frames x ${ours.clip.skeleton.boneCount} joints ` +
        `(three.js: ${threeFrames} frames, ${three.skeleton.bones.length} bones incl. End Sites)`,
    );
    if (threeFrames !== ours.clip.frameCount) {
      console.log(`  WARNING: frame counts differ (ours ${ours.clip.frameCount}, three.js ${threeFrames})`);
    }

    const [tOurs, tThree] = timePair(
      () => parseBvh(text, { fileName }),
      () => new BVHLoader().parse(text),
      PAIR_OPTS,
    );
    const tBytes = time(() => parseBvh(bytes, { fileName }), BYTES_OPTS);
    const rate = (ms: number) => mb / (ms / 1000);
    const oursRate = rate(tOurs.medianMs);
    const threeRate = rate(tThree.medianMs);
    console.log(
      `  ours (string)  median ${fmt(tOurs.medianMs, 2)} ms (${tOurs.runs} runs, best ${fmt(tOurs.minMs, 2)})  ${fmt(oursRate)} MB/s`,
    );
    console.log(
      `  ours (bytes)   median ${fmt(tBytes.medianMs, 2)} ms (${tBytes.runs} runs, best ${fmt(tBytes.minMs, 2)})  ${fmt(rate(tBytes.medianMs))} MB/s`,
    );
    console.log(
      `  three.js       median ${fmt(tThree.medianMs, 2)} ms (${tThree.runs} runs, best ${fmt(tThree.minMs, 2)})  ${fmt(threeRate)} MB/s`,
    );
    rows.push({
      bench: `BVH parse ${name}`,
      ours: `${fmt(oursRate)} MB/s`,
      three: `${fmt(threeRate)} MB/s`,
      ratio: oursRate / threeRate,
      bestRatio: tThree.minMs / tOurs.minMs,
    });
  }
  return rows;
}
