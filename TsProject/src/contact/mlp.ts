/**
 * The learned contact model's weights and its pure-TypeScript forward pass (for hosts without
 * WebAssembly, e.g. Unity through PuerTS). The same weights are in the shipped `model/contact.onnx`,
 * run by onnxruntime-web (./onnxRunner.ts); a test keeps the two within 1e-6.
 *
 * Network: a multilayer perceptron `INPUT_SIZE -> h1 -> h2 -> 1`, ReLU between layers, sigmoid at the
 * end: `P = sigmoid(W3 relu(W2 relu(W1 z + b1) + b2) + b3)` on the standardised input
 * `z = (x - inputMean) * inputScale` (float32, as the ONNX graph's Sub and Mul nodes compute it, so both
 * paths see bit-identical z). Weights are float32, row-major `[out][in]` (ONNX Gemm with transB = 1).
 */
import { INPUT_SIZE } from './features';
import { ContactError } from './tracks';

/** One fully connected layer of the contact MLP: `out = weight * in + bias`. */
export interface DenseLayer {
  inSize: number;
  outSize: number;
  /** `Float32Array(outSize * inSize)`, row-major `[out][in]`. */
  weight: Float32Array;
  /** `Float32Array(outSize)`. */
  bias: Float32Array;
}

/**
 * The contact MLP's weights: input normalisation (mean and scale per input) and the dense layers, in order.
 */
export interface ContactModelWeights {
  /** `Float32Array(INPUT_SIZE)`: subtracted from every input. */
  inputMean: Float32Array;
  /** `Float32Array(INPUT_SIZE)`: multiplies every centred input (1 / standard deviation). */
  inputScale: Float32Array;
  /** Dense layers in order; every layer but the last is followed by ReLU, the last by sigmoid. */
  layers: DenseLayer[];
}

/** Check the layer chain: INPUT_SIZE in, 1 out, matching sizes. @throws ContactError naming the layer. */
export function checkWeights(w: ContactModelWeights): void {
  if (w.layers.length < 1) throw new ContactError('contact model: no layers');
  if (w.inputMean.length !== INPUT_SIZE || w.inputScale.length !== INPUT_SIZE)
    throw new ContactError(
      `contact model: input standardisation has ${w.inputMean.length} values, expected ${INPUT_SIZE}`,
    );
  let size = INPUT_SIZE;
  w.layers.forEach((l, i) => {
    if (l.inSize !== size)
      throw new ContactError(`contact model: layer ${i} takes ${l.inSize} inputs, expected ${size}`);
    if (l.weight.length !== l.inSize * l.outSize || l.bias.length !== l.outSize)
      throw new ContactError(
        `contact model: layer ${i} weight/bias lengths do not match ${l.outSize}x${l.inSize}`,
      );
    size = l.outSize;
  });
  if (size !== 1) throw new ContactError(`contact model: last layer has ${size} outputs, expected 1`);
}

/** Scratch for {@link mlpForward}: the standardised input, then one Float64Array per layer output. */
export function mlpScratch(w: ContactModelWeights): Float64Array[] {
  return [new Float64Array(INPUT_SIZE), ...w.layers.map((l) => new Float64Array(l.outSize))];
}

/**
 * Contact probability of one window `x[offset .. offset + INPUT_SIZE)`. Sums in float64 from the
 * float32 weights and inputs. Allocates nothing (uses `scratch` from {@link mlpScratch}).
 */
export function mlpForward(
  w: ContactModelWeights,
  x: Float32Array,
  offset: number,
  scratch: Float64Array[],
): number {
  const layers = w.layers;
  const z = scratch[0];
  const mean = w.inputMean;
  const scale = w.inputScale;
  for (let i = 0; i < INPUT_SIZE; i++) z[i] = Math.fround(Math.fround(x[offset + i] - mean[i]) * scale[i]);
  let input: ArrayLike<number> = z;
  for (let li = 0; li < layers.length; li++) {
    const l = layers[li];
    const out = scratch[li + 1];
    const W = l.weight;
    const last = li === layers.length - 1;
    for (let o = 0; o < l.outSize; o++) {
      let s = l.bias[o];
      const row = o * l.inSize;
      for (let i = 0; i < l.inSize; i++) s += W[row + i] * input[i];
      out[o] = last ? s : Math.max(s, 0);
    }
    input = out;
  }
  return 1 / (1 + Math.exp(-scratch[layers.length][0]));
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decode standard base64 (RFC 4648, with '=' padding) to bytes; engine-free (no atob/Buffer). */
export function decodeBase64(s: string): Uint8Array {
  const clean = s.replace(/[^A-Za-z0-9+/]/g, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let acc = 0;
  let k = 0;
  for (let i = 0; i < clean.length; i++) {
    acc = (acc << 6) | B64.indexOf(clean[i]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, k);
}

/** Encode bytes as standard base64 with padding (RFC 4648). */
export function encodeBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2] : 0;
    const t = (a << 16) | (b << 8) | c;
    s += B64[(t >> 18) & 63] + B64[(t >> 12) & 63];
    s += i + 1 < bytes.length ? B64[(t >> 6) & 63] : '=';
    s += i + 2 < bytes.length ? B64[t & 63] : '=';
  }
  return s;
}

/** Float32 little-endian bytes of base64 text as a Float32Array (copied; alignment-safe). */
export function float32FromBase64(s: string): Float32Array {
  const bytes = decodeBase64(s);
  const out = new Float32Array(bytes.length / 4);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = dv.getFloat32(4 * i, true);
  return out;
}

/** Name of the ONNX model's input: float32 `[N, INPUT_SIZE]` windows. */
export const ONNX_INPUT = 'window';
/** Name of the ONNX model's output: float32 `[N, 1]` contact probabilities. */
export const ONNX_OUTPUT = 'contact';
