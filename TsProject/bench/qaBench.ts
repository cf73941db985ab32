/**
 * Benchmark 4: retarget QA throughput (not a test). The longest real take (Bandai dance, 1901 frames)
 * retargeted onto Xbot is the golden; a copy with 30 degrees of extra forearm twist over 300 frames is the
 * observed clip. Timed: one whole `evaluateClip` (set-up, measures, scoring, runs, causes), median of
 * several runs; reported as bone-frames per second (evaluated bones x frames / time), median and best.
 * Peer in the same process, timed in alternation with it (harness `timePair`, so both see the same load):
 * core `forwardKinematics` of every frame of both clips, the least any bone-by-bone comparison of two
 * clips must do (read and pose both); the ratio says how many such passes one evaluation costs, and
 * stays comparable when other processes load the machine. Falls back to the embedded default sample
 * when the shared data is absent.
 */
import { quat } from 'gl-matrix';
import { type Clip, forwardKinematics, HumanBodyBones as H, quat64, withHumanoid } from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar } from '../src/io/gltf';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { defaultRigProfile, evaluateClip } from '../src/qa';
import { retargetClip } from '../src/retarget';
import {
  DEFAULT_ASSETS,
  fmt,
  type Row,
  readBytes,
  readText,
  sharedFile,
  shortName,
  timePair,
} from './harness';

export async function runQaBench(): Promise<Row[]> {
  console.log('\n== 4. Retarget QA throughput (evaluateClip, bone-frames per second)');
  const take =
    sharedFile('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh') ??
    `${DEFAULT_ASSETS}/default-walk.bvh`;
  const avatarPath = sharedFile('threejs/Xbot.glb') ?? `${DEFAULT_ASSETS}/default-avatar.glb`;
  const fileName = shortName(take);
  const parsed = parseBvh(readText(take), { fileName });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName });
  const source: Clip = { ...parsed.clip, skeleton: withHumanoid(parsed.clip.skeleton, map.humanoid) };
  const avatar = await readAvatar(readBytes(avatarPath), { fileName: shortName(avatarPath) });
  const golden = retargetClip(source, avatar.skeleton, { groundContact: true }).clip;
  const observed: Clip = { ...golden, rotations: golden.rotations.slice() };
  const axis = defaultRigProfile(avatar.skeleton).twistAxes.RightLowerArm ?? [1, 0, 0];
  const tw = quat.setAxisAngle(quat64(), axis, Math.PI / 6);
  const n = avatar.skeleton.boneCount;
  const b = avatar.skeleton.humanoid[H.RightLowerArm];
  const q = quat64();
  for (let f = 100; f < Math.min(400, golden.frameCount); f++) {
    const o = 4 * (f * n + b);
    quat.multiply(q, observed.rotations.subarray(o, o + 4) as unknown as quat, tw);
    observed.rotations.set(q, o);
  }
  let bones = 0;
  let result = '';
  const ours = () => {
    const r = evaluateClip(golden, observed);
    bones = r.series.length;
    result = `${r.result}, ${r.runs.length} runs`;
    return r;
  };
  const sk = avatar.skeleton;
  const W = new Float64Array(4 * n);
  const P = new Float64Array(3 * n);
  const peer = () => {
    let acc = 0;
    for (const c of [golden, observed])
      for (let f = 0; f < c.frameCount; f++) {
        forwardKinematics(
          sk,
          c.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
          c.translations.subarray(3 * n * f, 3 * n * (f + 1)),
          W,
          P,
        );
        acc += W[4 * (n - 1)];
      }
    return acc;
  };
  const [t, tp] = timePair(ours, peer, { warmup: 2, minRuns: 9, maxRuns: 30, budgetMs: 6000 });
  const boneFrames = bones * golden.frameCount;
  const perSec = boneFrames / (t.medianMs / 1000);
  const bestPerSec = boneFrames / (t.minMs / 1000);
  console.log(
    `${fileName} -> ${shortName(avatarPath)}: ${golden.frameCount} frames x ${bones} bones = ${boneFrames} bone-frames; evaluateClip median ${fmt(t.medianMs, 2)} ms (best ${fmt(t.minMs, 2)} ms, ${t.runs} runs): ${fmt(perSec / 1e6, 2)} M bone-frames/s (best run ${fmt(bestPerSec / 1e6, 2)} M) (${result}); peer forwardKinematics of both clips median ${fmt(tp.medianMs, 2)} ms (best ${fmt(tp.minMs, 2)} ms): evaluateClip = ${fmt(t.medianMs / tp.medianMs, 2)}x the peer's time`,
  );
  return [
    {
      bench: 'QA evaluateClip (bone-frames/s)',
      ours: `${fmt(perSec / 1e6, 2)} M/s`,
      three: `${fmt(boneFrames / (tp.medianMs / 1000) / 1e6, 2)} M/s`,
      ratio: tp.medianMs / t.medianMs,
      bestRatio: tp.minMs / t.minMs,
      peer: 'FK x2',
    },
  ];
}
