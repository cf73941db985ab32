/**
 * Live hub benchmark: the per-frame cost of `RetargetHub.update` for one avatar with IK on all four
 * limbs, fingers on (a preset in muscle mode) and two props, in microseconds per avatar-frame, with the
 * JIT and without it (`node --jitless`, a stand-in for phones where the JIT is off: measured in a child
 * process), the number of avatars that fit in 2 ms at 120 Hz, and the heap bytes allocated per frame.
 * The peer run in the same process is the plain retargeter (`Retargeter.retargetPose`, FK copy only),
 * so the ratio says what IK, fingers, weights and props add. Issue 3's targets: at most 10 us per
 * avatar-frame with JIT, 100 us without, 0 bytes per frame in steady state. Beside it, the live source
 * stage's cost per avatar-frame (`SourceStage.update`: raw pose kept, One-Euro filter on every source
 * bone, back to a local pose), which `updateLive` adds to the hub update, and the two together
 * (`updateLive`, on a second hub) with its heap per frame, with the JIT and under --jitless. Last, the
 * same hub in real QuickJS through the Unity bundle's bridge `update` with the buffer copies PuerTS
 * makes (bench/hubQuickjs.ts), with the default source filter and with every filter group off.
 */
import { execFileSync } from 'node:child_process';
import { readFrame } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { Retargeter } from '../src/retarget';
import { RetargetHub } from '../src/rig';
import { bytesPerCall, DEFAULT_ASSETS, fmt, median, now, type Row, sharedFile } from './harness';
import { runHubProfile } from './hubProfile';
import { quickjsHub } from './hubQuickjs';

interface Case {
  label: string;
  source: string;
  avatar: string;
}

export function cases(): Case[] {
  const out: Case[] = [
    {
      label: 'default walk -> default avatar',
      source: `${DEFAULT_ASSETS}/default-walk.bvh`,
      avatar: `${DEFAULT_ASSETS}/default-avatar.glb`,
    },
  ];
  const walk = sharedFile('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
  const xbot = sharedFile('threejs/Xbot.glb');
  if (walk && xbot) out.push({ label: 'Bandai walk -> Xbot', source: walk, avatar: xbot });
  return out;
}

interface Setup {
  hub: RetargetHub;
  /** A second hub, same set-up, fed through `updateLive` (the source stage, then the hub update). */
  live: RetargetHub;
  clip: import('../src/core').Clip;
  target: import('../src/core').Skeleton;
  retargeter: Retargeter;
  frames: Float64Array[];
  positions: Float64Array[];
  bones: number;
}

async function setup(c: Case): Promise<Setup> {
  const src = await loadSource(c.source);
  const avatar = await loadAvatar(c.avatar);
  const clip = src.clip;
  const n = clip.skeleton.boneCount;
  const frames: Float64Array[] = [];
  const positions: Float64Array[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, f, r, p);
    frames.push(r);
    positions.push(p);
  }
  const makeHub = () => {
    const hub = new RetargetHub(clip.skeleton, avatar.skeleton, { ik: 'on', fingers: 'none' });
    hub.calibrate({ rotations: frames[0], translations: positions[0] });
    hub.fingers.applyPreset('left', 'rock');
    hub.fingers.applyPreset('right', 'v');
    hub.props.add('ball', 'Object', [0.4, 1.1, 0.3]);
    hub.props.add('chair', 'Chair', [0, 0.45, -0.6]);
    return hub;
  };
  const hub = makeHub();
  const live = makeHub();
  const retargeter = new Retargeter(clip.skeleton, avatar.skeleton);
  retargeter.calibrate({ rotations: frames[0], translations: positions[0] });
  return {
    hub,
    live,
    clip,
    target: avatar.skeleton,
    retargeter,
    frames,
    positions,
    bones: avatar.skeleton.boneCount,
  };
}

/**
 * Child mode (`hub-profile-child <frames>`, run by bench/hubProfile.ts under --jitless --cpu-prof): the
 * profiled loop, `updateLive` over the last case's take (the Bandai walk onto Xbot, or the embedded
 * default), on the live hub of this bench's set-up.
 */
