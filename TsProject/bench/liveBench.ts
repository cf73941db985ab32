/**
 * Benchmark 5: the live pipeline's rates and latencies (not a test: test/live.test.ts, remote.load.test.ts
 * and viewer.server.test.ts assert only what does not depend on the machine's load; the figures they used
 * to assert are measured here). Each figure under load is printed beside the same figure without the load,
 * measured in the same process just before (the peer), and the ratio is loaded / quiet (1.0: the load costs
 * nothing).
 *
 * 1. A 120 Hz frame loop (RetargetHub.update on the default walk -> default avatar, timers with catch-up,
 *    as a host runs it) beside the remote-control server: quiet, then with 50 WebSocket clients sending
 *    20 messages per second each for 5 s (updates broadcast to the 49 others, refreshes, reads) and one
 *    client that never reads. Achieved rate, gap p99 and largest gap.
 * 2. `startLive` over loopback NatNet: the Bandai walk at 120 Hz (rate 4) onto Xbot and the default avatar
 *    (the embedded default walk onto the default avatar without the shared data): frames per second,
 *    packet -> pose and server send -> pose latency, largest gap, quiet and with the same 50 clients plus a
 *    viewer on /pose; pose messages per second to the viewer (capped at 60 by the server).
 * 3. The viewer server's `publish` (~34 KB pose message): time per call with one reader, and with one more
 *    client that never reads (its queue full: every frame skipped for it).
 */
import * as os from 'node:os';
import WebSocket from 'ws';
import { readFrame } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { startLive } from '../src/live/node/live';
import { startRemoteServer } from '../src/live/node/remoteServer';
import { startViewerServer, type ViewerFrame } from '../src/live/node/viewerServer';
import { PARAMETERS, RemoteControl } from '../src/live/remote';
import type { ViewerScene } from '../src/live/viewer/poseLayout';
import { RetargetHub } from '../src/rig';
import { DEFAULT_ASSETS, fmt, median, now, type Row, sharedFile } from './harness';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const CLIENTS = 50;
const RATE = 20;
const SECONDS = 5;

function p99(xs: number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(0.99 * s.length))];
}

/** Open `n` WebSocket clients (messages counted) and one that never reads. */
async function openClients(
  url: string,
  n: number,
): Promise<{ clients: WebSocket[]; received: () => number }> {
  let received = 0;
  const clients: WebSocket[] = [];
  for (let i = 0; i < n; i++) {
    const ws = new WebSocket(url);
    ws.on('message', () => {
      received++;
    });
    clients.push(ws);
  }
  const deaf = new WebSocket(url);
  clients.push(deaf);
  await Promise.all(clients.map((c) => new Promise((r) => c.once('open', r))));
  (deaf as unknown as { _socket: { pause(): void } })._socket.pause();
  return { clients, received: () => received };
}

/** Every reading client sends RATE messages per second for SECONDS (paced, no catching up). */
async function drive(
  clients: WebSocket[],
  character: string,
  property: (k: number) => string,
): Promise<number> {
  let sent = 0;
  await Promise.all(
    clients.slice(0, CLIENTS).map(async (c, i) => {
      await sleep((i * 1000) / RATE / CLIENTS);
      for (let k = 0; k < RATE * SECONDS; k++) {
        const kind = k % 10;
        const msg =
          kind < 8
            ? {
                action: 'updateValueRealtime',
                id: k,
                characterName: character,
                property: property(i + k),
                value: 0.1 * (k % 5),
              }
            : kind === 8
              ? { action: 'refresh', id: k }
              : { action: 'getCharacterData', id: k, characterName: character };
        c.send(JSON.stringify(msg));
        sent++;
        await sleep(1000 / RATE);
      }
    }),
  );
  return sent;
}

