/**
 * The live viewer's server: the fixed route table (page, bundle, scene, avatar files; 404 for every
 * other path and for traversal attempts), the /pose stream (decoded values equal what was published),
 * back-pressure (a client that never reads does not slow publish nor starve the others) and the
 * allocation-free packing.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import WebSocket from 'ws';
import {
  decodePoseMessage,
  poseMessageFloats,
  startViewerServer,
  type ViewerFrame,
  type ViewerScene,
  type ViewerServer,
  type ViewerSkeleton,
  viewerSkeleton,
} from '../src/live/node/viewerServer';
import { runAllocProbe } from './helpers/allocProbe';

const AVATAR = path.resolve(__dirname, '../assets/default/default-avatar.glb');

function chain(name: string, n: number, modelUrl?: string): ViewerSkeleton {
  return {
    name,
    boneNames: Array.from({ length: n }, (_, i) => `${name}_b${i}`),
    parents: Array.from({ length: n }, (_, i) => i - 1),
    restTranslations: Array.from({ length: 3 * n }, (_, i) => (i % 3 === 1 ? 0.1 : 0)),
    restRotations: Array.from({ length: 4 * n }, (_, i) => (i % 4 === 3 ? 1 : 0)),
    ...(modelUrl ? { modelUrl } : {}),
  };
}

function sceneOf(sourceBones: number, avatarBones: number[]): ViewerScene {
  return {
    source: chain('source', sourceBones),
    avatars: avatarBones.map((n, i) => chain(`avatar${i}`, n, i === 0 ? '/avatars/0.glb' : undefined)),
    remote: { url: 'ws://127.0.0.1:1/retargeting', token: 'secret' },
  };
}

/** A frame of pseudo-random values (seeded) for `scene`. */
function frameOf(scene: ViewerScene, seed: number, frameNumber: number): ViewerFrame {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) / 2 ** 32) * 4 - 2;
  };
  const arr = (k: number) => Float64Array.from({ length: k }, rnd);
  const S = scene.source.boneNames.length;
  return {
    frameNumber,
    timestamp: frameNumber / 120,
    latencyMs: 0.5 + (frameNumber % 7) * 0.25,
    dropped: frameNumber % 3,
    fps: 120,
    source: { rotations: arr(4 * S), translations: arr(3 * S) },
    avatars: scene.avatars.map((a) => ({
      rotations: arr(4 * a.boneNames.length),
      translations: arr(3 * a.boneNames.length),
      scales: arr(2),
    })),
  };
}

function expectDecoded(data: Float32Array, f: ViewerFrame): void {
  const d = decodePoseMessage(data);
  const same = (got: ArrayLike<number>, want: ArrayLike<number>) => {
    expect(got.length).toBe(want.length);
    for (let i = 0; i < want.length; i++) expect(got[i]).toBe(Math.fround(want[i]));
  };
  expect(d.frameNumber).toBe(f.frameNumber);
  expect(d.timestamp).toBe(Math.fround(f.timestamp));
  expect(d.latencyMs).toBe(Math.fround(f.latencyMs));
  expect(d.dropped).toBe(f.dropped);
  expect(d.fps).toBe(f.fps);
  same(d.source.rotations, f.source.rotations);
  same(d.source.translations, f.source.translations);
  expect(d.avatars.length).toBe(f.avatars.length);
  f.avatars.forEach((a, i) => {
    same(d.avatars[i].rotations, a.rotations);
    same(d.avatars[i].translations, a.translations);
    same(d.avatars[i].scales, a.scales);
  });
}

