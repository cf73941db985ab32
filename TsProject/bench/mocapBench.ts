/**
 * Mocap benchmark (issue 23; `npm run bench -- mocap`): first the comparison beside Kalidokit (1.1.5, npm
 * `kalidokit`, run in this process on the same landmarks and put on the same skeleton:
 * test/helpers/kalidokitPose.ts, test/helpers/mocapCompare.ts; docs/mocap.md's tables), then the speed of
 * landmarks -> avatar pose per frame, microseconds, on the same frames:
 * - ours: `MocapSolver.step` alone; step + `Retargeter.retargetPose` onto the default avatar (the live page's
 *   path, hips 'room'); step + `RetargetHub.update` (IK on four limbs) onto the default avatar; heap bytes per
 *   frame of the last;
 * - Kalidokit: `Pose.solve` alone (Euler angles per bone; putting them on an avatar is extra);
 * - beside them the hub's own figure (bench/hubBench.ts: default walk -> default avatar, IK, fingers, props).
 * Frames: the real MediaPipe squat (65 frames) and the Bandai dance turned into landmarks with 1 cm noise
 * (150 frames), each looped. Nothing here is asserted: rates belong in benchmarks, not tests.
 */
import { loadAvatar, loadLandmarkRecording } from '../src/io/node';
import { calibrateMocap, MocapSolver } from '../src/mocap';
import type { LandmarkRecording } from '../src/puppet';
import { Retargeter } from '../src/retarget';
import { RetargetHub } from '../src/rig';
import { kalidokitPose, kalidokitSolve, oursPose, oursThroughHubPose } from '../test/helpers/kalidokitPose';
import { compareSolvers, comparisonTables } from '../test/helpers/mocapCompare';
import { loadTake, synthesize } from '../test/helpers/mocapJudge';
import { bytesPerCall, DEFAULT_ASSETS, fmt, type Row, sharedFile } from './harness';
import { cases, measure, usPerFrame } from './hubBench';

const TAKES = [
  { rel: 'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh', every: 3, max: 150 },
  { rel: 'cmu-locomotion/other/10_01.bvh', every: 2, max: 100, unitScale: 0.0254 },
  { rel: 'cmu-locomotion/iclone-ccbase/002_06.bvh', every: 8, max: 140 },
];

function squat(): LandmarkRecording | null {
  const f = sharedFile('pose-landmarks/pose_squats.full.json');
  return f ? loadLandmarkRecording(f, { imageSize: { width: 720, height: 1280 }, fps: 5 }).recording : null;
}

interface Speed {
  step: number;
  page: number;
  hub: number;
  kalidokit: number;
  bytes: number;
}

async function speed(rec: LandmarkRecording, budgetMs: number): Promise<Speed> {
  const frames = rec.frames;
  const count = frames.length;
  const avatar = await loadAvatar(`${DEFAULT_ASSETS}/default-avatar.glb`);
  const solver = new MocapSolver(calibrateMocap(frames, { source: rec.source ?? 'recording' }));
  const page = new Retargeter(solver.skeleton, avatar.skeleton, { hipsMode: 'room' });
  page.calibrate();
  const hub = new RetargetHub(solver.skeleton, avatar.skeleton, { ik: 'on', hipsMode: 'room' });
  hub.calibrate();
  const n = avatar.skeleton.boneCount;
  const or = new Float64Array(4 * n);
  const op = new Float64Array(3 * n);
  // each loop restarts the solver so its hold / fill timers see increasing time stamps
  const stepOnly = usPerFrame(
    count,
    (f) => {
      if (f === 0) solver.reset();
      solver.step(frames[f], rec.image);
    },
    budgetMs,
  );
  const withPage = usPerFrame(
    count,
    (f) => {
      if (f === 0) solver.reset();
      solver.step(frames[f], rec.image);
      page.retargetPose(solver.localRotations, solver.localTranslations, or, op);
    },
    budgetMs,
  );
  const withHub = usPerFrame(
    count,
    (f) => {
      if (f === 0) solver.reset();
      solver.step(frames[f], rec.image);
      hub.update(solver.localRotations, solver.localTranslations, 1 / 30);
    },
    budgetMs,
  );
  const kalidokit = usPerFrame(
    count,
    (f) => kalidokitSolve(frames[f].worldLandmarks ?? [], frames[f].landmarks ?? [], rec.image),
    budgetMs,
  );
  let f = 0;
  const bytes = bytesPerCall(() => {
    if (f === 0) solver.reset();
    solver.step(frames[f], rec.image);
    hub.update(solver.localRotations, solver.localTranslations, 1 / 30);
    f = f + 1 === count ? 0 : f + 1;
  }, 2000).bytes;
  return { step: stepOnly, page: withPage, hub: withHub, kalidokit, bytes };
}

