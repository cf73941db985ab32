/**
 * Benchmark 5: contact model inference per window, onnxruntime-web (wasm, one thread, batched) beside the
 * pure-TS forward pass of the same weights (not a test). Windows: every grid window of both feet of a
 * real take (fallback: the embedded default walk). Reported as windows per second and the ratio
 * pure-TS / onnxruntime-web, for one batch of all windows and for one window per call (the live case).
 */
import * as path from 'node:path';
import {
  computeFootTracks,
  contactFeatures,
  contactWindows,
  estimateFloor,
  INPUT_SIZE,
  loadShippedContactModel,
  mlpForward,
  mlpScratch,
} from '../src/contact';
import { loadContactSession, runContactSession } from '../src/contact/onnxRunner';
import { withHumanoid } from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { DEFAULT_ASSETS, fmt, now, type Row, readBytes, readText, sharedFile, shortName } from './harness';

async function timeAsync(fn: () => Promise<unknown>, budgetMs: number, minRuns: number): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const ts: number[] = [];
  let used = 0;
  while (ts.length < minRuns || used < budgetMs) {
    const t0 = now();
    await fn();
    const dt = now() - t0;
    ts.push(dt);
    used += dt;
  }
  ts.sort((a, b) => a - b);
  return ts[ts.length >> 1];
}

export async function runContactBench(): Promise<Row[]> {
  console.log('\n== 5. Contact model inference per window (pure-TS forward pass vs onnxruntime-web wasm)');
  const take = sharedFile('cmu-locomotion/cgspeed-mb/01_01.bvh') ?? `${DEFAULT_ASSETS}/default-walk.bvh`;
  const fileName = shortName(take);
  const parsed = parseBvh(readText(take), { fileName });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName });
  const clip = { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
  const tracks = computeFootTracks(clip);
  const windows = contactWindows(contactFeatures(tracks, estimateFloor(tracks)));
  const rows = windows.length / INPUT_SIZE;
  const weights = loadShippedContactModel();
  const scratch = mlpScratch(weights);
  const onnxPath = path.resolve(__dirname, '../src/contact/model/contact.onnx');
  const session = await loadContactSession(new Uint8Array(readBytes(onnxPath)), {
    wasmPaths: `${path.dirname(require.resolve('onnxruntime-web'))}/`,
  });
  let sink = 0;
  const tsBatch = await timeAsync(
    async () => {
      for (let r = 0; r < rows; r++) sink += mlpForward(weights, windows, r * INPUT_SIZE, scratch);
    },
    3000,
    5,
  );
  const ortBatch = await timeAsync(
    async () => {
      const p = await runContactSession(session, windows);
      sink += p[0];
    },
    3000,
    5,
  );
  const one = windows.slice(0, INPUT_SIZE);
  const singles = 200;
  const tsOne = await timeAsync(
    async () => {
      for (let i = 0; i < singles; i++) sink += mlpForward(weights, one, 0, scratch);
    },
    2000,
    5,
  );
  const ortOne = await timeAsync(
    async () => {
      for (let i = 0; i < singles; i++) sink += (await runContactSession(session, one))[0];
    },
    2000,
    5,
  );
  const per = (ms: number, n: number) => (1000 * n) / ms;
  console.log(
    `${fileName}: ${rows} windows of ${INPUT_SIZE} inputs. batch: pure TS ${fmt(per(tsBatch, rows) / 1e3)} k windows/s, onnxruntime-web ${fmt(per(ortBatch, rows) / 1e3)} k windows/s; one window per call: pure TS ${fmt(per(tsOne, singles) / 1e3)} k/s, onnxruntime-web ${fmt(per(ortOne, singles) / 1e3)} k/s (sink ${sink > 0 ? '+' : '-'})`,
  );
  return [
    {
      bench: 'contact windows/s, batch of all windows',
      ours: `${fmt(per(tsBatch, rows) / 1e3)} k/s`,
      three: `${fmt(per(ortBatch, rows) / 1e3)} k/s`,
      ratio: ortBatch / tsBatch,
      peer: 'ort-web',
    },
    {
      bench: 'contact windows/s, one window per call',
      ours: `${fmt(per(tsOne, singles) / 1e3)} k/s`,
      three: `${fmt(per(ortOne, singles) / 1e3)} k/s`,
      ratio: ortOne / tsOne,
      peer: 'ort-web',
    },
  ];
}