/** Raw HTTP request: the path goes on the wire exactly as given (no client-side normalisation). */
function rawGet(port: number, rawPath: string, method = 'GET'): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(`${method} ${rawPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    sock.on('data', (c) => chunks.push(c));
    sock.on('error', reject);
    sock.on('end', () => {
      const all = Buffer.concat(chunks);
      const head = all.subarray(0, all.indexOf('\r\n\r\n')).toString();
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0);
      resolve({ status, body: all.subarray(all.indexOf('\r\n\r\n') + 4) });
    });
  });
}

function get(url: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: Buffer.concat(chunks),
          }),
        );
      })
      .on('error', reject);
  });
}

function openClient(url: string): Promise<{ ws: WebSocket; messages: Float32Array[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const messages: Float32Array[] = [];
    ws.binaryType = 'arraybuffer';
    ws.on('message', (data) => messages.push(new Float32Array(data as ArrayBuffer)));
    ws.on('open', () => resolve({ ws, messages }));
    ws.on('error', reject);
  });
}

const tick = () => new Promise<void>((r) => setImmediate(r));

async function until(cond: () => boolean, ms = 30000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('viewer server routes', () => {
  let dir: string;
  let server: ViewerServer;
  const scene = sceneOf(3, [4, 5]);
  const page = '<!doctype html><title>test page</title>';
  const bundle = 'console.log("viewer bundle");';

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-viewer-'));
    fs.writeFileSync(path.join(dir, 'index.html'), page);
    fs.writeFileSync(path.join(dir, 'viewer.js'), bundle);
    server = await startViewerServer({ scene, files: { '/avatars/0.glb': AVATAR }, port: 0, webRoot: dir });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page, the bundle, the scene and the avatar files', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    for (const p of ['', 'index.html', 'index.html?x=1']) {
      const r = await get(server.url + p);
      expect(r.status).toBe(200);
      expect(r.type).toMatch(/^text\/html/);
      expect(r.body.toString()).toBe(page);
    }
    const js = await get(`${server.url}viewer.js`);
    expect(js.status).toBe(200);
    expect(js.type).toMatch(/^text\/javascript/);
    expect(js.body.toString()).toBe(bundle);
    const sj = await get(`${server.url}scene.json`);
    expect(sj.status).toBe(200);
    const parsed = JSON.parse(sj.body.toString());
    expect(parsed.source).toEqual(scene.source);
    expect(parsed.avatars).toEqual(scene.avatars);
    expect(parsed.remote).toEqual(scene.remote);
    expect(parsed.layout).toEqual({
      version: 1,
      headerFloats: 8,
      scalesPerAvatar: 2,
      floats: poseMessageFloats(scene),
    });
    expect(parsed.layout.floats).toBe(8 + 2 * 2 + 7 * 3 + 7 * 4 + 2 + 7 * 5 + 2);
    const glb = await get(`${server.url}avatars/0.glb`);
    expect(glb.status).toBe(200);
    expect(glb.type).toBe('model/gltf-binary');
    expect(Buffer.compare(glb.body, fs.readFileSync(AVATAR))).toBe(0);
  });

  it('answers 404 for every other path, traversal attempts included, and 405 for other methods', async () => {
    const bad = [
      '/nope',
      '/viewer.js.map', // not built in this web root
      '/../package.json',
      '/%2e%2e/package.json',
      '/%2E%2E%2Fpackage.json',
      '/avatars/../scene.json',
      '/avatars/..%2f..%2fpackage.json',
      '/avatars/0.glb/..',
      '/avatars/',
      '/avatars/1.glb',
      '//etc/passwd',
      '/index.html%00',
      '/..\\package.json',
      '/pose',
      `/${path.relative('/', AVATAR)}`,
      AVATAR,
    ];
    for (const p of bad) {
      const r = await rawGet(server.port, p);
      expect([p, r.status]).toEqual([p, 404]);
      expect(r.body.toString()).not.toContain('"name"');
    }
    expect((await rawGet(server.port, '/scene.json', 'POST')).status).toBe(405);
    expect((await rawGet(server.port, '/scene.json', 'HEAD')).status).toBe(200);
    // a WebSocket upgrade anywhere but /pose is refused
    await expect(openClient(`ws://127.0.0.1:${server.port}/scene.json`)).rejects.toThrow(/404/);
  });

  it('rejects a bad scene or files table at start, naming the field', async () => {
    const broken = sceneOf(3, [4]);
    broken.avatars[0].parents[2] = 5;
    await expect(startViewerServer({ scene: broken, port: 0, webRoot: dir })).rejects.toThrow(
      /scene\.avatars\[0\]\.parents\[2\] \(avatar0_b2\)/,
    );
    const short = sceneOf(3, [4]);
    short.source.restRotations.pop();
    await expect(startViewerServer({ scene: short, port: 0, webRoot: dir })).rejects.toThrow(
      /scene\.source\.restRotations: length 11, expected 12/,
    );
    await expect(
      startViewerServer({ scene, port: 0, webRoot: dir, files: { '/a/../b.glb': AVATAR } }),
    ).rejects.toThrow(/must start with '\/' and contain no '\.\.'/);
    await expect(
      startViewerServer({ scene, port: 0, webRoot: dir, files: { '/scene.json': AVATAR } }),
    ).rejects.toThrow(/clashes with a built-in path/);
    await expect(
      startViewerServer({ scene, port: 0, webRoot: dir, files: { '/x.glb': path.join(dir, 'missing.glb') } }),
    ).rejects.toThrow(/no such file/);
  });

  it('viewerSkeleton copies a core skeleton', () => {
    const s = viewerSkeleton('walk', {
      boneCount: 2,
      names: ['Hips', 'Spine'],
      parents: Int32Array.from([-1, 0]),
      restTranslations: Float64Array.from([0, 1, 0, 0, 0.1, 0]),
      restRotations: Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1]),
      humanoid: Int32Array.from({ length: 55 }, (_, i) => (i === 0 ? 0 : i === 7 ? 1 : -1)),
    });
    expect(s).toEqual({
      name: 'walk',
      boneNames: ['Hips', 'Spine'],
      parents: [-1, 0],
      restTranslations: [0, 1, 0, 0, 0.1, 0],
      restRotations: [0, 0, 0, 1, 0, 0, 0, 1],
      humanoid: Array.from({ length: 55 }, (_, i) => (i === 0 ? 0 : i === 7 ? 1 : -1)),
    });
  });
});

