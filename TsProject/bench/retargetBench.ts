/**
 * Benchmark 2: retargeting a whole real clip onto an avatar, ours (`retargetClip`, src/retarget)
 * against three.js `SkeletonUtils.retargetClip`, same source take and same target avatar, same process.
 *
 * - Source: a BVH take, read by `parseBvh` (+ `autoMapHumanoid` / `withHumanoid`) for us and by
 *   `BVHLoader.parse` for three.js (the two readers give the same joints and names).
 * - Target: read once with our `readAvatar`; three.js gets a bone tree built from that skeleton
 *   (threeTarget.ts says why).
 * - three.js options that make it do the work we do: every frame of the clip (default fps = frames /
 *   duration, so `numFrames` = the BVH frame count), the hips path (`hip` = the source hips bone,
 *   `scale` = metres per file unit x our hips-height ratio), the bone map from the humanoid maps, and
 *   `localOffsets` from our calibration so its world rotations are ours, and the source root hung under
 *   a group turned by our up-axis alignment (checked below: the outputs agree). Rotations are the work in both; three.js also keeps the target rest translations
 *   (`preserveBonePositions`, default), as we do.
 * - Timed: the whole call, set-up included (our calibration; its mixer and helper), median of several
 *   runs, reported per 1000 frames.
 * Also measured: our per-frame loop alone (`Retargeter.retargetPose`), its time and heap allocation.
 */
import * as THREE from 'three';
import { BVHLoader } from 'three/examples/jsm/loaders/BVHLoader.js';
import * as SkeletonUtils from 'three/examples/jsm/utils/SkeletonUtils.js';
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones,
  readFrame,
  type Skeleton,
  withHumanoid,
} from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar } from '../src/io/gltf';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { chainBetween, type Retargeter, retargetClip, upAxisRotation } from '../src/retarget';
import {
  bytesPerCall,
  DEFAULT_ASSETS,
  fmt,
  now,
  type Row,
  readBytes,
  readText,
  SHARED_DATA,
  sharedFile,
  shortName,
  time,
  timePair,
} from './harness';
import {
  localOffsetsFrom,
  localsFromThreeClip,
  namesFromHumanoid,
  threeTargetFromSkeleton,
} from './threeTarget';

const H = HumanBodyBones;

function sourceFiles(): string[] {
  const files = [
    sharedFile('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh'),
    sharedFile('threejs/pirouette.bvh'),
  ].filter((f): f is string => f !== null);
  if (files.length === 0) {
    console.log(
      `note: shared data not found at ${SHARED_DATA}; retargeting the embedded default-walk.bvh (small, synthetic)`,
    );
    files.push(`${DEFAULT_ASSETS}/default-walk.bvh`);
  }
  return files;
}

function avatarFile(): string {
  const f = sharedFile('threejs/Xbot.glb');
  if (f) return f;
  console.log(`note: shared data not found at ${SHARED_DATA}; target is the embedded default-avatar.glb`);
  return `${DEFAULT_ASSETS}/default-avatar.glb`;
}

/** Our source clip: parseBvh, then the automatic humanoid map put on its skeleton. */
function ourSource(
  text: string,
  fileName: string,
): { clip: Clip; unitScale: number; offsetPositionChannels: boolean } {
  const parsed = parseBvh(text, { fileName });
  const map = autoMapHumanoid(parsed.clip.skeleton, { fileName });
  const skeleton = withHumanoid(parsed.clip.skeleton, map.humanoid);
  // Does a joint from the root down to the hips have position channels AND a non-zero OFFSET? Then
  // BVHLoader (which adds position values to the OFFSET) and parseBvh (position channels replace the
  // OFFSET, see bvh.ts) place the hips differently.
  let offsetPositionChannels = false;
  for (let j = skeleton.humanoid[H.Hips]; j >= 0; j = skeleton.parents[j]) {
    const lj = parsed.layout.joints[j];
    if (lj.channels.some((c) => c.endsWith('position')) && lj.offset.some((v) => v !== 0)) {
      offsetPositionChannels = true;
    }
  }
  return { clip: { ...parsed.clip, skeleton }, unitScale: parsed.unitScale, offsetPositionChannels };
}

