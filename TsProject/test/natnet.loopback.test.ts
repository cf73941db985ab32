/**
 * Replay server + client on 127.0.0.1 with a real take: zero lost frames, decoded bone rotations equal the
 * server's expected Motive local poses, the description maps to all 21 Motive body bones, and a barrage of
 * malformed packets at the client's socket is counted and does not stop streaming. On the embedded default
 * walk (no shared data needed): in multicast mode a client gets each frame once (from the group only, as
 * Motive sends them); FrameRate is answered and read as a float32; a NatNet 3.x description without
 * per-bone markers (the SDK 3.0-3.1 layout) reaches the client as the skeleton.
 */
import * as dgram from 'node:dgram';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Clip } from '../src/core';
import {
  angleBetween,
  forwardKinematics,
  HumanBodyBones as H,
  HUMAN_BONE_NAMES,
  readFrame,
} from '../src/core';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import {
  type EncodableVersion,
  encodeEchoRequest,
  encodeFrame,
  encodeServerInfo,
  frameSkeletonToPose,
  MOTIVE_BODY_BONES,
  motiveBoneToHuman,
  NatNetFrame,
  skeletonFromDescription,
} from '../src/live/natnet';
import { NatNetClient } from '../src/live/node/natnetClient';
import { NatNetReplayServer } from '../src/live/node/natnetServer';
import { dataPath } from './helpers/data';

const TAKE = dataPath('bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh');
const HAS_TAKE = fs.existsSync(TAKE);
if (!HAS_TAKE) console.warn(`[skip] NatNet loopback: ${TAKE} not found`);
const d = HAS_TAKE ? describe : describe.skip;

const FRAMES = 300;

async function run(clip: Clip, version: EncodableVersion, barrage = false) {
  const server = new NatNetReplayServer();
  const client = new NatNetClient();
  try {
    const { port } = await server.start({ clip, commandPort: 0, version, rate: 4, loop: true });
    const errors: number[] = [];
    let maxErr = 0;
    let maxPosErr = 0;
    let maxSourceErr = 0;
    let checked = 0;
    let firstFrame = -1;
    let lastFrame = -1;
    const done = new Promise<void>((resolve) => {
      let mapping: ReturnType<typeof skeletonFromDescription> | undefined;
      let rot = new Float64Array(0);
      let pos = new Float64Array(0);
      client.onFrame((frame) => {
        if (!client.modelDefinitions) return;
        if (!mapping) {
          mapping = skeletonFromDescription(client.modelDefinitions.skeletons[0]);
          rot = new Float64Array(4 * mapping.skeleton.boneCount);
          pos = new Float64Array(3 * mapping.skeleton.boneCount);
        }
        if (firstFrame < 0) firstFrame = frame.frameNumber;
        lastFrame = frame.frameNumber;
        const s = frame.findSkeleton(mapping.mapping.skeletonId);
        const written = frameSkeletonToPose(frame, s, mapping.mapping, rot, pos);
        if (written !== mapping.skeleton.boneCount) errors.push(frame.frameNumber);
        const expected = server.expectedPose(server.clipFrameOf(frame.frameNumber));
        // skeleton bone k has description id boneIds[k]; server bone j has id j + 1
        for (let k = 0; k < mapping.skeleton.boneCount; k++) {
          const j = mapping.mapping.boneIds[k] - 1;
          for (let c = 0; c < 4; c++)
            maxErr = Math.max(maxErr, Math.abs(rot[4 * k + c] - expected.rotations[4 * j + c]));
          for (let c = 0; c < 3; c++)
            maxPosErr = Math.max(maxPosErr, Math.abs(pos[3 * k + c] - expected.translations[3 * j + c]));
        }
        // and against the source itself: the decoded Motive pose's world rotations (FK on the skeleton
        // built from the description) equal the source bones' world rotations
        const sk = mapping.skeleton;
        const wr = new Float64Array(4 * sk.boneCount);
        const wp = new Float64Array(3 * sk.boneCount);
        forwardKinematics(sk, rot, pos, wr, wp);
        const n = clip.skeleton.boneCount;
        const sr = new Float64Array(4 * n);
        const sp = new Float64Array(3 * n);
        const swr = new Float64Array(4 * n);
        const swp = new Float64Array(3 * n);
        readFrame(clip, Math.min(clip.frameCount - 1, server.clipFrameOf(frame.frameNumber)), sr, sp);
        forwardKinematics(clip.skeleton, sr, sp, swr, swp);
        for (let k = 0; k < sk.boneCount; k++) {
          const sb = server.motiveBones[mapping.mapping.boneIds[k] - 1].sourceBone;
          maxSourceErr = Math.max(
            maxSourceErr,
            angleBetween(wr.subarray(4 * k, 4 * k + 4), swr.subarray(4 * sb, 4 * sb + 4)),
          );
        }
        checked++;
        if (checked >= FRAMES) resolve();
      });
    });
    const info = await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
    expect(info.natNetVersion.slice(0, 2)).toEqual(version.split('.').map(Number));
    let barrageSent = 0;
    if (barrage) {
      const sock = dgram.createSocket('udp4');
      const target = client.commandAddress!;
      const junk: Uint8Array[] = [
        new Uint8Array([7, 0, 200, 0, 1, 2, 3]), // truncated frame
        new Uint8Array([7, 0, 8, 0, 1, 0, 0, 0, 255, 255, 255, 127]), // huge marker set count
        new Uint8Array([5, 0, 4, 0, 255, 255, 255, 127]), // modeldef with a huge count
        new Uint8Array([99, 0, 0, 0]), // unknown id
        new Uint8Array([1]), // runt
      ];
      for (let i = 0; i < 200; i++) {
        await new Promise<void>((r) => sock.send(junk[i % junk.length], target.port, '127.0.0.1', () => r()));
        barrageSent++;
      }
      await new Promise<void>((r) => sock.close(() => r()));
    }
    await done;
    const stats = client.stats;
    return {
      stats,
      maxErr,
      maxPosErr,
      maxSourceErr,
      checked,
      errors,
      firstFrame,
      lastFrame,
      barrageSent,
      client,
      server,
    };
  } finally {
    await client.close();
    await server.close();
  }
}

