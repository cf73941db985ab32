/**
 * The contact MLP trainer: INPUT_SIZE -> hidden... -> 1, ReLU, sigmoid output, binary cross-entropy,
 * Adam (Kingma & Ba 2015, "Adam: A Method for Stochastic Optimization", Algorithm 1), He-uniform
 * initialisation, minibatches in a seeded order. Plain Float64Array math; deterministic for a seed.
 */
import { type ContactFeatures, type ContactModelWeights, FEATURE_COUNT, INPUT_SIZE, writeWindow } from '../../src/contact';
import { Rng } from './rng';

/** One training copy: features of a (degraded) take on the grid and the clean take's grid labels. */
export interface TrainCopy {
  features: ContactFeatures;
  labels: [Uint8Array, Uint8Array];
}

export interface TrainOptions {
  seed: number;
  hidden: number[];
  epochs: number;
  batch: number;
  lr: number;
  /** Called after every epoch with the mean training loss. */
  onEpoch?: (epoch: number, loss: number) => void;
}

interface Layer {
  inSize: number;
  outSize: number;
  W: Float64Array;
  b: Float64Array;
  gW: Float64Array;
  gb: Float64Array;
  mW: Float64Array;
  vW: Float64Array;
  mb: Float64Array;
  vb: Float64Array;
}

export interface TrainResult {
  weights: ContactModelWeights;
  mean: Float64Array;
  std: Float64Array;
  finalLoss: number;
  samples: number;
}

/** Per-feature mean and standard deviation over every grid frame of both feet of all copies. */
export function featureStats(copies: TrainCopy[]): { mean: Float64Array; std: Float64Array } {
  const mean = new Float64Array(FEATURE_COUNT);
  const sq = new Float64Array(FEATURE_COUNT);
  let n = 0;
  for (const c of copies) {
    for (const f of [c.features.left, c.features.right]) {
      for (let g = 0; g < c.features.gridCount; g++) {
        for (let k = 0; k < FEATURE_COUNT; k++) {
          const v = f[g * FEATURE_COUNT + k];
          mean[k] += v;
          sq[k] += v * v;
        }
        n++;
      }
    }
  }
  const std = new Float64Array(FEATURE_COUNT);
  for (let k = 0; k < FEATURE_COUNT; k++) {
    mean[k] /= n;
    std[k] = Math.sqrt(Math.max(1e-12, sq[k] / n - mean[k] * mean[k]));
  }
  return { mean, std };
}

