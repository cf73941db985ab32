/**
 * `npm run train:contact`: train the contact MLP on degraded copies of the training takes, evaluate it and
 * the rule on held-out clips per degradation, and write src/contact/model/{contact.onnx, weights.ts,
 * metrics.json, MODEL_CARD.md}. Arguments: `--seed N` (default 11), `--epochs N` (default 8),
 * `--out DIR` (default src/contact/model), `--no-write` (print only). `--table-only [--takes
 * holdout|train|all]`: only the detector table of the shipped weights (./judgeTable.ts). `--plot <take>
 * <out.png> [--side left|right] [--from F] [--to F]`: the teacher's labels drawn over the heights (./plot.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { learnedGrid, loadShippedContactModel } from '../../src/contact';
import { TRAIN_TAKES, holdoutTakes, loadTracks } from './data';
import { chooseDefault, judgeTable, judgeTableMarkdown } from './judgeTable';
import { plotTake } from './plot';
import { DEGRADATIONS } from './degrade';
import { evaluate, pool, prf, table } from './evaluate';
import { trainingCopies } from './copies';
import { type TrainCopy, train } from './net';
import { writeModelFiles } from './write';

export const DEFAULTS = { seed: 11, epochs: 8, hidden: [32, 32], batch: 128, lr: 2e-3, extraAll: 2, evalSeed: 1011 };

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string, def: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : def;
  };
  const seed = arg('--seed', DEFAULTS.seed);
  const epochs = arg('--epochs', DEFAULTS.epochs);
  const oi = args.indexOf('--out');
  const outDir = path.resolve(oi >= 0 ? args[oi + 1] : path.join(__dirname, '../src/contact/model'));
  const pi = args.indexOf('--plot');
  if (pi >= 0) {
    const si = args.indexOf('--side');
    const side = si >= 0 && args[si + 1] === 'right' ? 'right' : 'left';
    const fi = args.indexOf('--from');
    const ti = args.indexOf('--to');
    plotTake(args[pi + 1], path.resolve(args[pi + 2]), side, fi >= 0 ? Number(args[fi + 1]) : 0, ti >= 0 ? Number(args[ti + 1]) : undefined);
    return;
  }
  if (args.includes('--table-only')) {
    // the detector table of the shipped model (or of the weights in --out when it is not the default)
    const ti = args.indexOf('--takes');
    const which = ti >= 0 ? args[ti + 1] : 'holdout';
    const takes = which === 'train' ? TRAIN_TAKES : which === 'all' ? [...TRAIN_TAKES, ...holdoutTakes()] : holdoutTakes();
    const t = judgeTable(takes, loadShippedContactModel());
    console.log(`detectors vs the judge's reference, ${which} takes (${takes.length}):\n${judgeTableMarkdown(t)}`);
    for (const n of t.notes) console.log(`note: ${n}`);
    const c = chooseDefault(t);
    console.log(`default by the criterion: ${c.choice}\n${c.reasons.join('\n')}`);
    return;
  }
  const t0 = Date.now();
  const copies: TrainCopy[] = [];
  for (const rel of TRAIN_TAKES) copies.push(...trainingCopies(rel, loadTracks(rel), seed, DEFAULTS.extraAll));
  const tData = (Date.now() - t0) / 1000;
  console.log(`training data: ${TRAIN_TAKES.length} takes, ${copies.length} copies (${tData.toFixed(1)} s)`);
  const t1 = Date.now();
  const res = train(copies, {
    seed,
    hidden: DEFAULTS.hidden,
    epochs,
    batch: DEFAULTS.batch,
    lr: DEFAULTS.lr,
    onEpoch: (e, loss) => console.log(`epoch ${e + 1}/${epochs}: loss ${loss.toFixed(4)} (${((Date.now() - t1) / 1000).toFixed(0)} s)`),
  });
  const trainSeconds = (Date.now() - t1) / 1000;
  console.log(`trained on ${res.samples} windows in ${trainSeconds.toFixed(1)} s`);
  const held = holdoutTakes().map((name) => ({ name, tracks: loadTracks(name) }));
  const results = await evaluate(held, DEGRADATIONS, (f) => learnedGrid(f, res.weights), DEFAULTS.evalSeed);
  const pooled = pool(results, DEGRADATIONS);
  const md = table(pooled);
  console.log(`\nheld-out clips (${held.length}): P/R/F1 per degradation\n${md}`);
  const clean = pooled.get('clean');
  const degradedKinds = DEGRADATIONS.filter((k) => k !== 'clean');
  let wins = 0;
  for (const k of degradedKinds) {
    const v = pooled.get(k);
    if (v && prf(v.model).f1 > prf(v.rule).f1) wins++;
  }
  const cleanGap = clean ? prf(clean.rule).f1 - prf(clean.model).f1 : 1;
  const verdict = { wins, of: degradedKinds.length, cleanGap };
  console.log(`model beats rule on ${wins}/${degradedKinds.length} degradations; clean F1 gap (rule - model) ${cleanGap.toFixed(3)}`);
  const t2 = Date.now();
  const judged = judgeTable(held.map((h) => h.name), res.weights);
  const judgeMd = judgeTableMarkdown(judged);
  const choice = chooseDefault(judged);
  console.log(`\ndetectors vs the judge's reference contacts, held-out takes (${held.length}; ${((Date.now() - t2) / 1000).toFixed(1)} s):\n${judgeMd}`);
  for (const n of judged.notes) console.log(`note: ${n}`);
  console.log(`default by the criterion: ${choice.choice}\n${choice.reasons.join('\n')}`);
  if (!args.includes('--no-write')) {
    writeModelFiles(outDir, {
      weights: res.weights,
      seed,
      epochs,
      hidden: DEFAULTS.hidden,
      batch: DEFAULTS.batch,
      lr: DEFAULTS.lr,
      extraAll: DEFAULTS.extraAll,
      evalSeed: DEFAULTS.evalSeed,
      trainTakes: TRAIN_TAKES,
      heldOut: held.map((h) => h.name),
      samples: res.samples,
      finalLoss: res.finalLoss,
      trainSeconds,
      results,
      table: md,
      verdict,
      judge: { table: judgeMd, choice: choice.choice, reasons: choice.reasons, notes: judged.notes, inputs: judged.inputs },
    });
    console.log(`wrote ${outDir}`);
  }
  void fs;
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
