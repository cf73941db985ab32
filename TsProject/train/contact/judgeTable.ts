/**
 * The detector table of the model card (issue 20, item 5): every detector (the rule, the learned model,
 * the teacher) against the judge's reference contacts (test/helpers/judge/reference.ts: its own BVH
 * reader, forward kinematics and contact definition, nothing of src), on whole takes, clean and degraded
 * by the judge's own copies (test/helpers/judge/degrade.ts: root noise, drift, shift, 25/30 fps, a raised
 * stretch, feet sliding during their contacts), each copy judged against the clean take's reference carried
 * over by its frame map.
 *
 * Per take and kind: the BVH text (clean, or the judge's degraded copy) is read by src (parseBvh,
 * autoMapHumanoid, computeFootTracks), each detector gives per-frame per-foot probabilities on the copy,
 * 0/1 contacts are those probabilities cleaned the same way for all three (src/contact `cleanContacts`:
 * hysteresis 0.7/0.3, gaps <= 3 frames at 60 Hz merged, contacts < 5 frames at 60 Hz dropped, scaled by
 * the rate), and the judge's `scoreDetector` counts them against the reference foot contact (heel or toe)
 * per frame and foot; counts are pooled over takes per kind.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withHumanoid } from '../../src/core';
import {
  type ContactModelWeights,
  cleanContacts,
  computeFootTracks,
  type FootTracks,
  learnedContactProbabilities,
  ruleContactProbabilities,
  teacherContactProbabilities,
} from '../../src/contact';
import { parseBvh } from '../../src/io/bvh';
import { autoMapHumanoid } from '../../src/io/humanoidMap';
import {
  DEGRADATIONS as JUDGE_DEGRADATIONS,
  type DegradationKind,
  degradedCopy,
  legTrack,
  mapReference,
  type ReferenceContacts,
  readBvhText,
  referenceContacts,
  scoreDetector,
  scoreOf,
} from '../../test/helpers/judge';
import { SHARED_DATA } from './data';

export type TableKind = 'clean' | DegradationKind;
export const TABLE_KINDS: readonly TableKind[] = ['clean', ...JUDGE_DEGRADATIONS];
export const DETECTORS = ['rule', 'learned', 'teacher'] as const;
export type DetectorName = (typeof DETECTORS)[number];

export interface Counts4 {
  tp: number;
  fp: number;
  fn: number;
  tn: number;
}

/** Pooled counts per kind and detector, and the takes that could not be judged. */
export interface JudgeTable {
  takes: string[];
  counts: Record<TableKind, Record<DetectorName, Counts4>>;
  /** Inputs judged per kind (a copy at the take's own rate is not made). */
  inputs: Record<TableKind, number>;
  notes: string[];
}

function tracksOf(text: string, name: string): FootTracks {
  const parsed = parseBvh(text, { fileName: name });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName: name });
  return computeFootTracks({ ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) });
}

/** 0/1 contacts of every detector on a take (see the module doc). */
export function detectorLabels(
  tracks: FootTracks,
  weights: ContactModelWeights,
): Record<DetectorName, { left: Uint8Array; right: Uint8Array }> {
  const fps = 1 / tracks.frameTime;
  const clean = (p: { left: Float32Array; right: Float32Array }) => ({
    left: cleanContacts(p.left, { fps }),
    right: cleanContacts(p.right, { fps }),
  });
  return {
    rule: clean(ruleContactProbabilities(tracks)),
    learned: clean(learnedContactProbabilities(tracks, weights)),
    teacher: clean(teacherContactProbabilities(tracks)),
  };
}

/**
 * The table's counts over `takes` (paths relative to the shared data folder) for `kinds`.
 * @param weights the learned model's weights (the one being written, or the shipped one).
 */
