/**
 * `kind qa` on real clips: the Bandai walk and run retargeted onto Xbot with `kind retarget` are the
 * golden clips; copies with a known forearm twist injected (a roll about the bone's own axis, the
 * fault of a swapped roll axis) are the retargeted ones. Single pair (exit codes, qa.json, qa.html),
 * bad input and usage errors, and a batch over a folder with a broken file and unpaired clips, in
 * worker threads (in process through `main`, and through the built `node bin/kind.cjs`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { quat, vec3 } from 'gl-matrix';
import { pairClips, runWorkerPool } from '../src/cli/qa';
import type { QaJob } from '../src/cli/qaWorker';
import { type Clip, HumanBodyBones as H, quat64, readQuat, vec64, writeQuat } from '../src/core';
import { writeBvh } from '../src/io/bvh';
import { loadSource } from '../src/io/node';
import type { QaFile } from '../src/qa-report';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const ROOT = path.resolve(__dirname, '..');

const run = runKind;

const tmpDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'kind-qa-cli-'));

/**
 * A copy of `clip` with `deg` degrees of twist added to humanoid bone `human` on frames `from..to`
 * (inclusive): `q_local * axisAngle(a, deg)`, `a` the rest direction to `child` in the bone's local frame.
 */
function injectTwist(clip: Clip, human: number, child: number, deg: number, from: number, to: number): Clip {
  const sk = clip.skeleton;
  const b = sk.humanoid[human];
  const c = sk.humanoid[child];
  expect(sk.parents[c]).toBe(b);
  const a = vec64(sk.restTranslations[3 * c], sk.restTranslations[3 * c + 1], sk.restTranslations[3 * c + 2]);
  vec3.normalize(a, a);
  const t = quat64();
  quat.setAxisAngle(t, a, (deg * Math.PI) / 180);
  const rotations = new Float32Array(clip.rotations);
  const q = quat64();
  const n = sk.boneCount;
  for (let f = from; f <= to; f++) {
    readQuat(q, rotations, f * n + b);
    quat.multiply(q, q, t);
    writeQuat(rotations, f * n + b, q);
  }
  return { ...clip, rotations };
}

function readQa(dir: string): QaFile {
  return JSON.parse(fs.readFileSync(path.join(dir, 'qa.json'), 'utf8')) as QaFile;
}

/** Retarget a real take onto Xbot with `kind retarget`; returns the written .bvh and .glb. */
async function retargetTake(take: string, dir: string): Promise<{ bvh: string; glb: string }> {
  const r = await run(['retarget', dataPath(take), dataPath('threejs/Xbot.glb'), '-o', dir, '-q']);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const stem = path.basename(take, '.bvh');
  return { bvh: path.join(dir, `${stem}.bvh`), glb: path.join(dir, `${stem}.glb`) };
}

const FAULT = { from: 60, to: 100, deg: 60 };

