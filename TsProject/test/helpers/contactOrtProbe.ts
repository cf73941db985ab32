/**
 * onnxruntime-web probes for the contact tests, run in a plain Node process: inside jest's module
 * sandbox onnxruntime-web cannot load its wasm glue (a dynamic `import()` needs
 * --experimental-vm-modules), so the tests bundle this file with esbuild (onnxruntime-web external,
 * loaded from node_modules with its .wasm, offline) and read the JSON it prints.
 * Commands (argv[2]): `compare <bvh>`, `metrics <evalSeed> <take>...`, `wrong`, `tiny`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  computeFootTracks,
  contactFeatures,
  contactWindows,
  estimateFloor,
  INPUT_SIZE,
  learnedContactProbabilities,
  loadShippedContactModel,
  mlpForward,
  mlpScratch,
} from '../../src/contact';
import {
  loadContactSession,
  onnxContactProbabilities,
  runContactSession,
} from '../../src/contact/onnxRunner';
import { trainingCopies } from '../../train/contact/copies';
import { loadTracks } from '../../train/contact/data';
import { DEGRADATIONS } from '../../train/contact/degrade';
import { evaluate } from '../../train/contact/evaluate';
import { train } from '../../train/contact/net';
import { exportOnnx } from '../../train/contact/onnxExport';
import { loadBvhClip } from './contact';

const ROOT = process.env.KIND_TSPROJECT as string;
const wasmPaths = `${path.dirname(require.resolve('onnxruntime-web'))}/`;
const opts = { wasmPaths };
const shipped = new Uint8Array(fs.readFileSync(path.join(ROOT, 'src/contact/model/contact.onnx')));

async function compare(file: string): Promise<unknown> {
  const weights = loadShippedContactModel();
  const tracks = computeFootTracks(loadBvhClip(file));
  const feats = contactFeatures(tracks, estimateFloor(tracks));
  const windows = contactWindows(feats);
  const ort = await runContactSession(await loadContactSession(shipped, opts), windows);
  const scratch = mlpScratch(weights);
  const rows = windows.length / INPUT_SIZE;
  let maxDiff = 0;
  let spread = 0;
  for (let r = 0; r < rows; r++) {
    const p = mlpForward(weights, windows, r * INPUT_SIZE, scratch);
    maxDiff = Math.max(maxDiff, Math.abs(p - ort[r]));
    spread = Math.max(spread, Math.abs(p - 0.5));
  }
  const a = await onnxContactProbabilities(tracks, shipped, undefined, opts);
  const b = learnedContactProbabilities(tracks, weights);
  let frameDiff = 0;
  for (let f = 0; f < tracks.frameCount; f++)
    frameDiff = Math.max(frameDiff, Math.abs(a.left[f] - b.left[f]), Math.abs(a.right[f] - b.right[f]));
  return { rows, gridCount: feats.gridCount, maxDiff, spread, frameDiff, frames: tracks.frameCount };
}

async function metrics(seed: number, takes: string[]): Promise<unknown> {
  const session = await loadContactSession(shipped, opts);
  const held = takes.map((name) => ({ name, tracks: loadTracks(name) }));
  return evaluate(
    held,
    DEGRADATIONS,
    async (f) => {
      const p = await runContactSession(session, contactWindows(f));
      return [p.slice(0, f.gridCount), p.slice(f.gridCount)];
    },
    seed,
  );
}

async function wrong(): Promise<unknown> {
  const tracks = computeFootTracks(loadBvhClip(path.join(ROOT, 'assets/default/default-walk.bvh')));
  const layer = (inSize: number, outSize: number) => ({
    inSize,
    outSize,
    weight: new Float32Array(inSize * outSize),
    bias: new Float32Array(outSize),
  });
  const std = (n: number) => ({ inputMean: new Float32Array(n), inputScale: new Float32Array(n).fill(1) });
  const cases: Record<string, Uint8Array> = {
    inputName: exportOnnx({ ...std(INPUT_SIZE), layers: [layer(INPUT_SIZE, 1)] }, { inputName: 'x' }),
    inputWidth: exportOnnx({ ...std(7), layers: [layer(7, 1)] }),
    outputWidth: exportOnnx({ ...std(INPUT_SIZE), layers: [layer(INPUT_SIZE, 2)] }),
    notOnnx: new TextEncoder().encode('HIERARCHY\nROOT Hips\n'),
  };
  const out: Record<string, string> = {};
  for (const [k, bytes] of Object.entries(cases)) {
    try {
      await onnxContactProbabilities(tracks, bytes, undefined, opts);
      out[k] = 'no error';
    } catch (e) {
      out[k] = `${(e as Error).name}: ${(e as Error).message}`;
    }
  }
  return out;
}

async function tiny(): Promise<unknown> {
  const tracks = computeFootTracks(loadBvhClip(path.join(ROOT, 'assets/default/default-walk.bvh')));
  const copies = trainingCopies('default-walk', tracks, 5, 0);
  const r = train(copies, { seed: 3, hidden: [6, 4], epochs: 1, batch: 64, lr: 3e-3 });
  const windows = contactWindows(copies[0].features);
  const ort = await runContactSession(await loadContactSession(exportOnnx(r.weights), opts), windows);
  const scratch = mlpScratch(r.weights);
  let maxDiff = 0;
  for (let i = 0; i < windows.length / INPUT_SIZE; i++)
    maxDiff = Math.max(maxDiff, Math.abs(mlpForward(r.weights, windows, i * INPUT_SIZE, scratch) - ort[i]));
  return { maxDiff, rows: windows.length / INPUT_SIZE };
}

async function main(): Promise<void> {
  const [cmd, ...rest] = process.argv.slice(2);
  let result: unknown;
  if (cmd === 'compare') result = await compare(rest[0]);
  else if (cmd === 'metrics') result = await metrics(Number(rest[0]), rest.slice(1));
  else if (cmd === 'wrong') result = await wrong();
  else if (cmd === 'tiny') result = await tiny();
  else throw new Error(`unknown probe command ${cmd}`);
  console.log(JSON.stringify(result));
  // onnxruntime-web leaves handles open that keep Node alive for a minute or more: exit once printed
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