export function judgeTable(
  takes: readonly string[],
  weights: ContactModelWeights,
  kinds: readonly TableKind[] = TABLE_KINDS,
): JudgeTable {
  const zero = (): Record<DetectorName, Counts4> => ({
    rule: { tp: 0, fp: 0, fn: 0, tn: 0 },
    learned: { tp: 0, fp: 0, fn: 0, tn: 0 },
    teacher: { tp: 0, fp: 0, fn: 0, tn: 0 },
  });
  const counts = Object.fromEntries(TABLE_KINDS.map((k) => [k, zero()])) as JudgeTable['counts'];
  const inputs = Object.fromEntries(TABLE_KINDS.map((k) => [k, 0])) as JudgeTable['inputs'];
  const notes: string[] = [];
  for (const take of takes) {
    try {
      const text = fs.readFileSync(path.join(SHARED_DATA, take), 'utf8');
      const bvh = readBvhText(text, take);
      const { track, frame } = legTrack(bvh);
      const ref = referenceContacts(track);
      for (const kind of kinds) {
        let body = text;
        let r: ReferenceContacts = ref;
        if (kind !== 'clean') {
          const c = degradedCopy(bvh, frame, ref, kind, 1);
          if (!c) continue;
          body = c.text;
          r = mapReference(ref, c);
        }
        const labels = detectorLabels(tracksOf(body, path.basename(take)), weights);
        inputs[kind]++;
        for (const d of DETECTORS) {
          const s = scoreDetector(r, labels[d]);
          const into = counts[kind][d];
          into.tp += s.tp;
          into.fp += s.fp;
          into.fn += s.fn;
          into.tn += s.tn;
        }
      }
    } catch (e) {
      notes.push(`${take}: not judged: ${(e as Error).message}`);
    }
  }
  return { takes: [...takes], counts, inputs, notes };
}

/** Precision, recall and F1 of pooled counts (the judge's `scoreOf`). */
export function scores(c: Counts4): { precision: number; recall: number; f1: number } {
  return scoreOf(c);
}

/** The table as Markdown: one row per kind, P / R / F1 per detector. */
export function judgeTableMarkdown(t: JudgeTable): string {
  const f = (x: number) => x.toFixed(3);
  const head = `| kind | inputs | ${DETECTORS.map((d) => `${d} P | ${d} R | ${d} F1`).join(' | ')} |`;
  const rule = `|---|---|${DETECTORS.map(() => '---|---|---|').join('')}`;
  const rows = TABLE_KINDS.filter((k) => t.inputs[k] > 0).map((k) => {
    const cells = DETECTORS.map((d) => {
      const s = scores(t.counts[k][d]);
      return `${f(s.precision)} | ${f(s.recall)} | ${f(s.f1)}`;
    });
    return `| ${k} | ${t.inputs[k]} | ${cells.join(' | ')} |`;
  });
  return [head, rule, ...rows].join('\n');
}

/**
 * The default detector by the issue's criterion: a detector qualifies when its F1 is at least the rule's
 * on clean takes and on slide (feet sliding during their contacts: what the cleanup exists to fix), and
 * above the rule's on noise, drift, fps25, fps30 and uneven (shift is reported, not required). Of the
 * qualifying learned model and teacher, the one with the higher mean F1 over all kinds; the rule when
 * neither qualifies. Returns the choice and one line per detector saying why.
 */
export function chooseDefault(t: JudgeTable): { choice: DetectorName; reasons: string[] } {
  const f1 = (k: TableKind, d: DetectorName) => scores(t.counts[k][d]).f1;
  const atLeast: TableKind[] = ['clean', 'slide'];
  const required: TableKind[] = ['noise', 'drift', 'fps25', 'fps30', 'uneven'];
  const present = TABLE_KINDS.filter((k) => t.inputs[k] > 0);
  const reasons: string[] = [];
  let choice: DetectorName = 'rule';
  let best = Number.NEGATIVE_INFINITY;
  for (const d of ['learned', 'teacher'] as const) {
    const fails: string[] = [];
    for (const k of atLeast) if (t.inputs[k] > 0 && f1(k, d) < f1(k, 'rule')) fails.push(k);
    for (const k of required) if (t.inputs[k] > 0 && !(f1(k, d) > f1(k, 'rule'))) fails.push(k);
    const mean = present.reduce((s, k) => s + f1(k, d), 0) / Math.max(1, present.length);
    reasons.push(
      `${d}: ${fails.length === 0 ? 'qualifies' : `does not beat the rule on ${fails.join(', ')}`} (mean F1 ${mean.toFixed(3)})`,
    );
    if (fails.length === 0 && mean > best) {
      best = mean;
      choice = d;
    }
  }
  return { choice, reasons };
}
