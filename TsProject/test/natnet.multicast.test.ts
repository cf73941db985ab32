/**
 * NatNet multicast as Motive advertises it (issue 15, item 7), on loopback only: the replay server
 * streams to a group and data port that are not Motive's defaults (239.255.42.100 and a random port),
 * advertised in its NAT_SERVERINFO, from 127.0.0.1 with multicast TTL 0 (the datagrams cannot leave this
 * machine); the client, told only `multicast: true`, must join that group on that port. Also: overrides of
 * the group and port, the one-line reason when nothing arrives (a multicast server and a unicast client,
 * and the reverse), frames that come before NAT_SERVERINFO (held, decoded with the advertised version), and
 * `kind live` exiting 1 with that reason when no frame came. Where multicast on loopback cannot be set up
 * (a probe datagram to the group does not come back), the multicast cases are skipped with the reason
 * printed. No traffic goes to any address but 127.0.0.1 and the groups below, on `lo`.
 */
import * as dgram from 'node:dgram';
import * as path from 'node:path';
import type { Clip } from '../src/core';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import {
  encodeFrame,
  encodeServerInfo,
  NatNetFrame,
  NatNetMessage,
  type NatNetVersion,
} from '../src/live/natnet';
import { NatNetClient, whyNoFrames } from '../src/live/node/natnetClient';
import { NatNetReplayServer } from '../src/live/node/natnetServer';
import { runKind } from './helpers/runCli';

const GROUP = '239.255.42.100';
const OTHER_GROUP = '239.255.42.101';
const AVATAR = path.resolve(__dirname, '../assets/default/default-avatar.glb');
const randomPort = () => 20000 + Math.floor(Math.random() * 40000);

/** Wait (polling) until `cond` holds, at most `ms` (a failure guard, not a timing assertion). */
async function until(cond: () => boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

/** A socket on 127.0.0.1 that sends to multicast groups on loopback only (TTL 0: never off this machine). */
async function loopbackSender(): Promise<dgram.Socket> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  s.setMulticastInterface('127.0.0.1');
  s.setMulticastTTL(0);
  s.setMulticastLoopback(true);
  return s;
}

/** Null when a datagram sent to GROUP on loopback comes back to a socket that joined it there; else why not. */
async function probeLoopbackMulticast(): Promise<string | null> {
  const port = randomPort();
  const r = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  let s: dgram.Socket | undefined;
  try {
    await new Promise<void>((res, rej) => {
      r.once('error', rej);
      r.bind(port, () => res());
    });
    r.addMembership(GROUP, '127.0.0.1');
    s = await loopbackSender();
    const got = new Promise<boolean>((res) => {
      const t = setTimeout(() => res(false), 30_000);
      r.once('message', () => {
        clearTimeout(t);
        res(true);
      });
    });
    s.send('probe', port, GROUP);
    return (await got) ? null : `a datagram to ${GROUP}:${port} on lo did not come back`;
  } catch (e) {
    return `multicast on loopback cannot be set up here (${(e as Error).message})`;
  } finally {
    r.close();
    s?.close();
  }
}

/** A 4.1 frame with one skeleton of one bone at (1, 2, 3) and the given number. */
function oneBoneFrame(frameNumber: number): NatNetFrame {
  const f = new NatNetFrame();
  f.clear();
  f.frameNumber = frameNumber;
  f.setSkeletonCount(1);
  f.skeletonIds[0] = 1;
  f.skeletonBoneStart[0] = 0;
  f.skeletonBoneCount[0] = 1;
  f.setBoneCount(1);
  f.boneIds[0] = (1 << 16) | 1;
  f.bonePose.set([1, 2, 3, 0, 0, 0, 1], 0);
  f.boneParams[0] = 1;
  f.timestamp = 0.5;
  f.stampTransmit = 12345;
  return f;
}