/** Angle in degrees between unit quaternions at a[i..] and b[j..]. */
function angleDeg(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): number {
  const d = Math.abs(a[i] * b[j] + a[i + 1] * b[j + 1] + a[i + 2] * b[j + 2] + a[i + 3] * b[j + 3]);
  return (2 * Math.acos(Math.min(1, d)) * 180) / Math.PI;
}

/**
 * Compare the two outputs on frames 0, step, 2 step, ...: world rotation of every target bone that both
 * drive from the same source bone, and the hips world position. Returns the largest differences.
 */
function compareOutputs(
  target: Skeleton,
  ours: Clip,
  three: THREE.AnimationClip,
  sameDriver: number[],
  step: number,
): { bones: number; maxDeg: number; maxHipsM: number; threeFrames: number } {
  const n = target.boneCount;
  const frames = ours.frameCount;
  const t = localsFromThreeClip(target, three, frames);
  const threeFrames = Math.max(...three.tracks.map((tr) => tr.times.length));
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const wr3 = new Float64Array(4 * n);
  const wp3 = new Float64Array(3 * n);
  const hips = target.humanoid[H.Hips];
  let maxDeg = 0;
  let maxHipsM = 0;
  for (let f = 0; f < Math.min(frames, threeFrames); f += step) {
    readFrame(ours, f, lr, lp);
    forwardKinematics(target, lr, lp, wr, wp);
    const rot3 = t.rotations.subarray(f * n * 4, (f + 1) * n * 4);
    const pos3 = Float64Array.from(target.restTranslations);
    if (t.hipsPosition) for (let k = 0; k < 3; k++) pos3[3 * hips + k] = t.hipsPosition[3 * f + k];
    forwardKinematics(target, rot3, pos3, wr3, wp3);
    for (const b of sameDriver) maxDeg = Math.max(maxDeg, angleDeg(wr, 4 * b, wr3, 4 * b));
    const dh = Math.hypot(
      wp[3 * hips] - wp3[3 * hips],
      wp[3 * hips + 1] - wp3[3 * hips + 1],
      wp[3 * hips + 2] - wp3[3 * hips + 2],
    );
    maxHipsM = Math.max(maxHipsM, dh);
  }
  return { bones: sameDriver.length, maxDeg, maxHipsM, threeFrames };
}

/** Target bones strictly inside the hips..neck (or head) and neck..head chains: the ones chain fitting swings. */
function chainInteriors(s: Skeleton): Set<number> {
  const m = s.humanoid;
  const out = new Set<number>();
  const end = m[H.Neck] >= 0 ? m[H.Neck] : m[H.Head];
  for (const b of chainBetween(s, m[H.Hips], end).slice(1, -1)) out.add(b);
  if (m[H.Neck] >= 0) for (const b of chainBetween(s, m[H.Neck], m[H.Head]).slice(1, -1)) out.add(b);
  return out;
}

/** Every frame of `clip` as its own preallocated Float64Array pair (so the measured loop only retargets). */
function framesOf(clip: Clip): { rot: Float64Array[]; pos: Float64Array[] } {
  const n = clip.skeleton.boneCount;
  const rot: Float64Array[] = [];
  const pos: Float64Array[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, f, r, p);
    rot.push(r);
    pos.push(p);
  }
  return { rot, pos };
}