/** Part 1: the frame loop's rate beside the remote server, quiet and loaded. */
async function frameLoop(): Promise<Row> {
  const src = await loadSource(`${DEFAULT_ASSETS}/default-walk.bvh`);
  const avatar = await loadAvatar(`${DEFAULT_ASSETS}/default-avatar.glb`);
  const clip = src.clip;
  const n = clip.skeleton.boneCount;
  const frames = Array.from({ length: clip.frameCount }, (_, f) => {
    const r = new Float64Array(4 * n);
    const t = new Float64Array(3 * n);
    readFrame(clip, f, r, t);
    return { r, t };
  });
  const hub = new RetargetHub(clip.skeleton, avatar.skeleton, { ik: 'auto', fingers: 'rotation' });
  hub.calibrate({ rotations: frames[0].r, translations: frames[0].t });
  const control = new RemoteControl({
    names: () => ['default-avatar'],
    hub: (name) => (name === 'default-avatar' ? hub : undefined),
    currentFrame: () => undefined,
  });
  const server = await startRemoteServer({ control, port: 0 });
  /** Run the loop for `ms` while `during` runs; achieved Hz, gap p99, largest gap. */
  const run = async (ms: number, during: () => Promise<unknown>) => {
    const period = 1000 / 120;
    let count = 0;
    let running = true;
    const gaps: number[] = [];
    const t0 = now();
    let last = t0;
    const loop = () => {
      if (!running) return;
      const t = now();
      gaps.push(t - last);
      last = t;
      const f = frames[count % frames.length];
      hub.update(f.r, f.t, 1 / 120);
      count++;
      setTimeout(loop, Math.max(0, t0 + count * period - now()));
    };
    setTimeout(loop, period);
    await Promise.all([sleep(ms), during()]);
    running = false;
    const hz = count / ((last - t0) / 1000);
    return { hz, p99: p99(gaps), max: Math.max(...gaps) };
  };
  try {
    const quiet = await run(3000, async () => undefined);
    const { clients, received } = await openClients(server.url, CLIENTS);
    const numbers = PARAMETERS.filter((p) => p.type === 'number');
    let sent = 0;
    const loaded = await run(SECONDS * 1000, async () => {
      sent = await drive(clients, 'default-avatar', (k) => numbers[k % numbers.length].name);
    });
    const st = server.stats();
    console.log(
      `frame loop at 120 Hz (hub.update, default walk -> default avatar):\n` +
        `  quiet:  ${fmt(quiet.hz)} Hz, gap p99 ${fmt(quiet.p99, 2)} ms, largest ${fmt(quiet.max, 2)} ms\n` +
        `  loaded: ${fmt(loaded.hz)} Hz, gap p99 ${fmt(loaded.p99, 2)} ms, largest ${fmt(loaded.max, 2)} ms ` +
        `(${CLIENTS} clients x ${RATE} msg/s for ${SECONDS} s: ${sent} sent, ${received()} replies and broadcasts received by the end of the run, ${st.rateLimited} rate-limited, ${st.skippedSlow} skipped for the non-reader)`,
    );
    for (const c of clients) c.terminate();
    return {
      bench: 'Frame loop 120 Hz + 50 remote clients',
      ours: `${fmt(loaded.hz)} Hz loaded`,
      three: `${fmt(quiet.hz)} Hz quiet`,
      peer: 'peer',
      ratio: loaded.hz / quiet.hz,
    };
  } finally {
    await server.close();
  }
}