describe('whyNoFrames: one line from the advertised stream and how the client listens', () => {
  const base = { advertisedGroup: GROUP, advertisedDataPort: 15111 };
  test('each mismatch names the fix', () => {
    expect(whyNoFrames({ ...base, advertisedMulticast: true, multicast: false })).toBe(
      `the server says it streams multicast to ${GROUP}:15111; add --multicast`,
    );
    expect(
      whyNoFrames({ ...base, advertisedMulticast: false, multicast: true, group: GROUP, dataPort: 15111 }),
    ).toBe('the server says it streams unicast; leave out --multicast');
    expect(
      whyNoFrames({ ...base, advertisedMulticast: true, multicast: true, group: GROUP, dataPort: 1511 }),
    ).toBe(
      `the server says it streams multicast to ${GROUP}:15111, not ${GROUP}:1511; leave out --multicast-group and --data-port, or set them to that`,
    );
    expect(
      whyNoFrames({ ...base, advertisedMulticast: true, multicast: true, group: GROUP, dataPort: 15111 }),
    ).toMatch(
      /^the server streams multicast to 239\.255\.42\.100:15111 and this client joined it, but nothing arrived: is Motive streaming/,
    );
    expect(whyNoFrames({ ...base, advertisedMulticast: false, multicast: false })).toMatch(
      /^the server streams unicast to this client, but nothing arrived/,
    );
    expect(whyNoFrames({ ...base, multicast: false })).toMatch(/NatNet before 3\.0.*try --multicast$/);
    expect(whyNoFrames(undefined)).toMatch(/no NAT_SERVERINFO/);
  });
});

describe('frames that arrive before NAT_SERVERINFO', () => {
  test('are held and decoded with the advertised version (4.1), not counted as malformed', async () => {
    // a server that answers the connect with a frame first, then the server info (as a busy one may)
    const v41: NatNetVersion = { major: 4, minor: 1 };
    const server = dgram.createSocket('udp4');
    await new Promise<void>((r) => server.bind(0, '127.0.0.1', () => r()));
    server.on('message', (m, r) => {
      if (m.readUInt16LE(0) !== NatNetMessage.Connect) return;
      server.send(encodeFrame(oneBoneFrame(5), v41), r.port, r.address);
      server.send(encodeFrame(oneBoneFrame(6), v41), r.port, r.address);
      server.send(
        encodeServerInfo({
          appName: 'early frames',
          appVersion: [3, 1, 0, 0],
          natNetVersion: [4, 1, 0, 0],
          highResClockFrequency: 10_000_000,
          dataPort: 1511,
          isMulticast: false,
          multicastAddress: '239.255.42.99',
        }),
        r.port,
        r.address,
      );
    });
    const client = new NatNetClient();
    const seen: { n: number; x: number; z: number; transmit: number }[] = [];
    client.onFrame((f) => {
      seen.push({ n: f.frameNumber, x: f.bonePose[0], z: f.bonePose[2], transmit: f.stampTransmit });
    });
    try {
      await client.connect({ serverAddress: '127.0.0.1', commandPort: server.address().port });
      const st = client.stats;
      expect(st.malformed).toBe(0);
      expect(st.received).toBe(2);
      expect(seen).toEqual([
        { n: 5, x: 1, z: 3, transmit: 12345 },
        { n: 6, x: 1, z: 3, transmit: 12345 },
      ]);
      expect(client.version).toEqual(v41);
    } finally {
      await client.close();
      server.close();
    }
  });
});