export async function runMocapBench(): Promise<Row[]> {
  console.log('\n== Mocap: ours beside Kalidokit 1.1.5 (same landmarks, same skeleton)');
  const sq = squat();
  const paths = TAKES.map((t) => ({ ...t, file: sharedFile(t.rel) }));
  if (paths.every((t) => t.file) && sq) {
    const c = compareSolvers({
      takes: paths.map((t) => ({
        file: t.file as string,
        every: t.every,
        max: t.max,
        unitScale: t.unitScale,
      })),
      squat: sq,
      solvers: [
        { name: 'ours', solve: oursPose() },
        { name: 'ours, One-Euro 4 Hz (--smooth 4)', solve: oursPose({ smoothMinCutoff: 4, smoothBeta: 3 }) },
        { name: 'ours through the hub (contact pin)', solve: oursThroughHubPose() },
        { name: 'Kalidokit (demo dampeners)', solve: kalidokitPose() },
        { name: 'Kalidokit (no dampeners)', solve: kalidokitPose({ dampen: 'none' }) },
      ],
    });
    console.log(comparisonTables(c));
  } else console.log('(shared data absent: the comparison needs the judge takes and the real squat)');

  console.log('\n== Mocap speed: landmarks -> avatar pose per frame (default avatar), us/frame');
  const rows: Row[] = [];
  const inputs: { label: string; rec: LandmarkRecording }[] = [];
  if (sq) inputs.push({ label: `real squat (${sq.frames.length} frames)`, rec: sq });
  const dance = paths[0].file;
  if (dance) {
    const take = loadTake(dance, TAKES[0]);
    inputs.push({
      label: `Bandai dance, 1 cm noise (${take.frames.length} frames)`,
      rec: synthesize(take, { noiseM: 0.01, seed: 7 }).rec,
    });
  }
  if (inputs.length === 0) console.log('(shared data absent: no landmark frames to time)');
  for (const { label, rec } of inputs) {
    const s = await speed(rec, 1500);
    console.log(`${label}:`);
    console.log(
      `  ours: solver.step ${fmt(s.step, 2)}; + retargetPose (the page) ${fmt(s.page, 2)}; + hub.update (IK on) ${fmt(s.hub, 2)} us/frame; heap ${fmt(s.bytes, 1)} B/frame (step + hub)`,
    );
    console.log(
      `  Kalidokit: Pose.solve ${fmt(s.kalidokit, 2)} us/frame (Euler angles only, not yet on an avatar)`,
    );
    rows.push({
      bench: `Mocap landmarks -> avatar, ${label}`,
      ours: `${fmt(s.hub, 2)} us/frame (step ${fmt(s.step, 2)})`,
      three: `Pose.solve ${fmt(s.kalidokit, 2)} us`,
      peer: 'Kalidokit',
      ratio: s.kalidokit / s.hub,
    });
  }
  const own = cases()[0];
  const m = await measure(own, 1500);
  console.log(
    `the hub's own figure (${own.label}, IK, fingers, 2 props): ${fmt(m.hub, 2)} us/frame, retargetPose ${fmt(m.peer, 2)} us/frame`,
  );
  return rows;
}
