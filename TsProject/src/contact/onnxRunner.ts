/**
 * The contact model in onnxruntime-web (wasm backend; Node 20 and browsers, offline). Kept out of the
 * engine-free `src/contact/index.ts` so code for hosts without WebAssembly (Unity through PuerTS)
 * never imports onnxruntime-web. Takes the model as bytes (no file access here).
 *
 * Where the runtime finds its `.wasm`: by default onnxruntime-web looks beside its own script; a host
 * that bundles it (or runs offline from node_modules) passes `wasmPaths`, the folder holding
 * `ort-wasm-simd-threaded.wasm` (in Node: `path.dirname(require.resolve('onnxruntime-web')) + '/'`,
 * i.e. `node_modules/onnxruntime-web/dist/`).
 */
import * as ort from 'onnxruntime-web';
import { contactFeatures, gridToFrames, INPUT_SIZE } from './features';
import { estimateFloor, type FloorEstimate } from './floor';
import { localGround } from './ground';
import { heelToeProbabilities } from './heelToe';
import { ONNX_INPUT, ONNX_OUTPUT } from './mlp';
import { type ContactProbabilities, contactWindows } from './probabilities';
import { ContactError, type FootTracks } from './tracks';

export interface OnnxOptions {
  /** Folder (URL or path prefix ending in '/') of onnxruntime-web's .wasm files. */
  wasmPaths?: string;
}

const sessions = new WeakMap<Uint8Array, Promise<ort.InferenceSession>>();

function checkShape(
  meta: ort.InferenceSession.ValueMetadata | undefined,
  what: string,
  name: string,
  second: number,
): void {
  if (!meta?.isTensor) throw new ContactError(`contact model: ${what} '${name}' is not a tensor`);
  const shape = meta.shape;
  if (meta.type !== 'float32' || shape.length !== 2 || shape[1] !== second) {
    throw new ContactError(
      `contact model: ${what} '${name}' is ${meta.type} [${shape.join(', ')}], expected float32 [N, ${second}]`,
    );
  }
}

/**
 * Load (once per bytes object) and check a contact model: one input `window` float32 [N, INPUT_SIZE],
 * one output `contact` float32 [N, 1].
 * @throws ContactError when the bytes are not an ONNX model or the names or shapes differ.
 */
export function loadContactSession(
  onnxBytes: Uint8Array,
  options: OnnxOptions = {},
): Promise<ort.InferenceSession> {
  let s = sessions.get(onnxBytes);
  if (!s) {
    s = (async () => {
      ort.env.wasm.numThreads = 1;
      if (options.wasmPaths) ort.env.wasm.wasmPaths = options.wasmPaths;
      let session: ort.InferenceSession;
      try {
        session = await ort.InferenceSession.create(onnxBytes, { executionProviders: ['wasm'] });
      } catch (e) {
        throw new ContactError(
          `contact model: not a loadable ONNX model (${(e as Error).message.split('\n')[0]})`,
        );
      }
      const ins = session.inputNames;
      const outs = session.outputNames;
      if (ins.length !== 1 || ins[0] !== ONNX_INPUT || outs.length !== 1 || outs[0] !== ONNX_OUTPUT) {
        throw new ContactError(
          `contact model: inputs [${ins.join(', ')}] and outputs [${outs.join(', ')}], expected input '${ONNX_INPUT}' and output '${ONNX_OUTPUT}'`,
        );
      }
      checkShape(session.inputMetadata[0], 'input', ONNX_INPUT, INPUT_SIZE);
      checkShape(session.outputMetadata[0], 'output', ONNX_OUTPUT, 1);
      return session;
    })();
    sessions.set(onnxBytes, s);
    s.catch(() => sessions.delete(onnxBytes));
  }
  return s;
}

/** Run a checked session on `rows` windows (`Float32Array(rows * INPUT_SIZE)`); returns `Float32Array(rows)`. */
export async function runContactSession(
  session: ort.InferenceSession,
  windows: Float32Array,
): Promise<Float32Array> {
  const rows = windows.length / INPUT_SIZE;
  const res = await session.run({ [ONNX_INPUT]: new ort.Tensor('float32', windows, [rows, INPUT_SIZE]) });
  const out = res[ONNX_OUTPUT];
  if (out?.dims.length !== 2 || out.dims[0] !== rows || out.dims[1] !== 1) {
    throw new ContactError(
      `contact model: output '${ONNX_OUTPUT}' has shape [${out?.dims.join(', ')}], expected [${rows}, 1]`,
    );
  }
  return Float32Array.from(out.data as Float32Array);
}

/**
 * Learned-model probabilities per foot per frame through onnxruntime-web. Same features and windows as
 * the pure-TS path (`learnedContactProbabilities`). `floor` defaults to `estimateFloor(tracks)`.
 * @throws ContactError when the model is not the expected one (names, shapes) or not ONNX.
 */
export async function onnxContactProbabilities(
  tracks: FootTracks,
  onnxBytes: Uint8Array,
  floor?: FloorEstimate,
  options: OnnxOptions = {},
): Promise<ContactProbabilities> {
  const fl = floor ?? estimateFloor(tracks);
  const session = await loadContactSession(onnxBytes, options);
  const feats = contactFeatures(tracks, fl);
  const G = feats.gridCount;
  const p = await runContactSession(session, contactWindows(feats));
  const left = gridToFrames(p.subarray(0, G), tracks.frameCount, tracks.frameTime);
  const right = gridToFrames(p.subarray(G, 2 * G), tracks.frameCount, tracks.frameTime);
  return {
    left,
    right,
    model: 'learned',
    floor: fl,
    // the split measures the points from the local ground, as the rule does (the model does not use it)
    points: heelToeProbabilities(tracks, fl, { left, right }, localGround(tracks, fl, feats)),
  };
}