describe('viewer server /pose stream', () => {
  it('every client gets each frame as a binary message decoding to the published values', async () => {
    const scene = sceneOf(6, [5, 9, 1]);
    const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
    try {
      const url = `ws://127.0.0.1:${server.port}/pose`;
      const a = await openClient(url);
      const b = await openClient(url);
      await until(() => server.clientCount() === 2);
      const frames: ViewerFrame[] = [];
      for (let i = 0; i < 200; i++) {
        const f = frameOf(scene, 1000 + i, i);
        frames.push(f);
        server.publish(f);
        if (i % 3 === 0) await tick();
      }
      await until(() => a.messages.length === 200 && b.messages.length === 200);
      for (const c of [a, b]) {
        c.messages.forEach((m, i) => {
          expect(m.length).toBe(poseMessageFloats(scene));
          expectDecoded(m, frames[i]);
        });
      }
      // reading clients keep up: the pool holds a few buffers, reused frame after frame
      const st = server.stats();
      expect(st.frames).toBe(200);
      expect(st.sent).toBe(400);
      expect(st.skipped).toBe(0);
      expect(st.buffers).toBeLessThanOrEqual(2);
      a.ws.close();
      await until(() => server.clientCount() === 1);
      b.ws.terminate();
      await until(() => server.clientCount() === 0);
      server.publish(frameOf(scene, 1, 200)); // no clients: fine
    } finally {
      await server.close();
    }
  });

  it('raw beside filtered on demand: /pose?raw=1 gets layout 2 with the raw source, /pose keeps layout 1', async () => {
    const scene = sceneOf(6, [5, 9]);
    const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
    try {
      const plain = await openClient(`ws://127.0.0.1:${server.port}/pose`);
      const raw = await openClient(`ws://127.0.0.1:${server.port}/pose?raw=1`);
      await until(() => server.clientCount() === 2);
      const frames: ViewerFrame[] = [];
      for (let i = 0; i < 50; i++) {
        const f = frameOf(scene, 77 + i, i);
        const r = frameOf(scene, 5000 + i, i); // a raw pose unlike the filtered one
        if (i !== 7) f.rawSource = r.source; // frame 7: a host without a raw pose sends source in its place
        frames.push(f);
        server.publish(f);
        if (i % 3 === 0) await tick();
      }
      await until(() => plain.messages.length === 50 && raw.messages.length === 50);
      const S = 6;
      frames.forEach((f, i) => {
        // the plain client: layout 1 exactly as before (the length its counts need, no raw part)
        const m1 = plain.messages[i];
        expect(m1[0]).toBe(1);
        expect(m1.length).toBe(poseMessageFloats(scene));
        expectDecoded(m1, f);
        expect(decodePoseMessage(m1).rawSource).toBeUndefined();
        // the raw client: layout 2 = layout 1's content, then the raw source
        const m2 = raw.messages[i];
        expect(m2[0]).toBe(2);
        expect(m2.length).toBe(poseMessageFloats(scene) + 7 * S);
        expect(Array.from(m2.subarray(1, m1.length))).toEqual(Array.from(m1.subarray(1)));
        expectDecoded(m2, f);
        const d = decodePoseMessage(m2);
        const want = f.rawSource ?? f.source;
        expect(Array.from(d.rawSource?.rotations ?? [])).toEqual(Array.from(want.rotations, Math.fround));
        expect(Array.from(d.rawSource?.translations ?? [])).toEqual(
          Array.from(want.translations, Math.fround),
        );
      });
      // an unknown version is a clear error
      const bad = Float32Array.from(raw.messages[0]);
      bad[0] = 3;
      expect(() => decodePoseMessage(bad)).toThrow('pose message: layout version 3, expected 1 or 2');
      plain.ws.terminate();
      raw.ws.terminate();
    } finally {
      await server.close();
    }
  });

  it('round-trips frames of other shapes: no avatar, many bones, frame numbers up to 2^24', async () => {
    for (const [S, avatars] of [
      [1, []],
      [31, [52, 1, 70]],
    ] as [number, number[]][]) {
      const scene = sceneOf(S, avatars);
      const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
      try {
        const c = await openClient(`ws://127.0.0.1:${server.port}/pose`);
        const frames = Array.from({ length: 20 }, (_, i) => frameOf(scene, 77 + i, 2 ** 24 - 20 + i));
        for (const f of frames) server.publish(f);
        await until(() => c.messages.length === frames.length);
        c.messages.forEach((m, i) => {
          expectDecoded(m, frames[i]);
        });
        c.ws.close();
      } finally {
        await server.close();
      }
    }
  });

  it('rejects a frame with short arrays, naming the field', async () => {
    const scene = sceneOf(3, [4]);
    const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
    try {
      const f = frameOf(scene, 5, 0);
      f.avatars[0].translations = new Float64Array(11);
      expect(() => server.publish(f)).toThrow(/avatar translations has 11 values, expected 12/);
      const g = frameOf(scene, 5, 0);
      g.avatars = [];
      expect(() => server.publish(g)).toThrow(/0 avatars, the scene has 1/);
    } finally {
      await server.close();
    }
  });

  it('a client that never reads does not block publish, and the others still get every frame', async () => {
    // ~34 KB per frame: 1500 frames are ~50 MB, far more than the socket buffers of a stuck client
    const scene = sceneOf(55, [300, 300, 300, 300]);
    const bytes = 4 * poseMessageFloats(scene);
    const server = await startViewerServer({ scene, port: 0, webRoot: os.tmpdir() });
    try {
      const url = `ws://127.0.0.1:${server.port}/pose`;
      const stuck = await openClient(url);
      // stop reading: the TCP receive window fills, then the server's send buffer
      (stuck.ws as unknown as { _socket: net.Socket })._socket.pause();
      const reader = await openClient(url);
      await until(() => server.clientCount() === 2);
      // publish never waits for a client (it returns before the next frame is made): what shows that
      // without a clock is that the stuck client's queue stays bounded while the reader gets every frame
      // in order; the time a publish takes is a figure of `npm run bench -- live`
      const frames = 1500;
      const f = frameOf(scene, 9, 0);
      for (let i = 0; i < frames; i++) {
        f.frameNumber = i;
        // the frame number in the payload too: a buffer overwritten while queued would not match
        (f.source.rotations as Float64Array)[0] = i;
        (f.avatars[3].scales as Float64Array)[1] = i;
        server.publish(f);
        await tick();
      }
      await until(() => reader.messages.length === frames, 60000);
      reader.messages.forEach((m, i) => {
        expect(m[1]).toBe(i);
      });
      const st = server.stats();
      console.log(
        `viewer publish with one stuck client (${(bytes / 1024).toFixed(1)} KB/frame, ${frames} frames): stuck client skipped ${st.skipped} frames; buffers in pool ${st.buffers}`,
      );
      expect(st.skipped).toBeGreaterThan(frames / 2);
      expect(st.sent).toBe(frames + (frames - st.skipped));
      // the stuck client holds at most its queue's worth of buffers (256 KiB limit + one message)
      expect(st.buffers).toBeLessThanOrEqual(Math.ceil((256 * 1024) / bytes) + 3);
      // the stuck client reads again: what was queued for it arrives intact, and new frames follow
      (stuck.ws as unknown as { _socket: net.Socket })._socket.resume();
      await until(() => stuck.messages.length === frames - st.skipped);
      for (let i = 0; i < 20; i++) {
        f.frameNumber = frames + i;
        (f.source.rotations as Float64Array)[0] = frames + i;
        (f.avatars[3].scales as Float64Array)[1] = frames + i;
        server.publish(f);
        await tick();
      }
      await until(() => stuck.messages.length === frames - st.skipped + 20);
      let prev = -1;
      for (const m of stuck.messages) {
        const d = decodePoseMessage(m);
        expect(d.source.rotations[0]).toBe(d.frameNumber);
        expect(d.avatars[3].scales[1]).toBe(d.frameNumber);
        expect(d.frameNumber).toBeGreaterThan(prev);
        prev = d.frameNumber;
      }
      expect(prev).toBe(frames + 19);
      stuck.ws.terminate();
      reader.ws.close();
    } finally {
      await server.close();
    }
  });

  it('publish allocates nothing per frame (no client; measured in a plain Node process)', () => {
    const file = path.resolve(__dirname, '../src/live/node/viewerServer');
    const result = runAllocProbe(`
      import { startViewerServer } from ${JSON.stringify(file)};
      const n = 60;
      const sk = (name: string) => ({ name, boneNames: Array.from({ length: n }, (_, i) => 'b' + i),
        parents: Array.from({ length: n }, (_, i) => i - 1), restTranslations: new Array(3 * n).fill(0),
        restRotations: Array.from({ length: 4 * n }, (_, i) => (i % 4 === 3 ? 1 : 0)) });
      const scene = { source: sk('s'), avatars: [sk('a'), sk('b')], remote: { url: 'ws://x' } };
      const arr = (k: number) => Float64Array.from({ length: k }, (_, i) => Math.sin(i));
      const av = () => ({ rotations: arr(4 * n), translations: arr(3 * n), scales: arr(2) });
      const frame = { frameNumber: 0, timestamp: 0, latencyMs: 1, dropped: 0, fps: 120,
        source: { rotations: arr(4 * n), translations: arr(3 * n) }, avatars: [av(), av()] };
      startViewerServer({ scene, port: 0 }).then((s) => {
        const r = { publishBytes: bytesPerCall(() => { frame.frameNumber++; s.publish(frame); }) };
        console.log(JSON.stringify(r));
        return s.close();
      }).then(() => process.exit(0));
    `);
    console.log(`viewer publish (no client, 3 x 60 bones): ${result.publishBytes.toFixed(2)} bytes/frame`);
    expect(result.publishBytes).toBeLessThan(16);
  });
});