describeWithData('kind qa on a retargeted walk with an injected forearm twist', () => {
  const work = tmpDir();
  let golden: { bvh: string; glb: string };
  let faulty: string;
  let frames = 0;

  beforeAll(async () => {
    golden = await retargetTake('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh', work);
    const parsed = await loadSource(golden.bvh);
    frames = parsed.clip.frameCount;
    const bad = injectTwist(parsed.clip, H.RightLowerArm, H.RightHand, FAULT.deg, FAULT.from, FAULT.to);
    faulty = path.join(work, 'walk-twisted.bvh');
    fs.writeFileSync(faulty, writeBvh(bad));
  });

  it('golden against itself (BVH against the GLB of the same retarget): Pass, exit 0, both files written', async () => {
    const out = path.join(work, 'clean');
    const r = await run(['qa', golden.bvh, golden.glb, '-o', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/qa '.*': Pass/);
    expect(fs.readdirSync(out).sort()).toEqual(['qa.html', 'qa.json']);
    const q = readQa(out);
    expect(q.result).toBe('Pass');
    expect(q.clips[0].report!.frames).toBe(frames);
    expect(q.clips[0].report!.maxScore).toBe(0);
    expect(q.reviewQueue).toEqual([]);
  });

  it('the twisted copy: Error, exit 3, the run on RightLowerArm twist in the injected frames', async () => {
    const out = path.join(work, 'fault');
    const r = await run(['qa', golden.bvh, faulty, '-o', out]);
    expect(r.err).toBe('');
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/qa 'walk-twisted': Error/);
    expect(r.out).toMatch(/\[Error\] .*RightLowerArm/);
    const q = readQa(out);
    expect(q.tool).toBe('kind qa');
    expect(q.result).toBe('Error');
    expect(q.counts).toEqual({ clips: 1, pass: 0, warning: 0, error: 1, failed: 0 });
    const rep = q.clips[0].report!;
    expect(rep.result).toBe('Error');
    expect(rep.frames).toBe(frames);
    const twist = rep.runs.find((x) => x.bone === 'RightLowerArm' && x.measure === 'twist');
    expect(twist).toBeDefined();
    expect(twist!.level).toBe('Error');
    expect(Math.abs(twist!.startFrame - FAULT.from)).toBeLessThanOrEqual(1);
    expect(Math.abs(twist!.endFrame - FAULT.to)).toBeLessThanOrEqual(1);
    expect(twist!.startSeconds).toBeCloseTo(twist!.startFrame / rep.fps, 3);
    expect(Math.abs(twist!.peak - FAULT.deg)).toBeLessThan(1);
    expect(twist!.message).toMatch(/RightLowerArm/);
    // nothing is flagged outside the fault: every run lies in the injected frames, on the right arm
    for (const x of rep.runs) {
      expect(x.startFrame).toBeGreaterThanOrEqual(FAULT.from - 1);
      expect(x.endFrame).toBeLessThanOrEqual(FAULT.to + 1);
      expect(x.bone).toMatch(/^Right/);
    }
    // the review queue: every run, Error first, then by severity
    expect(q.reviewQueue).toHaveLength(rep.runs.length);
    expect(q.reviewQueue[0].level).toBe('Error');
    expect(q.reviewQueue.map((e) => e.rank)).toEqual(q.reviewQueue.map((_, i) => i + 1));
    for (let i = 1; i < q.reviewQueue.length; i++) {
      const [a, b] = [q.reviewQueue[i - 1], q.reviewQueue[i]];
      if (a.level === b.level) expect(a.severity).toBeGreaterThanOrEqual(b.severity);
      else expect(a.level).toBe('Error');
    }
    // the series: the forearm twist per frame is the injected angle inside, about 0 outside
    const s = rep.series.find((x) => x.bone === 'RightLowerArm')!;
    expect(s.twistDeg).toHaveLength(frames);
    expect(Math.abs(Math.abs(s.twistDeg[80]) - FAULT.deg)).toBeLessThan(1);
    expect(Math.abs(s.twistDeg[20])).toBeLessThan(0.5);
    const html = fs.readFileSync(path.join(out, 'qa.html'), 'utf8');
    expect(html).toMatch(/<canvas class="timeline"/);
    expect(html).toMatch(/<canvas class="heatmap"/);
    expect(html).toMatch(/RightLowerArm/);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/); // self-contained
    expect(html).toMatch(/uPlot/);
  });

  it('a glTF golden (--golden-clip names its animation) against the twisted BVH finds the same run', async () => {
    const out = path.join(work, 'gltf');
    const r = await run([
      'qa',
      golden.glb,
      faulty,
      '-o',
      out,
      '-q',
      '--golden-clip',
      'dataset-1_walk_normal_001',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(3);
    const run2 = readQa(out).clips[0].report!.runs.find(
      (x) => x.bone === 'RightLowerArm' && x.measure === 'twist',
    );
    expect(run2 && Math.abs(run2.startFrame - FAULT.from)).toBeLessThanOrEqual(1);
    const bad = await run(['qa', golden.glb, faulty, '-o', tmpDir(), '--golden-clip', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/nope/);
  });

  it('an existing report is replaced whole, and no temporary files stay', async () => {
    const out = path.join(work, 'fault');
    const r = await run(['qa', golden.bvh, golden.glb, '-o', out, '-q']);
    expect(r.code).toBe(0);
    expect(readQa(out).result).toBe('Pass');
    expect(fs.readdirSync(out).sort()).toEqual(['qa.html', 'qa.json']);
  });

  it('bad input: exit 1 with one line naming the file (and line or field); nothing written', async () => {
    const out = path.join(work, 'bad');
    const missing = await run(['qa', path.join(work, 'nope.bvh'), faulty, '-o', out]);
    expect(missing.code).toBe(1);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    expect(missing.err).toMatch(/nope\.bvh: no such file/);

    const cut = path.join(work, 'cut.bvh');
    const text = fs.readFileSync(faulty, 'utf8');
    fs.writeFileSync(cut, text.slice(0, Math.floor(text.length * 0.6)));
    const broken = await run(['qa', golden.bvh, cut, '-o', out]);
    expect(broken.code).toBe(1);
    expect(broken.err.trim().split('\n')).toHaveLength(1);
    expect(broken.err).toMatch(/cut\.bvh/);

    const profile = path.join(work, 'profile.json');
    fs.writeFileSync(profile, '{\n  "schemaVersion": 1,\n  "weights": { "RightLowerArm": "heavy" }\n}\n');
    const badProfile = await run(['qa', golden.bvh, faulty, '-o', out, '--profile', profile]);
    expect(badProfile.code).toBe(1);
    expect(badProfile.err.trim().split('\n')).toHaveLength(1);
    expect(badProfile.err).toMatch(/profile\.json:\d+:\d+/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('a --profile file in the output folder named qa.json is not overwritten by the report', async () => {
    const out = path.join(work, 'profile-in-out');
    fs.mkdirSync(out);
    const profile = path.join(out, 'qa.json');
    fs.writeFileSync(profile, '{ "schemaVersion": 1 }\n');
    const r = await run(['qa', golden.bvh, golden.glb, '-o', out, '--profile', profile]);
    expect(r.code).toBe(1);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(/qa\.json: would overwrite the --profile file /);
    expect(fs.readFileSync(profile, 'utf8')).toBe('{ "schemaVersion": 1 }\n');
    expect(fs.readdirSync(out)).toEqual(['qa.json']);
  });

  it('usage errors exit 2', async () => {
    expect((await run(['qa'])).code).toBe(2);
    expect((await run(['qa', golden.bvh])).code).toBe(2);
    const lambda = await run(['qa', golden.bvh, faulty, '--lambda', 'abc']);
    expect(lambda.code).toBe(2);
    expect(lambda.err).toMatch(/--lambda: 'abc' is not a number/);
    expect((await run(['qa', golden.bvh, faulty, '--sampling', 'frames'])).code).toBe(2);
    const jobs = await run(['qa', golden.bvh, faulty, '--jobs', '2']);
    expect(jobs.code).toBe(2);
    expect(jobs.err).toMatch(/--jobs applies to --batch/);
    const help = await run(['qa', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/--batch/);
  });
});

describeWithData('kind qa --batch over folders (worker threads)', () => {
  const work = tmpDir();
  const gDir = path.join(work, 'golden');
  const rDir = path.join(work, 'retargeted');

  beforeAll(async () => {
    // the worker bundle (and the command) as `npm run build` makes them
    execFileSync(process.execPath, [path.resolve(ROOT, '../tools/build.mjs'), 'cli'], { stdio: 'inherit' });
    const walk = await retargetTake(
      'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh',
      path.join(work, 'rt'),
    );
    const runClip = await retargetTake(
      'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh',
      path.join(work, 'rt'),
    );
    fs.mkdirSync(path.join(gDir, 'takes'), { recursive: true });
    fs.mkdirSync(path.join(rDir, 'takes'), { recursive: true });
    fs.mkdirSync(path.join(rDir, 'extra'), { recursive: true });
    // walk: a forearm twist; run: clean (its GLB against the golden BVH); broken: cut in half;
    // golden-only and retargeted-only clips; and a summary.json that is not a clip
    fs.copyFileSync(walk.bvh, path.join(gDir, 'takes', 'walk.bvh'));
    const parsed = await loadSource(walk.bvh);
    fs.writeFileSync(
      path.join(rDir, 'takes', 'walk.bvh'),
      writeBvh(injectTwist(parsed.clip, H.LeftLowerArm, H.LeftHand, -50, 30, 70)),
    );
    fs.copyFileSync(runClip.bvh, path.join(gDir, 'run.bvh'));
    fs.copyFileSync(runClip.glb, path.join(rDir, 'run.glb'));
    fs.copyFileSync(runClip.bvh, path.join(gDir, 'broken.bvh'));
    const t = fs.readFileSync(runClip.bvh, 'utf8');
    fs.writeFileSync(path.join(rDir, 'broken.bvh'), t.slice(0, t.length >> 1));
    fs.copyFileSync(runClip.bvh, path.join(gDir, 'only-golden.bvh'));
    fs.copyFileSync(runClip.bvh, path.join(rDir, 'extra', 'only-retargeted.bvh'));
    fs.writeFileSync(path.join(rDir, 'summary.json'), '{}');
  });

  it('pairs by relative path and reports the unpaired clips', () => {
    const p = pairClips(gDir, rDir);
    expect(p.pairs.map((x) => x.name)).toEqual(['broken', 'run', 'takes/walk']);
    expect(p.unpaired).toEqual({ golden: ['only-golden.bvh'], retargeted: ['extra/only-retargeted.bvh'] });
  });

  function checkBatch(q: QaFile): void {
    expect(q.mode).toBe('batch');
    expect(q.result).toBe('Error');
    expect(q.counts).toEqual({ clips: 3, pass: 1, warning: 0, error: 1, failed: 1 });
    const byName = Object.fromEntries(q.clips.map((c) => [c.name, c]));
    expect(byName.broken.result).toBe('Failed');
    expect(byName.broken.error).toMatch(/broken\.bvh/);
    expect(byName.run.result).toBe('Pass');
    expect(byName['takes/walk'].result).toBe('Error');
    expect(q.unpaired.golden).toEqual(['only-golden.bvh']);
    expect(q.unpaired.retargeted).toEqual(['extra/only-retargeted.bvh']);
    // the review queue holds every run of the walk, worst first, pointing at its clip
    const walkRuns = byName['takes/walk'].report!.runs;
    expect(q.reviewQueue).toHaveLength(walkRuns.length);
    expect(q.reviewQueue[0].clip).toBe('takes/walk');
    expect(q.reviewQueue[0].level).toBe('Error');
    expect(q.clips[q.reviewQueue[0].clipIndex].name).toBe('takes/walk');
    const twist = q.reviewQueue.find((e) => e.bone === 'LeftLowerArm' && e.measure === 'twist');
    expect(twist).toBeDefined();
    expect(Math.abs(twist!.startFrame - 30)).toBeLessThanOrEqual(1);
    expect(Math.abs(twist!.endFrame - 70)).toBeLessThanOrEqual(1);
    for (let i = 1; i < q.reviewQueue.length; i++) {
      const [a, b] = [q.reviewQueue[i - 1], q.reviewQueue[i]];
      if (a.level === b.level) expect(a.severity).toBeGreaterThanOrEqual(b.severity);
      else expect(a.level).toBe('Error');
    }
  }

  it('in process: exit 3, a failed entry for the broken file, the review queue across clips', async () => {
    const out = path.join(work, 'out');
    const r = await run(['qa', '--batch', gDir, rDir, '-o', out, '--jobs', '2']);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/qa batch: Error \(3 clips: 1 Pass, 0 Warning, 1 Error, 1 failed/);
    expect(r.out).toMatch(/failed: broken: .*broken\.bvh/);
    expect(r.out).toMatch(/unpaired: golden only-golden\.bvh, retargeted extra\/only-retargeted\.bvh/);
    const q = readQa(out);
    checkBatch(q);
    expect(q.notes.join('\n')).not.toMatch(/worker bundle .* was not found/);
    const html = fs.readFileSync(path.join(out, 'qa.html'), 'utf8');
    expect(html.indexOf('Review queue')).toBeLessThan(html.indexOf('id="clip-1"'));
    expect(html).toMatch(/href="#clip-3"/);
  });

  it('through the built command (node bin/kind.cjs): the same report', () => {
    const out = path.join(work, 'out-bin');
    const p = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin/kind.cjs'), 'qa', '--batch', gDir, rDir, '-o', out],
      {
        encoding: 'utf8',
      },
    );
    expect(p.stderr).toBe('');
    expect(p.status).toBe(3);
    checkBatch(readQa(out));
  });

  it('an empty batch folder: Failed (no pair), exit 1; a missing folder: exit 1 naming it', async () => {
    const empty = path.join(work, 'empty');
    fs.mkdirSync(empty);
    const out = path.join(work, 'out-empty');
    const r = await run(['qa', '--batch', empty, empty, '-o', out, '-q']);
    expect(r.code).toBe(1);
    expect(readQa(out).counts.clips).toBe(0);
    expect(readQa(out).result).toBe('Failed');
    const m = await run(['qa', '--batch', path.join(work, 'nowhere'), rDir, '-o', out]);
    expect(m.code).toBe(1);
    expect(m.err).toMatch(/nowhere: no such file or folder/);
  });
});

describe('the worker pool', () => {
  it('a worker that dies fails only its job, is replaced, and results come back in job order', async () => {
    const dir = tmpDir();
    const worker = path.join(dir, 'fake-worker.cjs');
    // a stand-in worker: answers Pass, except for 'crash' (exits) and 'throw' (uncaught error)
    fs.writeFileSync(
      worker,
      `const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, job }) => {
  if (job.name === 'crash') process.exit(7);
  if (job.name === 'throw') setTimeout(() => { throw new Error('boom'); });
  else parentPort.postMessage({ id, entry: { name: job.name, golden: job.golden, retargeted: job.retargeted, result: 'Pass', severity: 0 } });
});`,
    );
    const names = ['a', 'crash', 'b', 'throw', 'c', 'd', 'e'];
    const jobs: QaJob[] = names.map((name) => ({ name, golden: `g/${name}`, retargeted: `r/${name}` }));
    const seen: string[] = [];
    const out = await runWorkerPool(jobs, 2, worker, (e, done) => seen.push(`${done}:${e.name}`));
    expect(out.map((e) => e.name)).toEqual(names);
    expect(out.map((e) => e.result)).toEqual(['Pass', 'Failed', 'Pass', 'Failed', 'Pass', 'Pass', 'Pass']);
    expect(out[1].error).toMatch(/r\/crash: the QA worker stopped \(exit code 7\)/);
    expect(out[3].error).toMatch(/r\/throw: the QA worker stopped \(boom\)/);
    expect(seen).toHaveLength(names.length);
  });
});