export function train(copies: TrainCopy[], o: TrainOptions): TrainResult {
  const rng = new Rng(o.seed);
  const { mean, std } = featureStats(copies);
  const sizes = [INPUT_SIZE, ...o.hidden, 1];
  const layers: Layer[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    const inSize = sizes[i];
    const outSize = sizes[i + 1];
    const W = new Float64Array(inSize * outSize);
    const lim = Math.sqrt(6 / inSize);
    for (let k = 0; k < W.length; k++) W[k] = rng.uniform(-lim, lim);
    const z = () => new Float64Array(inSize * outSize);
    const zb = () => new Float64Array(outSize);
    layers.push({ inSize, outSize, W, b: zb(), gW: z(), gb: zb(), mW: z(), vW: z(), mb: zb(), vb: zb() });
  }
  // sample index: copy, side, grid frame
  const idx: number[] = [];
  copies.forEach((c, ci) => {
    const G = Math.min(c.features.gridCount, c.labels[0].length);
    for (let side = 0; side < 2; side++) for (let g = 0; g < G; g++) idx.push(ci * 2 * 65536 * 4 + side * 65536 * 4 + g);
  });
  const order = Uint32Array.from(idx);
  const x = new Float32Array(INPUT_SIZE);
  const mean32 = new Float32Array(INPUT_SIZE);
  const scale32 = new Float32Array(INPUT_SIZE);
  for (let i = 0; i < INPUT_SIZE; i++) {
    mean32[i] = mean[i % FEATURE_COUNT];
    scale32[i] = 1 / std[i % FEATURE_COUNT];
  }
  const xs = new Float64Array(INPUT_SIZE);
  const acts = sizes.map((s) => new Float64Array(s));
  const grads = sizes.map((s) => new Float64Array(s));
  let step = 0;
  const b1 = 0.9;
  const b2 = 0.999;
  const eps = 1e-8;
  let finalLoss = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    rng.shuffle(order);
    let lossSum = 0;
    for (let start = 0; start < order.length; start += o.batch) {
      const end = Math.min(order.length, start + o.batch);
      for (const l of layers) {
        l.gW.fill(0);
        l.gb.fill(0);
      }
      for (let s = start; s < end; s++) {
        const code = order[s];
        const ci = Math.floor(code / (2 * 65536 * 4));
        const side = Math.floor(code / (65536 * 4)) % 2;
        const g = code % (65536 * 4);
        const c = copies[ci];
        writeWindow(side === 0 ? c.features.left : c.features.right, c.features.gridCount, g, x, 0);
        for (let i = 0; i < INPUT_SIZE; i++) xs[i] = Math.fround(Math.fround(x[i] - mean32[i]) * scale32[i]);
        const y = c.labels[side][g];
        acts[0] = xs;
        for (let li = 0; li < layers.length; li++) {
          const l = layers[li];
          const a = acts[li];
          const out = acts[li + 1];
          const last = li === layers.length - 1;
          for (let r = 0; r < l.outSize; r++) {
            let v = l.b[r];
            const row = r * l.inSize;
            for (let i = 0; i < l.inSize; i++) v += l.W[row + i] * a[i];
            out[r] = last ? v : v > 0 ? v : 0;
          }
        }
        const zl = acts[layers.length][0];
        const p = 1 / (1 + Math.exp(-zl));
        // BCE with logits, stable form
        lossSum += Math.max(zl, 0) - zl * y + Math.log1p(Math.exp(-Math.abs(zl)));
        grads[layers.length][0] = p - y;
        for (let li = layers.length - 1; li >= 0; li--) {
          const l = layers[li];
          const a = acts[li];
          const d = grads[li + 1];
          const da = grads[li];
          da.fill(0);
          for (let r = 0; r < l.outSize; r++) {
            const dr = d[r];
            if (dr === 0) continue;
            l.gb[r] += dr;
            const row = r * l.inSize;
            for (let i = 0; i < l.inSize; i++) {
              l.gW[row + i] += dr * a[i];
              da[i] += dr * l.W[row + i];
            }
          }
          if (li > 0) for (let i = 0; i < l.inSize; i++) if (a[i] <= 0) da[i] = 0;
        }
      }
      // Adam
      step++;
      const m = end - start;
      const c1 = 1 - b1 ** step;
      const c2 = 1 - b2 ** step;
      for (const l of layers) {
        const upd = (P: Float64Array, G: Float64Array, M: Float64Array, V: Float64Array) => {
          for (let i = 0; i < P.length; i++) {
            const gi = G[i] / m;
            M[i] = b1 * M[i] + (1 - b1) * gi;
            V[i] = b2 * V[i] + (1 - b2) * gi * gi;
            P[i] -= (o.lr * (M[i] / c1)) / (Math.sqrt(V[i] / c2) + eps);
          }
        };
        upd(l.W, l.gW, l.mW, l.vW);
        upd(l.b, l.gb, l.mb, l.vb);
      }
    }
    finalLoss = lossSum / order.length;
    o.onEpoch?.(epoch, finalLoss);
  }
  // Export: float32 weights; the standardisation stays explicit (ONNX Sub and Mul nodes).
  const inputMean = new Float32Array(INPUT_SIZE);
  const inputScale = new Float32Array(INPUT_SIZE);
  for (let i = 0; i < INPUT_SIZE; i++) {
    inputMean[i] = mean[i % FEATURE_COUNT];
    inputScale[i] = 1 / std[i % FEATURE_COUNT];
  }
  const weights: ContactModelWeights = {
    inputMean,
    inputScale,
    layers: layers.map((l) => ({ inSize: l.inSize, outSize: l.outSize, weight: Float32Array.from(l.W), bias: Float32Array.from(l.b) })),
  };
  return { weights, mean, std, finalLoss, samples: order.length };
}
