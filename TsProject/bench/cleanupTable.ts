/**
 * The per-take table of docs/cleanup.md of `kind cleanup` (not a test: it takes minutes): every BVH take of the
 * shared data (test/helpers/data.ts BVH_TAKES and every clip under cmu-locomotion/), cleaned with the
 * offline teacher (the default), the rule baseline and the learned model (contact.onnx in onnxruntime-web), through the same
 * `cleanTake` the CLI runs (read, contacts, cleanupClip, cleanup.json data; no files written).
 *
 * Per take and model: contact segments per foot (left/right), the supporting point's slide in contact
 * before -> after (cm, both feet summed; issue 20: the heel while it is pinned, else the toe; cleanup.json
 * `pinnedSlide`, with its toe part `slideToe`: the cleanup's own figure, the outside judge is
 * `npm run bench -- cleanup-judge`), deepest penetration below the estimated floor before -> after (cm, worse foot),
 * the largest IK rotation of the hip and knee (degrees, over both legs), knee pops (both legs), and
 * the skating ratio before -> after (mean of the two feet). Prints a Markdown table.
 *
 * Run: `npm run bench -- cleanup-table` (data: /work/shared/data or $KIND_SHARED_DATA).
 */
import fs from 'node:fs';
import path from 'node:path';
import { cleanTake } from '../src/cli/cleanupRun';
import { contactSource } from '../src/cli/contactSource';
import { fmt, SHARED_DATA, sharedFile } from './harness';

const BVH_TAKES = [
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh',
  'threejs/pirouette.bvh',
  'animated-drawings/cmu1/jumping_jacks.bvh',
  'animated-drawings/fair1/jumping.bvh',
  'animated-drawings/rokoko/jesse_dance.bvh',
];

function cmuTakes(): string[] {
  const root = path.join(SHARED_DATA, 'cmu-locomotion');
  if (!fs.existsSync(root)) return [];
  const out: string[] = [];
  for (const dir of fs.readdirSync(root).sort()) {
    const d = path.join(root, dir);
    if (!fs.statSync(d).isDirectory()) continue;
    for (const f of fs.readdirSync(d).sort()) if (f.endsWith('.bvh')) out.push(`cmu-locomotion/${dir}/${f}`);
  }
  return out;
}

const MODELS = ['teacher', 'rule', 'learned'] as const;

export async function runCleanupTable(): Promise<void> {
  const takes = [...BVH_TAKES, ...cmuTakes()].filter((t) => sharedFile(t));
  if (takes.length === 0) {
    console.log(`no shared data at ${SHARED_DATA}: nothing to tabulate`);
    return;
  }
  console.log(
    '| take | frames | model | segments L/R | supporting-point slide cm (toe part) | penetration cm | IK max hip/knee deg | knee pops | skating ratio |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  const totals: Record<string, { before: number; after: number; takes: number }> = {};
  for (const model of MODELS) totals[model] = { before: 0, after: 0, takes: 0 };
  const sources = {
    teacher: contactSource({ model: 'teacher' }),
    rule: contactSource({ model: 'rule' }),
    learned: contactSource({ model: 'learned' }),
  };
  for (const take of takes) {
    const file = sharedFile(take) as string;
    for (const model of MODELS) {
      let row: string;
      try {
        const { file: f } = await cleanTake(
          { input: file, model, outBvh: 'table.bvh' },
          { source: sources[model], html: false },
        );
        const b = f.metrics.before;
        const a = f.metrics.after;
        const slideB = (b.left.pinnedSlide + b.right.pinnedSlide) * 100;
        const slideA = (a.left.pinnedSlide + a.right.pinnedSlide) * 100;
        const toeB = (b.left.slideToe + b.right.slideToe) * 100;
        const toeA = (a.left.slideToe + a.right.slideToe) * 100;
        totals[model].before += slideB;
        totals[model].after += slideA;
        totals[model].takes++;
        const pen = (m: typeof b) => Math.max(m.left.penetrationMax, m.right.penetrationMax) * 100;
        const skate = (m: typeof b) => (m.left.skatingRatio + m.right.skatingRatio) / 2;
        const hip = Math.max(f.ik.left.hip.maxDeg, f.ik.right.hip.maxDeg);
        const knee = Math.max(f.ik.left.knee.maxDeg, f.ik.right.knee.maxDeg);
        row =
          `| ${f.feet.left.segments.length}/${f.feet.right.segments.length} | ${fmt(slideB)} -> ${fmt(slideA)} (${fmt(toeB)} -> ${fmt(toeA)}) | ` +
          `${fmt(pen(b))} -> ${fmt(pen(a))} | ${fmt(hip)}/${fmt(knee)} | ${f.ik.left.kneePops + f.ik.right.kneePops} | ` +
          `${skate(b).toFixed(3)} -> ${skate(a).toFixed(3)} |`;
        row = `| ${take} | ${f.frames} @ ${fmt(f.fps, 0)} | ${model} ${row}`;
      } catch (e) {
        row = `| ${take} | | ${model} | error: ${(e as Error).message.split('\n')[0]} | | | | | |`;
      }
      console.log(row);
    }
  }
  for (const model of MODELS) {
    const t = totals[model];
    console.log(
      `\n${model}: ${t.takes} takes, supporting-point slide in contact over all takes ${fmt(t.before)} -> ${fmt(t.after)} cm (${fmt(100 * (1 - t.after / Math.max(t.before, 1e-9)), 0)}% less)`,
    );
  }
}
