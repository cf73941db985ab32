/** The contact trainer: a tiny seeded run is reproducible, and its ONNX export runs in onnxruntime-web. */
import { computeFootTracks } from '../src/contact';
import { trainingCopies } from '../train/contact/copies';
import { train } from '../train/contact/net';
import { DEFAULT_WALK, loadBvhClip } from './helpers/contact';
import { runOrtProbe } from './helpers/ortProbe';

describe('trainer', () => {
  const tracks = computeFootTracks(loadBvhClip(DEFAULT_WALK));
  const copies = trainingCopies('default-walk', tracks, 5, 0);
  const run = (seed: number) => train(copies, { seed, hidden: [6, 4], epochs: 2, batch: 64, lr: 3e-3 });

  it('the same seed gives the same weights, bit for bit; another seed does not', () => {
    const a = run(7);
    const b = run(7);
    const c = run(8);
    expect(a.samples).toBeGreaterThan(1000);
    a.weights.layers.forEach((l, i) => {
      expect(Array.from(b.weights.layers[i].weight)).toEqual(Array.from(l.weight));
      expect(Array.from(b.weights.layers[i].bias)).toEqual(Array.from(l.bias));
    });
    expect(Array.from(c.weights.layers[0].weight)).not.toEqual(Array.from(a.weights.layers[0].weight));
    expect(a.finalLoss).toBe(b.finalLoss);
    expect(a.finalLoss).toBeLessThan(0.69); // learnt something beyond chance
  });

  it('its ONNX export equals its pure-TS forward pass in onnxruntime-web', () => {
    const r = runOrtProbe('tiny') as { maxDiff: number; rows: number };
    expect(r.rows).toBeGreaterThan(100);
    expect(r.maxDiff).toBeLessThan(1e-6);
  });
});
