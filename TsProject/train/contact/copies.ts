/** The training copies of one take (kept apart from main.ts so importing it never starts a training run). */
import { contactFeatures, estimateFloor, type FootTracks } from '../../src/contact';
import { cleanLabels, DEGRADATIONS, degrade } from './degrade';
import { copySeed } from './evaluate';
import type { TrainCopy } from './net';
import { Rng } from './rng';

/** Training copies of a take: one per degradation (clean included) plus `extraAll` more of 'all'. */
export function trainingCopies(name: string, tracks: FootTracks, seed: number, extraAll: number): TrainCopy[] {
  const labels = cleanLabels(tracks);
  const kinds = [...DEGRADATIONS, ...Array.from({ length: extraAll }, () => 'all' as const)];
  return kinds.map((k, i) => {
    const d = degrade(tracks, k, new Rng(copySeed(seed, name, `${k}#${i}`)), labels);
    return { features: contactFeatures(d, estimateFloor(d)), labels };
  });
}