export async function hubProfileChild(frames: number): Promise<void> {
  const c = cases().at(-1)!;
  const s = await setup(c);
  const count = s.frames.length;
  for (let i = 0; i < frames; i++) s.live.updateLive(s.frames[i % count], s.positions[i % count], 1 / 120);
  console.log(c.label);
}

/** Median microseconds per frame of `fn(frame)` over the clip, repeated. */
export function usPerFrame(count: number, fn: (f: number) => void, budgetMs: number): number {
  for (let i = 0; i < 3 * count; i++) fn(i % count);
  const runs: number[] = [];
  const t0 = now();
  while (runs.length < 5 || (now() - t0 < budgetMs && runs.length < 200)) {
    const a = now();
    for (let i = 0; i < count; i++) fn(i);
    runs.push(((now() - a) * 1000) / count);
  }
  return median(runs);
}

interface Measures {
  /** us per avatar-frame: hub update, updateLive (source stage + hub), peer retargetPose, source stage. */
  hub: number;
  live: number;
  peer: number;
  filter: number;
  /** Heap bytes per frame: hub update, updateLive. */
  bytes: number;
  liveBytes: number;
  bones: number;
}

/** The measurements of one case in this process: hub and peer, us per frame, heap bytes per frame. */
export async function measure(c: Case, budgetMs: number): Promise<Measures> {
  const s = await setup(c);
  const count = s.frames.length;
  const out = s.retargeter.target.boneCount;
  const or = new Float64Array(4 * out);
  const op = new Float64Array(3 * out);
  const hub = usPerFrame(count, (f) => s.hub.update(s.frames[f], s.positions[f], 1 / 120), budgetMs);
  const peer = usPerFrame(
    count,
    (f) => s.retargeter.retargetPose(s.frames[f], s.positions[f], or, op),
    budgetMs,
  );
  // the live source stage (raw pose kept, One-Euro filter on every source bone, back to local)
  const filter = usPerFrame(
    count,
    (f) => s.hub.sourceStage.update(s.frames[f], s.positions[f], 1 / 120),
    budgetMs,
  );
  const live = usPerFrame(count, (f) => s.live.updateLive(s.frames[f], s.positions[f], 1 / 120), budgetMs);
  let f = 0;
  const bytes = bytesPerCall(() => {
    s.hub.update(s.frames[f], s.positions[f], 1 / 120);
    f = f + 1 === count ? 0 : f + 1;
  }, 2000).bytes;
  f = 0;
  const liveBytes = bytesPerCall(() => {
    s.live.updateLive(s.frames[f], s.positions[f], 1 / 120);
    f = f + 1 === count ? 0 : f + 1;
  }, 2000).bytes;
  return { hub, live, peer, filter, bytes, liveBytes, bones: s.bones };
}

/**
 * The unit of interpreted work: nanoseconds per flat quaternion product `W[t] = W[t-1] * L[t]` over 64
 * bones (8 typed-array loads and 28 arithmetic results, each a boxed double without a JIT, 4 stores), the
 * pattern the per-frame path is written in. Dividing a step's time by it says how many such products'
 * worth of arithmetic the step does.
 */
