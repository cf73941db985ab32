/**
 * The learned contact model in onnxruntime-web (wasm, offline from node_modules) against the pure-TS
 * forward pass, the shipped model against its model card's metrics, and models that are not the
 * expected one. onnxruntime-web runs in a plain Node child process (see helpers/contactOrtProbe.ts).
 */
import * as fs from 'node:fs';
import {
  computeFootTracks,
  contactFeatures,
  estimateFloor,
  learnedContactProbabilities,
  learnedGrid,
} from '../src/contact';
import { DEGRADATIONS } from '../train/contact/degrade';
import type { TakeResult } from '../train/contact/evaluate';
import { DEFAULT_WALK, loadBvhClip, SHIPPED_ONNX } from './helpers/contact';
import { dataPath, describeWithData, HAS_SHARED_DATA } from './helpers/data';
import { runOrtProbe } from './helpers/ortProbe';

describe('pure TS forward pass == onnxruntime-web (shipped model)', () => {
  const takes = [DEFAULT_WALK];
  if (HAS_SHARED_DATA)
    takes.push(
      dataPath('cmu-locomotion/cgspeed-mb/02_01.bvh'),
      dataPath('animated-drawings/fair1/jumping.bvh'),
    );
  it.each(takes)('every window of %s within 1e-6', (file) => {
    const r = runOrtProbe('compare', file) as Record<string, number>;
    expect(r.rows).toBe(2 * r.gridCount);
    expect(r.rows).toBeGreaterThan(100);
    expect(r.maxDiff).toBeLessThan(1e-6);
    expect(r.frameDiff).toBeLessThan(1e-6);
    expect(r.spread).toBeGreaterThan(0.4); // real windows reach confident outputs
  });
});

describeWithData('the shipped model gives the model card metrics on held-out clips', () => {
  it('onnxruntime-web on a stable subset (1 clip x every degradation) reproduces metrics.json', () => {
    const metrics = JSON.parse(
      fs.readFileSync(SHIPPED_ONNX.replace(/contact\.onnx$/, 'metrics.json'), 'utf8'),
    ) as {
      evalSeed: number;
      results: TakeResult[];
    };
    const subset = ['cmu-locomotion/iclone-ccbase/007_12.bvh'];
    const got = runOrtProbe('metrics', String(metrics.evalSeed), ...subset) as TakeResult[];
    expect(got.length).toBe(DEGRADATIONS.length);
    for (const r of got) {
      const want = metrics.results.find(
        (m) => m.take === r.take && m.degradation === r.degradation,
      ) as TakeResult;
      expect(want).toBeDefined();
      // the rule is pure TS on both sides: exact; the model may differ by a frame where P sits on a
      // threshold (onnxruntime-web vs the trainer's pure-TS pass differ by < 1e-6)
      expect(r.rule).toEqual(want.rule);
      for (const k of ['tp', 'fp', 'fn'] as const)
        expect(Math.abs(r.model[k] - want.model[k])).toBeLessThanOrEqual(1);
    }
  });
});

describe('a model that is not the expected one gets a clear error', () => {
  it('names, shapes, not ONNX', () => {
    const r = runOrtProbe('wrong') as Record<string, string>;
    expect(r.inputName).toBe(
      "ContactError: contact model: inputs [x] and outputs [contact], expected input 'window' and output 'contact'",
    );
    expect(r.inputWidth).toBe(
      "ContactError: contact model: input 'window' is float32 [N, 7], expected float32 [N, 210]",
    );
    expect(r.outputWidth).toBe(
      "ContactError: contact model: output 'contact' is float32 [N, 2], expected float32 [N, 1]",
    );
    expect(r.notOnnx).toMatch(/^ContactError: contact model: not a loadable ONNX model \(/);
  });
  it('pure-TS weights of the wrong shape', () => {
    const tracks = computeFootTracks(loadBvhClip(DEFAULT_WALK));
    const w = {
      inputMean: new Float32Array(210),
      inputScale: new Float32Array(210),
      layers: [{ inSize: 9, outSize: 1, weight: new Float32Array(9), bias: new Float32Array(1) }],
    };
    expect(() => learnedContactProbabilities(tracks, w)).toThrow(
      /contact model: layer 0 takes 9 inputs, expected 210/,
    );
    expect(() => learnedGrid(contactFeatures(tracks, estimateFloor(tracks)), w)).toThrow(/layer 0 takes 9/);
  });
});