/** Part 2: startLive over loopback, quiet and loaded. */
async function liveLoopback(): Promise<Row> {
  const walk = sharedFile('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
  const xbot = sharedFile('threejs/Xbot.glb');
  const avatar = `${DEFAULT_ASSETS}/default-avatar.glb`;
  const real = !!(walk && xbot);
  const live = await startLive({
    replay: real ? walk! : 'default',
    avatars: real ? [xbot!, avatar] : [avatar],
    remotePort: 0,
    viewerPort: 0,
    rate: 4,
  });
  const label = real
    ? 'Bandai walk at 120 Hz -> Xbot + default avatar'
    : 'default walk at 120 Hz -> default avatar';
  try {
    await sleep(1000);
    const q0 = live.stats();
    const tq = now();
    await sleep(3000);
    const q1 = live.stats();
    const quietFps = (q1.frames - q0.frames) / ((now() - tq) / 1000);
    let poses = 0;
    const viewer = new WebSocket(`${live.viewerUrl.replace(/^http/, 'ws')}pose`);
    viewer.on('message', () => {
      poses++;
    });
    await new Promise((r) => viewer.once('open', r));
    const { clients } = await openClients(live.remoteUrl, CLIENTS);
    const numbers = PARAMETERS.filter((p) => p.type === 'number' && p.name.endsWith('Curl'));
    const l0 = live.stats();
    const tl = now();
    poses = 0;
    await drive(clients, live.characters[0], (k) => numbers[k % numbers.length].name);
    const seconds = (now() - tl) / 1000;
    const l1 = live.stats();
    const loadedFps = (l1.frames - l0.frames) / seconds;
    const ms = (x: number) => fmt(x, 3);
    console.log(
      `kind live over loopback NatNet, ${label}:\n` +
        `  quiet:  ${fmt(quietFps)} frames/s, packet -> pose median ${ms(q1.latencyMs.median)} ms p99 ${ms(q1.latencyMs.p99)} ms, server send -> pose median ${ms(q1.endToEndMs.median)} ms p99 ${ms(q1.endToEndMs.p99)} ms, ${q1.dropped} lost\n` +
        `  loaded: ${fmt(loadedFps)} frames/s, packet -> pose median ${ms(l1.latencyMs.median)} ms p99 ${ms(l1.latencyMs.p99)} ms, largest gap ${fmt(l1.maxGapMs, 1)} ms, ${l1.dropped} lost; ` +
        `${fmt(poses / seconds)} pose messages/s to the viewer (${CLIENTS} clients x ${RATE} msg/s for ${fmt(seconds, 1)} s)`,
    );
    viewer.close();
    for (const c of clients) c.terminate();
    return {
      bench: 'kind live 120 Hz + 50 clients + viewer',
      ours: `${fmt(loadedFps)} fps loaded`,
      three: `${fmt(quietFps)} fps quiet`,
      peer: 'peer',
      ratio: loadedFps / quietFps,
    };
  } finally {
    await live.close();
  }
}

/** Part 3: viewer publish time with and without a client that never reads. */
async function viewerPublish(): Promise<Row> {
  const skel = (name: string, n: number) => ({
    name,
    boneNames: Array.from({ length: n }, (_, i) => `b${i}`),
    parents: Array.from({ length: n }, (_, i) => i - 1),
    restTranslations: Array.from({ length: 3 * n }, () => 0),
    restRotations: Array.from({ length: 4 * n }, (_, i) => (i % 4 === 3 ? 1 : 0)),
  });
  const scene: ViewerScene = {
    source: skel('source', 55),
    avatars: [0, 1, 2, 3].map((i) => skel(`a${i}`, 300)),
    remote: { url: 'ws://127.0.0.1:1/retargeting' },
  };
  const frame: ViewerFrame = {
    frameNumber: 0,
    timestamp: 0,
    latencyMs: 0,
    dropped: 0,
    fps: 0,
    source: { rotations: new Float64Array(4 * 55), translations: new Float64Array(3 * 55) },
    avatars: scene.avatars.map(() => ({
      rotations: new Float64Array(4 * 300),
      translations: new Float64Array(3 * 300),
      scales: new Float64Array([1, 1]),
    })),
  };
  const measure = async (stuck: boolean) => {
    const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
    const url = `ws://127.0.0.1:${server.port}/pose`;
    const socks: WebSocket[] = [];
    try {
      if (stuck) {
        const s = new WebSocket(url);
        await new Promise((r) => s.once('open', r));
        (s as unknown as { _socket: { pause(): void } })._socket.pause();
        socks.push(s);
      }
      const reader = new WebSocket(url);
      await new Promise((r) => reader.once('open', r));
      socks.push(reader);
      while (server.clientCount() < socks.length) await sleep(5);
      const times: number[] = [];
      for (let i = 0; i < 1500; i++) {
        frame.frameNumber = i;
        const t0 = now();
        server.publish(frame);
        times.push(now() - t0);
        await new Promise((r) => setImmediate(r));
      }
      return {
        median: median(times),
        p95: [...times].sort((a, b) => a - b)[Math.floor(0.95 * times.length)],
        max: Math.max(...times),
        skipped: server.stats().skipped,
      };
    } finally {
      for (const s of socks) s.terminate();
      await server.close();
    }
  };
  const plain = await measure(false);
  const stuck = await measure(true);
  console.log(
    `viewer publish (34 KB pose message, 1500 frames):\n` +
      `  one reader:                  median ${fmt(plain.median, 3)} ms, p95 ${fmt(plain.p95, 3)} ms, largest ${fmt(plain.max, 2)} ms\n` +
      `  plus a client that never reads: median ${fmt(stuck.median, 3)} ms, p95 ${fmt(stuck.p95, 3)} ms, largest ${fmt(stuck.max, 2)} ms (${stuck.skipped} frames skipped for it)`,
  );
  return {
    bench: 'Viewer publish with a stuck client',
    ours: `${fmt(stuck.median, 3)} ms stuck`,
    three: `${fmt(plain.median, 3)} ms`,
    peer: 'peer',
    ratio: plain.median / stuck.median,
  };
}

export async function runLiveBench(): Promise<Row[]> {
  console.log(
    '\n== 5. Live pipeline rates and latencies (quiet vs loaded, same process; ratio loaded/quiet speed)',
  );
  const rows: Row[] = [];
  rows.push(await frameLoop());
  rows.push(await liveLoopback());
  rows.push(await viewerPublish());
  return rows;
}