describe('NatNet multicast on loopback, as the server advertises it', () => {
  let clip: Clip;
  let skip: string | null = null;
  beforeAll(async () => {
    clip = (await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'))).clip;
    skip = await probeLoopbackMulticast();
    if (skip) console.warn(`[skip] NatNet multicast on loopback: ${skip}`);
  });

  /** A replay server streaming multicast to GROUP:dataPort on loopback (TTL 0), advertising them. */
  async function multicastServer(dataPort: number, manual = true) {
    const server = new NatNetReplayServer();
    const { port } = await server.start({
      clip,
      commandPort: 0,
      manual,
      multicast: { address: GROUP, dataPort, interface: '127.0.0.1', ttl: 0 },
    });
    return { server, port };
  }

  test('a client told only "multicast" joins the advertised group and data port and gets every frame', async () => {
    if (skip) return;
    const dataPort = randomPort();
    const { server, port } = await multicastServer(dataPort);
    const client = new NatNetClient();
    const frames: number[] = [];
    client.onFrame((f) => {
      frames.push(f.frameNumber);
    });
    try {
      const info = await client.connect({ serverAddress: '127.0.0.1', commandPort: port, multicast: true });
      expect([info.isMulticast, info.multicastAddress, info.dataPort]).toEqual([true, GROUP, dataPort]);
      expect(client.streamSetup).toEqual({
        advertisedMulticast: true,
        advertisedGroup: GROUP,
        advertisedDataPort: dataPort,
        multicast: true,
        group: GROUP,
        dataPort,
      });
      for (let i = 0; i < 5; i++) {
        server.step(4);
        await until(() => frames.length >= 4 * (i + 1));
      }
      expect(frames).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(client.stats.malformed).toBe(0);
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('multicastAddress and dataPort override the advertised ones', async () => {
    if (skip) return;
    const { server, port } = await multicastServer(randomPort());
    const otherPort = randomPort();
    const client = new NatNetClient();
    const frames: number[] = [];
    client.onFrame((f) => {
      frames.push(f.frameNumber);
    });
    const sender = await loopbackSender();
    try {
      await client.connect({
        serverAddress: '127.0.0.1',
        commandPort: port,
        multicast: true,
        multicastAddress: OTHER_GROUP,
        dataPort: otherPort,
      });
      expect([client.streamSetup?.group, client.streamSetup?.dataPort]).toEqual([OTHER_GROUP, otherPort]);
      // the server's own frames go to the advertised group, which this client did not join
      server.step(3);
      // a frame to the overriding group and port (from 127.0.0.1, the server's address) arrives
      sender.send(encodeFrame(oneBoneFrame(77), { major: 4, minor: 1 }), otherPort, OTHER_GROUP);
      await until(() => frames.length >= 1);
      // a command round trip: the server's frames, sent before its reply, would have come by now
      await client.request('FrameRate');
      expect(frames).toEqual([77]);
      expect(client.whyNoFrames()).toBe(
        `the server says it streams multicast to ${GROUP}:${client.streamSetup?.advertisedDataPort}, not ${OTHER_GROUP}:${otherPort}; leave out --multicast-group and --data-port, or set them to that`,
      );
    } finally {
      sender.close();
      await client.close();
      await server.close();
    }
  });

  test('a unicast client gets nothing from a multicast server, and is told to add --multicast', async () => {
    if (skip) return;
    const dataPort = randomPort();
    const { server, port } = await multicastServer(dataPort);
    const client = new NatNetClient();
    let frames = 0;
    client.onFrame(() => {
      frames++;
    });
    try {
      await client.connect({ serverAddress: '127.0.0.1', commandPort: port });
      server.step(5);
      await client.request('FrameRate');
      expect(frames).toBe(0);
      expect(server.stats.framesStreamed).toBe(5);
      expect(client.whyNoFrames()).toBe(
        `the server says it streams multicast to ${GROUP}:${dataPort}; add --multicast`,
      );
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('kind live: without --multicast exits 1 saying why; with it, frames; a bad group is a usage error', async () => {
    if (skip) return;
    const dataPort = randomPort();
    const { server, port } = await multicastServer(dataPort, false);
    const args = [
      'live',
      '--natnet',
      '127.0.0.1',
      '--command-port',
      String(port),
      '--avatar',
      AVATAR,
      '--remote-port',
      '0',
      '--viewer-port',
      '0',
    ];
    try {
      let r = await runKind([...args, '--duration', '1']);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        new RegExp(
          `^kind: no NatNet frame in \\d+\\.\\d s: the server says it streams multicast to 239\\.255\\.42\\.100:${dataPort}; add --multicast$`,
        ),
      );
      expect(r.out).toMatch(/stopped: 0 frames/);
      r = await runKind([...args, '--multicast', '--duration', '2']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const n = Number(/stopped: (\d+) frames/.exec(r.out)?.[1]);
      expect(n).toBeGreaterThan(0);
      r = await runKind([...args, '--multicast-group', OTHER_GROUP, '--duration', '1']);
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        `: the server says it streams multicast to ${GROUP}:${dataPort}, not ${OTHER_GROUP}:${dataPort}; leave out --multicast-group and --data-port`,
      );
      r = await runKind([...args, '--multicast-group', '10.1.2.3']);
      expect([r.code, r.err]).toEqual([
        2,
        expect.stringMatching(/--multicast-group: 10\.1\.2\.3 is not a multicast address/),
      ]);
      r = await runKind([...args, '--data-port', '0']);
      expect([r.code, r.err]).toEqual([2, expect.stringMatching(/--data-port: 0 is out of range/)]);
    } finally {
      await server.close();
    }
  });
});
