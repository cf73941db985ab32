/**
 * Benchmark: the puppet per frame (not a test). First the whole per-frame pipeline of `kind puppet`
 * (PuppetSession.step: landmarks -> joints -> filter -> fill -> rig -> LBS + ARAP; target well under 1 ms per frame)
 * for the embedded default driven by its recording and for char1..4 driven by the real squat, beside the pose
 * side alone on the same frames (ratio < 1: the drawing side's share), with the bytes allocated per frame.
 * Then the deformation alone (issue 22 part 3): Deformer 'arap' (LBS + ARAP + fold-over guard) beside
 * Deformer 'lbs' on the same transforms (each frame's rig output of the recording), in the same process.
 * Then the drawing side on the AnimatedDrawings characters char1..4. Per character: DrawingRig.pose + CPU linear blend skinning of the mesh per frame (target: well under
 * 1 ms), beside a plain copy of the same vertex array (the cheapest thing a frame could do with it); the
 * software rasteriser per frame beside a plain copy of the texture's bytes into the target; and the
 * one-off setup (mesh + weights) per weight mode. Poses: the rest pose with the arms swung through 60
 * angles. Our figures are far below the copy's speed by nature (the ratio column is empty; each row gives
 * our time as a multiple of the copy's). Data: ../shared/data (skipped with a note when absent).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCharacter, loadLandmarkRecording } from '../src/io/node';
import {
  buildMesh,
  computeWeights,
  createJointSet,
  Deformer,
  DrawingRig,
  type JointSet,
  type LandmarkRecording,
  PosePipeline,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
  PUPPET_PARENTS,
  PuppetSession,
  type RgbaImage,
  rasterize,
  skin,
  WEIGHT_MODES,
} from '../src/puppet';
import { bytesPerCall, DEFAULT_ASSETS, fmt, now, type Row, sharedFile, timePair } from './harness';

const FRAMES = 60;

function swingPoses(rest: JointSet): JointSet[] {
  const poses: JointSet[] = [];
  const la = PUPPET_JOINTS.indexOf('LeftUpperArm');
  const ra = PUPPET_JOINTS.indexOf('RightUpperArm');
  const under = (j: number, root: number) => {
    for (let k = j; k >= 0; k = PUPPET_PARENTS[k]) if (k === root) return true;
    return false;
  };
  for (let f = 0; f < FRAMES; f++) {
    const p = createJointSet();
    p.x.set(rest.x);
    p.y.set(rest.y);
    p.confidence.fill(1);
    const a = 1.2 * Math.sin((2 * Math.PI * f) / FRAMES);
    for (const [root, sign] of [
      [la, -1],
      [ra, 1],
    ] as const) {
      const c = Math.cos(sign * a);
      const s = Math.sin(sign * a);
      for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
        if (j === root || !under(j, root)) continue;
        const dx = p.x[j] - rest.x[root];
        const dy = p.y[j] - rest.y[root];
        p.x[j] = rest.x[root] + c * dx - s * dy;
        p.y[j] = rest.y[root] + s * dx + c * dy;
      }
    }
    poses.push(p);
  }
  return poses;
}

/**
 * The whole per-frame pipeline of `kind puppet` (PuppetSession.step: 33 landmarks -> 21 joints -> confidence
 * filter -> occlusion fill -> DrawingRig.pose -> LBS), over a real recording, beside the pose side alone
 * (PosePipeline.step on the same frames): the ratio is what the drawing side costs on top.
 */
function sessionRow(name: string, dir: string, rec: LandmarkRecording, recName: string, rows: Row[]): void {
  const ch = loadCharacter(dir);
  const session = new PuppetSession(ch, { image: rec.image });
  const pose = new PosePipeline({}, rec.image);
  const out = createJointSet();
  const F = rec.frames.length;
  const opts = { warmup: 3, minRuns: 15, maxRuns: 300, budgetMs: 1500 };
  const [whole, side] = timePair(
    () => {
      session.reset();
      for (let f = 0; f < F; f++) session.step(rec.frames[f]);
      return session.skinned;
    },
    () => {
      pose.reset();
      for (let f = 0; f < F; f++) pose.step(rec.frames[f], out);
      return out;
    },
    opts,
  );
  let f = 0;
  session.reset();
  const alloc = bytesPerCall(() => {
    if (f === F) {
      f = 0;
      session.reset();
    }
    session.step(rec.frames[f++]);
  }, 2000);
  rows.push({
    bench: `${name} <- ${recName}: whole pipeline per frame (${session.mesh.vertexCount} v)`,
    ours: `${fmt((1000 * whole.medianMs) / F, 2)} us, ${fmt(alloc.bytes, 1)} B/frame`,
    three: `${fmt((1000 * side.medianMs) / F, 2)} us`,
    ratio: side.medianMs / whole.medianMs,
    peer: 'pose side alone',
  });
}

/**
 * The deformation alone: LBS + ARAP + guard (Deformer 'arap') against LBS (Deformer 'lbs') on each frame's
 * transforms of the recording (taken once from a session), the same mesh and weights.
 */