export function quatProductNs(budgetMs: number): number {
  const N = 64;
  const W = new Float64Array(4 * N).fill(0.5);
  const L = new Float64Array(4 * N).fill(0.5);
  const pass = () => {
    for (let t = 1; t < N; t++) {
      const p4 = 4 * (t - 1);
      const t4 = 4 * t;
      const qx = W[p4];
      const qy = W[p4 + 1];
      const qz = W[p4 + 2];
      const qw = W[p4 + 3];
      const bx = L[t4];
      const by = L[t4 + 1];
      const bz = L[t4 + 2];
      const bw = L[t4 + 3];
      // unit quaternions in (every component 0.5): the products stay unit, no overflow or denormals
      W[t4] = qx * bw + qw * bx + qy * bz - qz * by;
      W[t4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
      W[t4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
      W[t4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
    }
  };
  return (1000 * usPerFrame(200, pass, budgetMs)) / (N - 1);
}

/** Child mode (`hub-child`): print the measurements of every case as JSON (run under --jitless). */
export async function hubChild(): Promise<void> {
  const results = [];
  for (const c of cases())
    results.push({ label: c.label, ...(await measure(c, 1500)), quatNs: quatProductNs(300) });
  console.log(JSON.stringify(results));
}

export async function runHubBench(): Promise<Row[]> {
  const rows: Row[] = [];
  let jitless: (Measures & { label: string })[] = [];
  try {
    const text = execFileSync(process.execPath, ['--jitless', '--expose-gc', process.argv[1], 'hub-child'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    jitless = JSON.parse(text.trim().split('\n').pop()!);
  } catch (e) {
    console.log(`  (the --jitless child run failed: ${(e as Error).message.split('\n')[0]})`);
  }
  for (const c of cases()) {
    const s = await setup(c);
    const m = await measure(c, 1500);
    const j = jitless.find((x) => x.label === c.label);
    console.log(`${c.label} (${m.bones} bones; IK on four limbs, fingers on, 2 props):`);
    console.log(
      `  JIT:       hub ${fmt(m.hub, 2)} us/frame, peer retargetPose ${fmt(m.peer, 2)} us/frame (hub = ${fmt(m.hub / m.peer, 1)}x peer); ${Math.floor(2000 / m.hub)} avatars in 2 ms at 120 Hz; heap ${fmt(m.bytes, 2)} B/frame`,
    );
    console.log(
      `  JIT:       source filter (One-Euro, every source bone) ${fmt(m.filter, 2)} us/avatar-frame beside the hub update's ${fmt(m.hub, 2)} (${fmt((100 * m.filter) / m.hub, 0)}%)`,
    );
    console.log(
      `  JIT:       hub + source stage (updateLive) ${fmt(m.live, 2)} us/avatar-frame; heap ${fmt(m.liveBytes, 2)} B/frame`,
    );
    if (j) {
      console.log(
        `  jitless:   source filter ${fmt(j.filter, 1)} us/avatar-frame beside the hub update's ${fmt(j.hub, 1)} (${fmt((100 * j.filter) / j.hub, 0)}%)`,
      );
      console.log(
        `  jitless:   hub ${fmt(j.hub, 1)} us/frame, peer retargetPose ${fmt(j.peer, 1)} us/frame (hub = ${fmt(j.hub / j.peer, 1)}x peer); ${Math.floor(2000 / j.hub)} avatars in 2 ms at 120 Hz; heap ${fmt(j.bytes, 0)} B/frame (the interpreter boxes numbers)`,
      );
      console.log(
        `  jitless:   hub + source stage (updateLive) ${fmt(j.live, 1)} us/avatar-frame (${fmt(j.live / m.live, 0)}x the JIT's); heap ${fmt(j.liveBytes, 0)} B/frame`,
      );
      const jq = (j as { quatNs?: number }).quatNs;
      if (jq)
        console.log(
          `  jitless:   one flat quaternion product (36 boxed doubles) ${fmt(jq, 0)} ns: updateLive is ${fmt((1000 * j.live) / jq, 0)} products' worth, the hub update ${fmt((1000 * j.hub) / jq, 0)}, the source stage ${fmt((1000 * j.filter) / jq, 0)}; heap ${fmt(j.liveBytes / 16, 0)} boxed doubles (16 B) per frame`,
        );
    }
    const q = await quickjsHub(s.clip, s.target, 4000).catch((e: Error) => {
      console.log(`  QuickJS:   failed: ${e.message.split('\n')[0]}`);
      return null;
    });
    if (q)
      console.log(
        `  QuickJS:   bridge update (buffers copied in and out) ${fmt(q.filtered, 1)} us/avatar-frame with the source filter, ${fmt(q.unfiltered, 1)} with every filter group off${j ? ` (${fmt(q.filtered / j.live, 1)}x --jitless updateLive)` : ''}`,
      );
    if (c.label === cases().at(-1)?.label) runHubProfile();
    rows.push({
      bench: `Hub update ${c.label}`,
      ours: `${fmt(m.hub, 2)} us/frame JIT${j ? `, ${fmt(j.hub, 1)} jitless` : ''}`,
      three: `retargetPose ${fmt(m.peer, 2)} us`,
      peer: 'peer',
      ratio: m.peer / m.hub,
    });
  }
  return rows;
}
