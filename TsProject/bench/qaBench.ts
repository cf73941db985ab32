/**
 * Benchmark 4: retarget QA throughput (not a test). The longest real take (Bandai dance, 1901 frames)
 * retargeted onto Xbot is the golden; a copy with 30 degrees of extra forearm twist over 300 frames is the
 * observed clip. Timed: one whole `evaluateClip` (set-up, measures, scoring, runs, causes), median of
 * several runs; reported as bone-frames per second (evaluated bones x frames / time). No peer: the
 * figure is absolute. Falls back to the embedded default sample when the shared data is absent.
 */
import { quat } from 'gl-matrix';
import { type Clip, HumanBodyBones as H, quat64, withHumanoid } from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar } from '../src/io/gltf';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { defaultRigProfile, evaluateClip } from '../src/qa';
import { retargetClip } from '../src/retarget';
import { DEFAULT_ASSETS, fmt, type Row, readBytes, readText, sharedFile, shortName, time } from './harness';

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
  const t = time(
    () => {
      const r = evaluateClip(golden, observed);
      bones = r.series.length;
      result = `${r.result}, ${r.runs.length} runs`;
      return r;
    },
    { warmup: 2, minRuns: 5, maxRuns: 30, budgetMs: 4000 },
  );
  const boneFrames = bones * golden.frameCount;
  const perSec = boneFrames / (t.medianMs / 1000);
  console.log(
    `${fileName} -> ${shortName(avatarPath)}: ${golden.frameCount} frames x ${bones} bones = ${boneFrames} bone-frames; evaluateClip median ${fmt(t.medianMs)} ms (best ${fmt(t.minMs)} ms, ${t.runs} runs): ${fmt(perSec / 1e6, 2)} M bone-frames/s (${result})`,
  );
  return [
    {
      bench: 'QA evaluateClip (bone-frames/s)',
      ours: `${fmt(perSec / 1e6, 2)} M/s`,
      three: '-',
      ratio: null,
      peer: 'none',
    },
  ];
}
