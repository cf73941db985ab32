/**
 * The contact trainer: its labels are the offline teacher's (issue 20 item 5), a tiny seeded run is
 * reproducible, its ONNX export runs in onnxruntime-web, and the detector table picks its default by the
 * issue's criterion.
 */
import { computeFootTracks, gridCountOf, teacherGrid, teacherLabels } from '../src/contact';
import { trainingCopies } from '../train/contact/copies';
import { cleanLabels } from '../train/contact/degrade';
import { chooseDefault, type JudgeTable, TABLE_KINDS } from '../train/contact/judgeTable';
import { train } from '../train/contact/net';
import { DEFAULT_WALK, loadBvhClip } from './helpers/contact';
import { runOrtProbe } from './helpers/ortProbe';

describe('trainer', () => {
  const tracks = computeFootTracks(loadBvhClip(DEFAULT_WALK));
  const copies = trainingCopies('default-walk', tracks, 5, 0);
  const run = (seed: number) => train(copies, { seed, hidden: [6, 4], epochs: 2, batch: 64, lr: 3e-3 });

  it("trains on the teacher's labels of the clean take (no sliding dwells), carried to every copy", () => {
    const want = teacherGrid(
      teacherLabels(tracks, { slides: false }),
      gridCountOf(tracks.frameCount, tracks.frameTime),
    );
    const got = cleanLabels(tracks);
    expect(Array.from(got[0])).toEqual(Array.from(want[0]));
    expect(Array.from(got[1])).toEqual(Array.from(want[1]));
    expect(want[0].some((v) => v === 1) && want[0].some((v) => v === 0)).toBe(true);
    for (const c of copies) expect(c.labels).toEqual(got);
  });

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

describe('the default detector by the detector table', () => {
  /** A table whose F1 per kind is `f1[detector]` (tp/fp/fn chosen so precision = recall = F1). */
  const table = (f1: Record<'rule' | 'learned' | 'teacher', Partial<Record<string, number>>>): JudgeTable => {
    const counts = {} as JudgeTable['counts'];
    const inputs = {} as JudgeTable['inputs'];
    for (const k of TABLE_KINDS) {
      inputs[k] = 1;
      const c = (v: number) => ({
        tp: Math.round(1000 * v),
        fp: Math.round(1000 * (1 - v)),
        fn: Math.round(1000 * (1 - v)),
        tn: 0,
      });
      counts[k] = {
        rule: c(f1.rule[k] ?? 0.9),
        learned: c(f1.learned[k] ?? 0.9),
        teacher: c(f1.teacher[k] ?? 0.9),
      };
    }
    return { takes: ['t'], counts, inputs, notes: [] };
  };

  it('the rule when nobody beats it on every required kind', () => {
    const c = chooseDefault(table({ rule: {}, learned: { noise: 0.95 }, teacher: { clean: 0.95 } }));
    expect(c.choice).toBe('rule');
    expect(c.reasons[0]).toMatch(/^learned: does not beat the rule on drift, fps25, fps30, uneven/);
  });

  it('of those that qualify, the higher mean F1; worse than the rule on clean never qualifies', () => {
    const better = { clean: 0.9, noise: 0.95, drift: 0.95, fps25: 0.95, fps30: 0.95, uneven: 0.95 };
    expect(
      chooseDefault(table({ rule: {}, learned: better, teacher: { ...better, shift: 0.99 } })).choice,
    ).toBe('teacher');
    expect(
      chooseDefault(table({ rule: {}, learned: better, teacher: { ...better, clean: 0.89 } })).choice,
    ).toBe('learned');
  });

  it('worse than the rule on slide (feet sliding in their contacts) never qualifies', () => {
    const better = { clean: 0.9, noise: 0.95, drift: 0.95, fps25: 0.95, fps30: 0.95, uneven: 0.95 };
    const c = chooseDefault(
      table({ rule: {}, learned: better, teacher: { ...better, shift: 0.99, slide: 0.8 } }),
    );
    expect(c.choice).toBe('learned');
    expect(c.reasons[1]).toMatch(/^teacher: does not beat the rule on slide/);
  });
});