function deformRow(name: string, dir: string, rec: LandmarkRecording, recName: string, rows: Row[]): void {
  const ch = loadCharacter(dir);
  const session = new PuppetSession(ch, { image: rec.image, deform: 'lbs' });
  const frames: Float64Array[] = [];
  for (const f of rec.frames) {
    session.step(f);
    if (session.posed) frames.push(Float64Array.from(session.transforms));
  }
  const arap = new Deformer(session.mesh, session.weights, 'arap');
  const lbs = new Deformer(session.mesh, session.weights, 'lbs');
  const out = new Float32Array(session.skinned.length);
  const F = frames.length;
  const [a, l] = timePair(
    () => {
      for (let f = 0; f < F; f++) arap.deform(frames[f], out);
      return out;
    },
    () => {
      for (let f = 0; f < F; f++) lbs.deform(frames[f], out);
      return out;
    },
    { warmup: 3, minRuns: 10, maxRuns: 200, budgetMs: 1500 },
  );
  let f = 0;
  const alloc = bytesPerCall(() => arap.deform(frames[f++ % F], out), 1000);
  rows.push({
    bench: `${name} <- ${recName}: LBS + ARAP + guard per frame (${session.mesh.vertexCount} v, ${session.mesh.triangleCount} t)`,
    ours: `${fmt((1000 * a.medianMs) / F, 1)} us, ${fmt(alloc.bytes, 1)} B/frame`,
    three: `${fmt((1000 * l.medianMs) / F, 1)} us`,
    ratio: l.medianMs / a.medianMs,
    peer: 'LBS alone',
  });
}

export function runPuppetBench(): Row[] {
  console.log(
    '\n== Puppet drawing: pose + LBS and rasterise per frame (peers: plain copies of the same arrays)',
  );
  const rows: Row[] = [];
  const opts = { warmup: 3, minRuns: 15, maxRuns: 200, budgetMs: 1500 };
  const defaultDir = path.join(DEFAULT_ASSETS, 'puppet');
  if (fs.existsSync(path.join(defaultDir, 'recording.json'))) {
    const rec = loadLandmarkRecording(path.join(defaultDir, 'recording.json')).recording;
    sessionRow('default', defaultDir, rec, 'default recording', rows);
    deformRow('default', defaultDir, rec, 'default recording', rows);
  }
  const squat = sharedFile('pose-landmarks/pose_squats.full.json');
  if (squat) {
    const rec = loadLandmarkRecording(squat, { imageSize: { width: 720, height: 1280 }, fps: 5 }).recording;
    for (const c of ['char1', 'char2', 'char3', 'char4']) {
      const dir = path.dirname(sharedFile(`animated-drawings/characters/${c}/char_cfg.yaml`)!);
      sessionRow(c, dir, rec, 'squat', rows);
      deformRow(c, dir, rec, 'squat', rows);
    }
  }
  for (const c of ['char1', 'char2', 'char3', 'char4']) {
    const cfg = sharedFile(`animated-drawings/characters/${c}/char_cfg.yaml`);
    if (!cfg) {
      console.log(`${c}: shared data not found, skipped`);
      continue;
    }
    const ch = loadCharacter(path.dirname(cfg));
    const t0 = now();
    const mesh = buildMesh(ch);
    const tMesh = now() - t0;
    const setup: string[] = [`mesh ${fmt(tMesh)} ms`];
    let weights = computeWeights(mesh, ch);
    for (const mode of WEIGHT_MODES) {
      const t1 = now();
      const w = computeWeights(mesh, ch, mode);
      setup.push(`weights ${mode} ${fmt(now() - t1)} ms`);
      if (mode === 'segments-geodesic') weights = w;
    }
    console.log(
      `${c}: ${mesh.vertexCount} vertices, ${mesh.triangleCount} triangles; setup: ${setup.join(', ')}`,
    );
    const rig = new DrawingRig(ch);
    const out = createJointSet();
    const tr = new Float64Array(PUPPET_JOINT_COUNT * 6);
    const sk = new Float32Array(2 * mesh.vertexCount);
    const copy = new Float32Array(2 * mesh.vertexCount);
    const poses = swingPoses(ch.restJoints);
    rig.pose(ch.restJoints, out, tr);
    const [lbs, peer] = timePair(
      () => {
        for (let f = 0; f < FRAMES; f++) {
          rig.pose(poses[f], out, tr);
          skin(mesh, weights, tr, sk);
        }
        return sk;
      },
      () => {
        for (let f = 0; f < FRAMES; f++) copy.set(mesh.vertices);
        return copy;
      },
      opts,
    );
    rows.push({
      bench: `${c} pose+LBS per frame (${mesh.vertexCount} v)`,
      ours: `${fmt((1000 * lbs.medianMs) / FRAMES, 2)} us (${fmt(lbs.medianMs / peer.medianMs)}x the copy's time)`,
      three: `${fmt((1000 * peer.medianMs) / FRAMES, 2)} us`,
      ratio: null,
      peer: 'copy',
    });
    const target: RgbaImage = {
      width: ch.width,
      height: ch.height,
      data: new Uint8Array(ch.width * ch.height * 4),
    };
    const bg = { background: [255, 255, 255, 255] as const };
    const R = 10;
    const [ras, rpeer] = timePair(
      () => {
        for (let f = 0; f < R; f++) {
          rig.pose(poses[(f * 7) % FRAMES], out, tr);
          skin(mesh, weights, tr, sk);
          rasterize(ch, mesh, sk, target, bg);
        }
        return target;
      },
      () => {
        for (let f = 0; f < R; f++) target.data.set(ch.texture.data);
        return target;
      },
      opts,
    );
    rows.push({
      bench: `${c} pose+LBS+rasterise per frame (${ch.width}x${ch.height})`,
      ours: `${fmt(ras.medianMs / R, 3)} ms (${fmt(ras.medianMs / rpeer.medianMs, 0)}x the copy's time)`,
      three: `${fmt(rpeer.medianMs / R, 3)} ms`,
      ratio: null,
      peer: 'copy',
    });
  }
  return rows;
}
