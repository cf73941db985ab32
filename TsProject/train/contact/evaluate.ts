/**
 * Held-out evaluation: per degradation, frame-level precision, recall and F1 of cleaned contacts
 * (hysteresis 0.7/0.3, gaps, minimum length: `cleanContacts`) of the model and of the rule baseline,
 * against the clean take's cleaned rule labels, on the 60 Hz grid, both feet pooled. Degraded copies
 * are seeded per (seed, take, degradation), so any subset of takes reproduces the same counts.
 */
import { type ContactFeatures, cleanContacts, contactFeatures, estimateFloor, type FootTracks, ruleGrid } from '../../src/contact';
import { cleanLabels, type Degradation, degrade } from './degrade';
import { Rng } from './rng';

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export type GridPredictor = (f: ContactFeatures) => Promise<[Float32Array, Float32Array]> | [Float32Array, Float32Array];

/** Seed of one degraded copy: FNV-1a of `seed/take/degradation`. */
export function copySeed(seed: number, take: string, kind: string): number {
  let h = 2166136261 ^ seed;
  for (const ch of `${take}/${kind}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

function count(pred: Uint8Array, truth: Uint8Array, into: Counts): void {
  const n = Math.min(pred.length, truth.length);
  for (let i = 0; i < n; i++) {
    if (pred[i] && truth[i]) into.tp++;
    else if (pred[i]) into.fp++;
    else if (truth[i]) into.fn++;
  }
}

export function prf(c: Counts): { precision: number; recall: number; f1: number } {
  const precision = c.tp + c.fp > 0 ? c.tp / (c.tp + c.fp) : 1;
  const recall = c.tp + c.fn > 0 ? c.tp / (c.tp + c.fn) : 1;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

export interface TakeResult {
  take: string;
  degradation: Degradation;
  model: Counts;
  rule: Counts;
}

/** Counts per held-out take and degradation. */
export async function evaluate(
  takes: { name: string; tracks: FootTracks }[],
  degradations: readonly Degradation[],
  predictor: GridPredictor,
  seed: number,
): Promise<TakeResult[]> {
  const out: TakeResult[] = [];
  for (const t of takes) {
    const labels = cleanLabels(t.tracks);
    for (const kind of degradations) {
      const rng = new Rng(copySeed(seed, t.name, kind));
      const d = degrade(t.tracks, kind, rng, labels);
      const fe = contactFeatures(d, estimateFloor(d));
      const [ml, mr] = await predictor(fe);
      const r: TakeResult = { take: t.name, degradation: kind, model: { tp: 0, fp: 0, fn: 0 }, rule: { tp: 0, fp: 0, fn: 0 } };
      count(cleanContacts(ml), labels[0], r.model);
      count(cleanContacts(mr), labels[1], r.model);
      count(cleanContacts(ruleGrid(fe.left, fe.gridCount)), labels[0], r.rule);
      count(cleanContacts(ruleGrid(fe.right, fe.gridCount)), labels[1], r.rule);
      out.push(r);
    }
  }
  return out;
}

/** Pool counts per degradation. */
export function pool(results: TakeResult[], kinds: readonly Degradation[]): Map<Degradation, { model: Counts; rule: Counts }> {
  const m = new Map<Degradation, { model: Counts; rule: Counts }>();
  for (const k of kinds) m.set(k, { model: { tp: 0, fp: 0, fn: 0 }, rule: { tp: 0, fp: 0, fn: 0 } });
  for (const r of results) {
    const e = m.get(r.degradation);
    if (!e) continue;
    for (const w of ['model', 'rule'] as const) {
      e[w].tp += r[w].tp;
      e[w].fp += r[w].fp;
      e[w].fn += r[w].fn;
    }
  }
  return m;
}

/** The P/R/F1 table as Markdown. */
export function table(m: Map<Degradation, { model: Counts; rule: Counts }>): string {
  const f = (x: number) => x.toFixed(3);
  const lines = ['| degradation | model P | model R | model F1 | rule P | rule R | rule F1 |', '|---|---|---|---|---|---|---|'];
  for (const [k, v] of m) {
    const a = prf(v.model);
    const b = prf(v.rule);
    lines.push(`| ${k} | ${f(a.precision)} | ${f(a.recall)} | ${f(a.f1)} | ${f(b.precision)} | ${f(b.recall)} | ${f(b.f1)} |`);
  }
  return lines.join('\n');
}
