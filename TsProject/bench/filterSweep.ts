/**
 * The source filter's parameter sweep (`npm run bench -- filter-sweep`; not part of the default bench
 * run): every real take of ../shared/data (test/helpers/data.ts's list), resampled to 120 Hz (Motive's
 * usual rate), with sensor-like noise (bench/filterEval.ts: 3 mm and 0.3 degrees of white noise per
 * bone, single-frame spikes of 30 mm and 5 degrees on 1% of frames) retargeted onto Xbot by a live hub
 * (IK on all four limbs); per parameter set, the avatar's hands and feet: jitter (mean acceleration),
 * RMS error and lag (velocity cross-correlation delay) against the clean take, averaged over the takes.
 * Prints a Markdown table (the "Source filter" table of docs/live.md is this output).
 */
import * as path from 'node:path';
import { loadAvatar, loadSource } from '../src/io/node';
import { sourceFilterOff } from '../src/rig';
import {
  addNoise,
  clipFrames,
  DEFAULT_NOISE,
  type EffectorMeasures,
  measure,
  resample,
  runEffectors,
  uniformFilter,
} from './filterEval';
import { sharedFile } from './harness';

const TAKES = [
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
  'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh',
  'threejs/pirouette.bvh',
  'animated-drawings/cmu1/jumping_jacks.bvh',
  'animated-drawings/fair1/jumping.bvh',
  'animated-drawings/rokoko/jesse_dance.bvh',
];

const FPS = 120;
const SECONDS = 20;
/** The lag the defaults may add at the avatar's hands and feet, ms (a little over one frame at 120 Hz). */
const LAG_BUDGET_MS = 10;

export async function runFilterSweep(): Promise<void> {
  const xbot = sharedFile('threejs/Xbot.glb');
  if (!xbot) {
    console.log('filter sweep: the shared data (threejs/Xbot.glb) is not here; nothing to do');
    return;
  }
  const avatar = await loadAvatar(xbot);
  const takes = [];
  for (const t of TAKES) {
    const f = sharedFile(t);
    if (!f) continue;
    const src = await loadSource(f);
    const clean = clipFrames(resample(src.clip, FPS, SECONDS));
    const noisy = addNoise(clean, DEFAULT_NOISE);
    const cal = { rotations: clean.rotations[0], translations: clean.translations[0] };
    const cleanRun = runEffectors(clean, avatar.skeleton, sourceFilterOff(), cal);
    takes.push({ name: path.basename(t), clean, noisy, cal, cleanRun });
  }
  const sets: { label: string; filter: ReturnType<typeof uniformFilter> }[] = [
    { label: 'off (raw)', filter: sourceFilterOff() },
  ];
  for (const fc of [0.5, 1, 2, 4, 8, 16]) {
    for (const beta of [0, 2, 8, 16, 32])
      sets.push({ label: `${fc} / ${beta} / 1`, filter: uniformFilter(fc, beta, 1) });
  }
  for (const dc of [0.5, 2, 4])
    for (const [fc, beta] of [
      [2, 8],
      [4, 8],
      [4, 16],
    ])
      sets.push({ label: `${fc} / ${beta} / ${dc}`, filter: uniformFilter(fc, beta, dc) });
  const avg = (ms: EffectorMeasures[]): EffectorMeasures => {
    const o = { ...ms[0] };
    for (const k of Object.keys(o) as (keyof EffectorMeasures)[])
      o[k] = ms.reduce((s, m) => s + m[k], 0) / ms.length;
    return o;
  };
  const cleanM = avg(takes.map((t) => measure(t.cleanRun, t.cleanRun, t.clean.dt)));
  console.log(
    `takes: ${takes.map((t) => `${t.name} (${t.clean.rotations.length} frames)`).join(', ')}; noise ${JSON.stringify(DEFAULT_NOISE)}`,
  );
  console.log(
    `clean take's own motion: jitter hands ${cleanM.jitterHands.toFixed(2)}, feet ${cleanM.jitterFeet.toFixed(2)} m/s^2\n`,
  );
  console.log(
    '| minCutoff / beta / dCutoff | hands jitter m/s² | hands error mm | hands lag ms | feet jitter m/s² | feet error mm | feet lag ms |',
  );
  console.log('|---|---|---|---|---|---|---|');
  let bestHands = { label: '', jitter: Number.POSITIVE_INFINITY };
  let bestFeet = { label: '', jitter: Number.POSITIVE_INFINITY };
  for (const s of sets) {
    const m = avg(
      takes.map((t) =>
        measure(runEffectors(t.noisy, avatar.skeleton, s.filter, t.cal), t.cleanRun, t.clean.dt),
      ),
    );
    console.log(
      `| ${s.label} | ${m.jitterHands.toFixed(2)} | ${m.errorHands.toFixed(1)} | ${m.lagHands.toFixed(1)} | ${m.jitterFeet.toFixed(2)} | ${m.errorFeet.toFixed(1)} | ${m.lagFeet.toFixed(1)} |`,
    );
    if (m.lagHands <= LAG_BUDGET_MS && m.jitterHands < bestHands.jitter)
      bestHands = { label: s.label, jitter: m.jitterHands };
    if (m.lagFeet <= LAG_BUDGET_MS && m.jitterFeet < bestFeet.jitter)
      bestFeet = { label: s.label, jitter: m.jitterFeet };
  }
  console.log(
    `\nleast jitter within ${LAG_BUDGET_MS} ms of lag: hands ${bestHands.label}, feet ${bestFeet.label} (minCutoff / beta / dCutoff)`,
  );
}