export async function runRetargetBench(): Promise<Row[]> {
  const rows: Row[] = [];
  const avPath = avatarFile();
  const avatar = await readAvatar(readBytes(avPath), { fileName: shortName(avPath) });
  const target = avatar.skeleton;
  const target3 = threeTargetFromSkeleton(target);
  console.log(
    `target ${shortName(avPath)}: ${target.boneCount} bones, ` +
      `${Array.from(target.humanoid).filter((b) => b >= 0).length} humanoid bones mapped`,
  );

  for (const file of sourceFiles()) {
    const name = shortName(file);
    const text = readText(file);
    const { clip, unitScale, offsetPositionChannels } = ourSource(text, name);
    const src = clip.skeleton;
    const frames = clip.frameCount;
    const bvh3 = new BVHLoader().parse(text);
    const { names, sourceOf } = namesFromHumanoid(src, target);
    const missing = Object.values(names).filter((s) => !bvh3.skeleton.bones.some((b) => b.name === s));
    if (missing.length)
      throw new Error(`${name}: three.js skeleton lacks source bones ${missing.join(', ')}`);

    // Ours once, for the calibration that parameterises the three.js run.
    const first = retargetClip(clip, target);
    const r: Retargeter = first.retargeter;
    const info = r.info!;
    const hip = src.names[src.humanoid[H.Hips]];
    const localOffsets = localOffsetsFrom(
      target,
      sourceOf,
      r.sourceReference!.world.rotations,
      r.targetReference!.world.rotations,
    );
    // Our retargeter turns a source that is not Y-up by a fixed rotation A at its roots; give three.js the
    // same turn by hanging the BVH root under a group rotated by A (identity for Y-up sources).
    const A = upAxisRotation(info.sourceUp);
    const holder = new THREE.Group();
    holder.quaternion.set(A[0], A[1], A[2], A[3]);
    holder.add(bvh3.skeleton.bones[0]);
    holder.updateMatrixWorld(true);
    // Hips: ours (scaled mode) is y' = (y - sourceContact) * k + targetContact on the up axis; three.js
    // gives p * scale + hipPosition * scale, so hipPosition = (targetContact - sourceContact * k) / scale.
    const scale = unitScale * info.hipsScale;
    const hipPosition = new THREE.Vector3(
      0,
      (info.targetContactHeight - info.sourceContactHeight * info.hipsScale) / scale,
      0,
    );
    const threeOptions = () =>
      ({ names, hip, scale, hipPosition, localOffsets }) as SkeletonUtils.RetargetClipOptions;
    console.log(
      `${name} -> ${avatar.name}: ${frames} frames, source ${src.boneCount} joints; ` +
        `${Object.keys(names).length} bone pairs for three.js (humanoid maps), ` +
        `${Object.keys(info.drivers).length} driven bones for ours; source up ${info.sourceUp}, ` +
        `reference ${info.sourceReference}, hips scale ${fmt(info.hipsScale, 3)}`,
    );

    // Same work? Compare the outputs where both drive a bone from the same source bone, leaving out the
    // spine/neck chain bones that our chain fitting swings (three.js has no such step).
    const out3 = SkeletonUtils.retargetClip(target3, bvh3.skeleton, bvh3.clip, threeOptions());
    const fitted = chainInteriors(target);
    const sameDriver: number[] = [];
    for (let t = 0; t < target.boneCount; t++)
      if (sourceOf[t] >= 0 && r.drivers[t] === sourceOf[t] && !fitted.has(t)) sameDriver.push(t);
    const cmp = compareOutputs(target, first.clip, out3, sameDriver, Math.max(1, Math.floor(frames / 50)));
    console.log(
      `  outputs: three.js made ${cmp.threeFrames} frames (ours ${frames}); on ${cmp.bones} bones driven alike ` +
        `(${fitted.size} spine/neck chain bones left out), ` +
        `world rotations differ by <= ${fmt(cmp.maxDeg, 3)} deg, hips world position by <= ${fmt(cmp.maxHipsM * 1000, 2)} mm` +
        (offsetPositionChannels
          ? '\n    (hips: this file has position channels on joints with a non-zero OFFSET down to the hips; ' +
            'BVHLoader adds them to the OFFSET, parseBvh lets them replace it, so the hips paths differ by design)'
          : ''),
    );

    // Timing: the two calls alternate (same machine load for both).
    const [to, t3] = timePair(
      () => retargetClip(clip, target),
      () => SkeletonUtils.retargetClip(target3, bvh3.skeleton, bvh3.clip, threeOptions()),
      { warmup: 2, minRuns: 7, maxRuns: 40, budgetMs: 4500 },
    );
    const per1k = (ms: number) => (ms * 1000) / frames;
    console.log(
      `  ours     retargetClip median ${fmt(to.medianMs, 2)} ms (${to.runs} runs, best ${fmt(to.minMs, 2)})  ${fmt(per1k(to.medianMs), 2)} ms / 1000 frames`,
    );
    console.log(
      `  three.js retargetClip median ${fmt(t3.medianMs, 2)} ms (${t3.runs} runs, best ${fmt(t3.minMs, 2)})  ${fmt(per1k(t3.medianMs), 2)} ms / 1000 frames`,
    );
    rows.push({
      bench: `Retarget ${name} -> ${avatar.name}`,
      ours: `${fmt(per1k(to.medianMs), 2)} ms/1k frames`,
      three: `${fmt(per1k(t3.medianMs), 2)} ms/1k frames`,
      ratio: t3.medianMs / to.medianMs,
      bestRatio: t3.minMs / to.minMs,
    });

    // Our per-frame loop alone: time and heap allocation of retargetPose over every frame.
    const { rot, pos } = framesOf(clip);
    const outRot = new Float64Array(4 * target.boneCount);
    const outPos = new Float64Array(3 * target.boneCount);
    const pass = () => {
      for (let f = 0; f < frames; f++) r.retargetPose(rot[f], pos[f], outRot, outPos);
    };
    const tp = time(pass, { warmup: 5, minRuns: 9, maxRuns: 300, budgetMs: 1000 });
    // Heap: one call = one frame, cycling through the clip; batches of 1000 and 10000 calls.
    let next = 0;
    const oneFrame = () => {
      r.retargetPose(rot[next], pos[next], outRot, outPos);
      next = next + 1 === frames ? 0 : next + 1;
    };
    const heap = bytesPerCall(oneFrame, 1000);
    const bytes = heap.bytes;
    console.log(
      `  ours     retargetPose loop median ${fmt(per1k(tp.medianMs), 2)} ms / 1000 frames ` +
        `(${fmt((tp.medianMs * 1000) / frames, 2)} us/frame); heap ${fmt(bytes, 2)} bytes/frame ` +
        `(allocated over 10000 calls minus over 1000, / 9000; ${heap.gcs} GCs ran inside the batches, their frees counted)`,
    );
    rows.push({
      bench: `retargetPose loop ${name}`,
      ours: `${fmt(per1k(tp.medianMs), 2)} ms/1k frames, heap ${fmt(bytes, 2)} B/frame`,
      three: '-',
      ratio: null,
    });
  }
  return rows;
}

/** For --cpu-prof runs: time only the named side for a few seconds. */
export async function profileRetarget(side: 'ours' | 'three'): Promise<void> {
  const avPath = avatarFile();
  const avatar = await readAvatar(readBytes(avPath), { fileName: shortName(avPath) });
  const file = sourceFiles()[0];
  const text = readText(file);
  const { clip } = ourSource(text, shortName(file));
  const t0 = now();
  let runs = 0;
  if (side === 'ours') {
    while (now() - t0 < 5000) {
      retargetClip(clip, avatar.skeleton);
      runs++;
    }
  } else {
    const target3 = threeTargetFromSkeleton(avatar.skeleton);
    const bvh3 = new BVHLoader().parse(text);
    const { names } = namesFromHumanoid(clip.skeleton, avatar.skeleton);
    const hip = clip.skeleton.names[clip.skeleton.humanoid[H.Hips]];
    while (now() - t0 < 5000) {
      SkeletonUtils.retargetClip(target3, bvh3.skeleton, bvh3.clip, { names, hip });
      runs++;
    }
  }
  console.log(`profiled ${side}: ${runs} runs`);
}
