/**
 * Benchmark: the puppet's pose side per frame (not a test). PosePipeline.step (landmarks -> 21 joints ->
 * confidence filter -> occlusion fill) over the real squat recording (pose_squats.full.json + _3d, 65 frames,
 * run in a loop with time stamps continuing), beside its first stage alone (landmarksToJoints, the peer): the
 * ratio shows what smoothing and fill cost on top of reading the landmarks. Also heap bytes per step.
 * Fallback without the shared data: a synthetic standing pose swaying (noted).
 */
import {
  createFrameInfo,
  createJointSet,
  type LandmarkRecording,
  landmarksToJoints,
  type PoseFrame,
  PosePipeline,
  parseTfjsReference,
  resolvePoseOptions,
} from '../src/puppet';
import { bytesPerCall, fmt, type Row, readText, sharedFile, timePair } from './harness';

function recording(): LandmarkRecording {
  const px = sharedFile('pose-landmarks/pose_squats.full.json');
  const world = sharedFile('pose-landmarks/pose_squats_3d.full.json');
  if (px && world)
    return parseTfjsReference(readText(px), readText(world), 'pose_squats', { width: 720, height: 1280 }, 5);
  console.log('(shared data absent: a synthetic swaying pose instead of the squat recording)');
  const frames: PoseFrame[] = [];
  for (let i = 0; i < 65; i++)
    frames.push({
      timestampMs: i * 33,
      landmarks: Array.from({ length: 33 }, (_, k) => ({
        x: 0.5 + 0.01 * k * Math.cos(k + i / 10),
        y: 0.2 + 0.02 * k,
        z: 0,
        visibility: 0.9,
      })),
    });
  return { image: { width: 1280, height: 720 }, frames };
}

export async function runPuppetPoseBench(): Promise<Row[]> {
  console.log('\n== Puppet pose side per frame (PosePipeline.step vs its first stage landmarksToJoints)');
  const rec = recording();
  const frames = rec.frames;
  const p = new PosePipeline({}, rec.image);
  const out = createJointSet();
  const raw = createJointSet();
  const info = createFrameInfo();
  const o = resolvePoseOptions();
  const LOOPS = 200; // frames per timed call: 200 x 65
  const T = new Float64Array(1);
  const pipeline = () => {
    for (let l = 0; l < LOOPS; l++)
      for (let i = 0; i < frames.length; i++) {
        const f = frames[i];
        T[0] += 200;
        f.timestampMs = T[0];
        p.step(f, out);
      }
    return out.x[0];
  };
  const first = () => {
    for (let l = 0; l < LOOPS; l++)
      for (let i = 0; i < frames.length; i++) landmarksToJoints(frames[i], rec.image, o, raw, info);
    return raw.x[0];
  };
  const [a, b] = timePair(pipeline, first, { warmup: 5, minRuns: 10, maxRuns: 60, budgetMs: 3000 });
  const n = LOOPS * frames.length;
  const usA = (a.medianMs * 1000) / n;
  const usB = (b.medianMs * 1000) / n;
  const K = new Int32Array(1); // counters in typed arrays: a closure variable could box and show as our garbage
  const heap = bytesPerCall(() => {
    const f = frames[K[0]++ % frames.length];
    T[0] += 200;
    f.timestampMs = T[0];
    p.step(f, out);
  }, 2000);
  console.log(
    `PosePipeline.step ${fmt(usA, 2)} us/frame (best ${fmt((a.minMs * 1000) / n, 2)}), landmarksToJoints ${fmt(usB, 2)} us/frame; ` +
      `step / first stage = ${fmt(usA / usB, 2)}; heap ${fmt(heap.bytes, 2)} bytes/step (${heap.gcs} GCs)`,
  );
  return [
    {
      bench: 'puppet pose step (us/frame)',
      ours: fmt(usA, 2),
      three: fmt(usB, 2),
      peer: 'l2j only',
      ratio: usB / usA,
      bestRatio: b.minMs / a.minMs,
    },
  ];
}