d('NatNet loopback with a real take', () => {
  let clip: Clip;
  beforeAll(async () => {
    clip = (await loadSource(TAKE)).clip;
  });

  test('the server builds all 21 Motive body bones and the client maps them back to HumanBodyBones', async () => {
    const server = new NatNetReplayServer();
    await server.start({ clip, commandPort: 0, manual: true, version: '4.2' });
    try {
      const desc = server.skeletonDescription;
      const { skeleton } = skeletonFromDescription(desc);
      const names = new Set(desc.bones.map((b) => b.name.replace(/^Skeleton_/, '')));
      for (const m of MOTIVE_BODY_BONES) {
        expect(names.has(m)).toBe(true);
        const h = motiveBoneToHuman(m);
        expect(skeleton.humanoid[h]).toBeGreaterThanOrEqual(0);
        expect(skeleton.names[skeleton.humanoid[h]]).toBe(`Skeleton_${m}`);
      }
      // Chest came from the source's chest-like bone; no UpperChest in Motive
      expect(skeleton.humanoid[H.UpperChest]).toBe(-1);
      expect(HUMAN_BONE_NAMES[H.Chest]).toBe('Chest');
    } finally {
      await server.close();
    }
  });

  for (const version of ['4.1', '3.1', '4.2'] as const) {
    test(`version ${version}: ${FRAMES} frames, zero lost, rotations within 1e-6 of expectedPose`, async () => {
      const r = await run(clip, version);
      console.log(
        `NatNet loopback ${version}: ${r.checked} frames checked (frames ${r.firstFrame}..${r.lastFrame}), ` +
          `stats ${JSON.stringify(r.stats)}, max |dq| ${r.maxErr.toExponential(2)}, max |dp| ${r.maxPosErr.toExponential(2)} m, max world-rotation angle to the source ${r.maxSourceErr.toExponential(2)} rad`,
      );
      expect(r.checked).toBeGreaterThanOrEqual(FRAMES);
      expect(r.stats.lost).toBe(0);
      expect(r.stats.malformed).toBe(0);
      expect(r.stats.duplicates).toBe(0);
      expect(r.errors).toEqual([]);
      expect(r.maxErr).toBeLessThan(1e-6);
      expect(r.maxPosErr).toBeLessThan(1e-5);
      expect(r.maxSourceErr).toBeLessThan(1e-6);
      expect(r.maxErr).toBeGreaterThanOrEqual(0);
    });
  }

  test('forged packets: another address is ignored; an unasked SERVERINFO does not switch the version', async () => {
    const server = new NatNetReplayServer();
    const client = new NatNetClient();
    const socks: dgram.Socket[] = [];
    const bound = async (address: string) => {
      const s = dgram.createSocket('udp4');
      socks.push(s);
      await new Promise<void>((r) => s.bind(0, address, () => r()));
      return s;
    };
    try {
      const { port } = await server.start({ clip, commandPort: 0, version: '4.1', rate: 4 });
      let frames = 0;
      client.onFrame(() => {
        frames++;
      });
      await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
      const wait = async (n: number) => {
        const end = Date.now() + 120_000;
        while (frames < n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      };
      await wait(20);
      const target = client.commandAddress!;
      const info25 = encodeServerInfo({
        appName: 'Motive',
        appVersion: [2, 5, 0, 0],
        natNetVersion: [2, 5, 0, 0],
      });
      const future = new NatNetFrame();
      future.frameNumber = 1_000_000;
      const futureBytes = encodeFrame(future, { major: 4, minor: 1 });
      // from another address (127.0.0.2 is loopback too): a far-future frame and a 2.5 server info
      const other = await bound('127.0.0.2');
      for (const b of [futureBytes, info25])
        await new Promise<void>((r) => other.send(b, target.port, '127.0.0.1', () => r()));
      // from the server's own address, another port: an unasked server info
      const same = await bound('127.0.0.1');
      await new Promise<void>((r) => same.send(info25, target.port, '127.0.0.1', () => r()));
      const f0 = frames;
      await wait(f0 + 60);
      const st = client.stats;
      console.log(`NatNet forged packets: stats ${JSON.stringify(st)}`);
      expect(frames).toBeGreaterThanOrEqual(f0 + 60);
      expect(st.foreign).toBe(2);
      expect(st.malformed).toBe(0);
      expect(st.lost).toBe(0);
      expect(st.restarts).toBe(0);
    } finally {
      for (const s of socks) s.close();
      await client.close();
      await server.close();
    }
  });

  test('a malformed-packet barrage during streaming is counted and streaming continues', async () => {
    const r = await run(clip, '4.1', true);
    console.log(`NatNet barrage: sent ${r.barrageSent}, stats ${JSON.stringify(r.stats)}`);
    expect(r.stats.malformed).toBe(r.barrageSent);
    expect(r.checked).toBeGreaterThanOrEqual(FRAMES);
    expect(r.stats.lost).toBe(0);
    expect(r.maxErr).toBeLessThan(1e-6);
  });

  test('Bitstream request, echo and version change', async () => {
    const server = new NatNetReplayServer();
    const client = new NatNetClient();
    try {
      const { port } = await server.start({ clip, commandPort: 0, manual: true, version: '4.1' });
      await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
      expect(await client.request('Bitstream')).toEqual({ kind: 'text', text: '4.1.0.0' });
      expect(await client.request('Bitstream,3.1')).toEqual({ kind: 'int', value: 0 });
      expect(await client.request('Bitstream')).toEqual({ kind: 'text', text: '3.1.0.0' });
      expect(await client.request('Bitstream,9.9')).toEqual({ kind: 'int', value: 1 });
      expect(await client.request('NoSuchCommand')).toEqual({ kind: 'int', value: -1 });
      client.sendCommand(encodeEchoRequest(12345));
      expect(client.stats.malformed).toBe(0);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('NatNet loopback on the embedded default walk', () => {
  let clip: Clip;
  beforeAll(async () => {
    clip = (await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'))).clip;
  });

  /** Wait (polling) until `cond` holds, at most `ms`. */
  const until = async (cond: () => boolean, ms = 120_000) => {
    const end = Date.now() + ms;
    while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  };

  test('multicast: a connected client receives each frame once, from the group', async () => {
    const server = new NatNetReplayServer();
    const client = new NatNetClient();
    // a raw socket on the client's side counting every frame datagram that reaches the group's port
    const dataPort = 20000 + Math.floor(Math.random() * 20000);
    const seen: number[] = [];
    try {
      const { port } = await server.start({
        clip,
        commandPort: 0,
        manual: true,
        multicast: { address: '239.255.42.99', dataPort, interface: '127.0.0.1' },
      });
      const frames: number[] = [];
      client.onFrame((f) => {
        frames.push(f.frameNumber);
      });
      await client.connect({
        serverAddress: '127.0.0.1',
        commandPort: port,
        multicast: true,
        dataPort,
        localAddress: '127.0.0.1',
      });
      const cmd = client.commandAddress!;
      // everything the server sends to the client's command socket: only the replies, no frame
      const sock = (client as unknown as { command: dgram.Socket }).command;
      sock.prependListener('message', (m: Buffer) => {
        if (m[0] === 7) seen.push(m.readInt32LE(4));
      });
      expect(cmd.port).toBeGreaterThan(0);
      await client.requestModelDefinitions();
      for (let i = 0; i < 5; i++) {
        server.step(4);
        await until(() => frames.length >= 4 * (i + 1));
      }
      // a reply on the command socket comes after anything the server sent there before it
      await client.request('FrameRate');
      const st = client.stats;
      console.log(
        `NatNet multicast: frames ${frames.join(',')}; on the command socket ${seen.length}; stats ${JSON.stringify(st)}`,
      );
      expect(frames).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(seen).toEqual([]); // none unicast as well
      expect(st.duplicates).toBe(0);
      expect(st.received).toBe(20);
      expect(server.stats.framesStreamed).toBe(20);
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('FrameRate is answered and read as a float32 (the replay at rate 4 of a 30 fps clip: 120)', async () => {
    const server = new NatNetReplayServer();
    const client = new NatNetClient();
    try {
      const { port } = await server.start({ clip, commandPort: 0, manual: true, rate: 4 });
      await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
      const r = await client.request('FrameRate');
      expect(r.kind).toBe('float');
      expect((r as { value: number }).value).toBeCloseTo(4 / clip.frameTime, 3);
      expect(await client.request('Bitstream,9.9')).toEqual({ kind: 'int', value: 1 });
      expect(client.stats.malformed).toBe(0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  for (const boneMarkers of [false, true]) {
    test(`NatNet 3.0, skeleton bones ${boneMarkers ? 'with' : 'without'} marker blocks: the client reads the skeleton and its frames`, async () => {
      const server = new NatNetReplayServer();
      const client = new NatNetClient();
      try {
        const { port } = await server.start({
          clip,
          commandPort: 0,
          manual: true,
          version: '3.0',
          boneMarkers,
        });
        await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
        const defs = await client.requestModelDefinitions();
        expect(defs.boneMarkers).toBe(boneMarkers);
        expect(defs.skeletons[0].bones.map((b) => b.name)).toEqual(
          server.skeletonDescription.bones.map((b) => b.name),
        );
        const { skeleton, mapping } = skeletonFromDescription(defs.skeletons[0]);
        let posed = 0;
        client.onFrame((f) => {
          const rot = new Float64Array(4 * skeleton.boneCount);
          const pos = new Float64Array(3 * skeleton.boneCount);
          if (
            frameSkeletonToPose(f, f.findSkeleton(mapping.skeletonId), mapping, rot, pos) ===
            skeleton.boneCount
          )
            posed++;
        });
        server.step(3);
        await until(() => posed >= 3);
        expect(posed).toBe(3);
      } finally {
        await client.close();
        await server.close();
      }
    });
  }
});
