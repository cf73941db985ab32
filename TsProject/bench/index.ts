/**
 * KindRetargeting benchmarks (not tests): each compares our code with a peer running in the same process
 * (three.js on the same real data, the plain retargeter, or the same pipeline without load), and prints
 * ratios; nothing asserts wall-clock times. Rates and latencies the tests must not assert live here.
 *
 * Build and run: `npm run bench` in TsProject (esbuild bundles this file to dist/bench.cjs, run with
 * `node --expose-gc`). Arguments: `parse`, `retarget`, `hub` (`hub-profile`: only its folded --jitless profile), `qa`, `live`, `cleanup`, `contact`, `puppet-pose`, `puppet-lbs` or `mocap` (the mocap beside Kalidokit and its speed: bench/mocapBench.ts) runs one benchmark only
 * (`npm run bench -- live`);
 * `puerts-alloc [--frames N ...]` measures the C# garbage per avatar-frame at the PuerTS boundary under Mono instead
 * (tools/puerts-alloc.mjs: the real PuerTS C# runtime, KindResultBuffer against PuerTS's own getter);
 * `filter-sweep` runs the source filter's parameter sweep instead (bench/filterSweep.ts; the table in docs/live.md);
 * `cleanup-table` prints docs/cleanup.md's per-take table of `kind cleanup` instead (bench/cleanupTable.ts);
 * `cleanup-steps [--json f] [--blend-seconds s] [--rate own|25|both]` runs the outside check of the cleanup's
 * leg motion (bench/cleanupSteps.ts: per leg joint and frame, how much more the cleaned take moves than the source);
 * `support-slide [rule|learned] [height speed]` checks the slide of the supporting point (heel or toe) before and after
 * `kind cleanup` from outside, over every BVH of the shared data (bench/supportSlide.ts);
 * `cleanup-judge [--json FILE] [...]` judges `kind cleanup` from outside instead (bench/cleanupJudge.ts: the
 * built command over every shared take and degraded copies, measured with test/helpers/judge);
 * `--profile retarget-ours|retarget-three|parse-ours|parse-three [take index]` loops one side for
 * ~5 s on the first (or given) take, for `node --cpu-prof dist/bench.cjs --profile ...`.
 * Data: /work/shared/data (or $KIND_SHARED_DATA); falls back to the embedded default sample with a note.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import { parseBvh } from '../src/io/bvh';
import { runCleanupBench } from './cleanupBench';
import { runCleanupJudge } from './cleanupJudge';
import { runCleanupSteps } from './cleanupSteps';
import { runCleanupTable } from './cleanupTable';
import { runContactBench } from './contactBench';
import { runFilterSweep } from './filterSweep';
import { now, printTable, type Row, readText, shortName } from './harness';
import { hubChild, hubProfileChild, runHubBench } from './hubBench';
import { runHubProfile } from './hubProfile';
import { runLiveBench } from './liveBench';
import { runMocapBench } from './mocapBench';
import { parseBenchFiles, runParseBench } from './parseBench';
import { runPuppetBench } from './puppetBench';
import { runPuppetPoseBench } from './puppetPoseBench';
import { runQaBench } from './qaBench';
import { profileRetarget, runRetargetBench } from './retargetBench';
import { runSupportSlide } from './supportSlide';

function profileParse(side: 'ours' | 'three', which: number): void {
  const files = parseBenchFiles();
  const file = files[Math.min(which, files.length - 1)];
  const text = readText(file);
  const fileName = shortName(file);
  const t0 = now();
  let runs = 0;
  while (now() - t0 < 5000) {
    if (side === 'ours') parseBvh(text, { fileName });
    else new BVHLoader().parse(text);
    runs++;
  }
  console.log(`profiled parse ${side}: ${runs} runs`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === 'hub-child') {
    await hubChild();
    return;
  }
  if (args[0] === 'hub-profile-child') {
    await hubProfileChild(Number(args[1] ?? 3000));
    return;
  }
  if (args[0] === 'hub-profile') {
    // only the folded --jitless profile of updateLive (also printed at the end of `hub`)
    runHubProfile(Number(args[1] ?? 3000));
    return;
  }
  if (args[0] === 'puerts-alloc') {
    // C# garbage per avatar-frame at the PuerTS boundary, under Mono on the real PuerTS C# runtime
    // (tools/puerts-alloc.mjs; the ratio is against PuerTS's own ArrayBuffer getter in the same process).
    const r = spawnSync(
      process.execPath,
      [path.resolve(__dirname, '../../tools/puerts-alloc.mjs'), ...args.slice(1)],
      { stdio: 'inherit' },
    );
    process.exitCode = r.status ?? 1;
    return;
  }
  if (args[0] === 'filter-sweep') {
    await runFilterSweep();
    return;
  }
  if (args[0] === 'cleanup-steps') {
    await runCleanupSteps(args.slice(1));
    return;
  }
  if (args[0] === 'cleanup-table') {
    await runCleanupTable();
    return;
  }
  if (args[0] === 'support-slide') {
    const num = (x: string | undefined) =>
      x !== undefined && Number.isFinite(Number(x)) ? Number(x) : undefined;
    await runSupportSlide(args[1] === 'learned' ? 'learned' : 'rule', {
      heightTol: num(args[2]),
      speedTol: num(args[3]),
    });
    return;
  }
  if (args[0] === 'cleanup-judge') {
    await runCleanupJudge(args.slice(1));
    return;
  }
  const pi = args.indexOf('--profile');
  if (pi >= 0) {
    const what = args[pi + 1];
    if (what === 'parse-ours' || what === 'parse-three')
      profileParse(what === 'parse-ours' ? 'ours' : 'three', Number(args[pi + 2] ?? 0) || 0);
    else if (what === 'retarget-ours' || what === 'retarget-three')
      await profileRetarget(what === 'retarget-ours' ? 'ours' : 'three');
    else
      throw new Error(`--profile ${what}: expected parse-ours, parse-three, retarget-ours or retarget-three`);
    return;
  }
  const only = args.find(
    (a) =>
      a === 'parse' ||
      a === 'retarget' ||
      a === 'hub' ||
      a === 'qa' ||
      a === 'live' ||
      a === 'cleanup' ||
      a === 'contact' ||
      a === 'puppet-pose' ||
      a === 'puppet-lbs' ||
      a === 'mocap',
  );
  if (!(globalThis as { gc?: unknown }).gc) {
    console.log('note: run with node --expose-gc for clean heap figures (npm run bench does)');
  }
  console.log(`node ${process.version}, ${process.arch}`);
  const rows: Row[] = [];
  const t0 = now();
  if (!only || only === 'parse') {
    console.log('\n== 1. BVH parse throughput (ours parseBvh vs three.js BVHLoader.parse)');
    rows.push(...runParseBench());
    console.log(`(benchmark 1 took ${((now() - t0) / 1000).toFixed(1)} s)`);
  }
  const t1 = now();
  if (!only || only === 'retarget') {
    console.log('\n== 2. Clip retargeting (ours retargetClip vs three.js SkeletonUtils.retargetClip)');
    rows.push(...(await runRetargetBench()));
    console.log(`(benchmark 2 took ${((now() - t1) / 1000).toFixed(1)} s)`);
  }
  const t2 = now();
  if (!only || only === 'hub') {
    console.log('\n== 3. Live hub update per avatar-frame (peer: the plain retargeter in the same process)');
    rows.push(...(await runHubBench()));
    console.log(`(benchmark 3 took ${((now() - t2) / 1000).toFixed(1)} s)`);
  }
  if (!only || only === 'qa') rows.push(...(await runQaBench()));
  if (!only || only === 'live') rows.push(...(await runLiveBench()));
  if (!only || only === 'cleanup') rows.push(...(await runCleanupBench()));
  if (!only || only === 'contact') rows.push(...(await runContactBench()));
  if (!only || only === 'puppet-pose') rows.push(...(await runPuppetPoseBench()));
  if (!only || only === 'puppet-lbs') rows.push(...runPuppetBench());
  if (!only || only === 'mocap') rows.push(...(await runMocapBench()));
  console.log(
    "\n== Summary (ratio = our speed / the peer's speed (three.js, or onnxruntime-web for contact), from the medians; best runs: from the fastest run of each)",
  );
  printTable(rows);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
