/**
 * Issue 21 part 4 on the Node servers (the remote control, the live viewer, the puppet page server),
 * with a raw TCP client (test/rawws.ts; no `ws` on the client side, so the test sets the Origin header
 * and the mask bit): a page from another site gets 403 and changes nothing; the project's own pages,
 * allowed origins and clients without Origin work; an unmasked frame closes with 1002; a message over
 * the one size limit (DEFAULT_MAX_MESSAGE_BYTES, the protocol's and the Unity server's) closes with
 * 1009 and the log names the limit; clients that stop reading never hold more than the byte cap plus
 * one message. Waits are on events; the time bounds are failure guards only.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type PuppetServer, startPuppetServer } from '../src/cli/puppetServe';
import { type RemoteServerHandle, startRemoteServer } from '../src/live/node/remoteServer';
import { startViewerServer, type ViewerServer, type ViewerSkeleton } from '../src/live/node/viewerServer';
import { DEFAULT_MAX_MESSAGE_BYTES, RemoteControl } from '../src/live/remote';
import { RawWs, textOf } from './rawws';
import { type Fixture, makeFixture } from './remote.fixture';

const raws: RawWs[] = [];
const closers: (() => Promise<void>)[] = [];
function raw(port: number, headers: Record<string, string> = {}, p = '/retargeting'): RawWs {
  const r = RawWs.open(port, p, headers);
  raws.push(r);
  return r;
}
function get(port: number, p: string, headers: Record<string, string> = {}): RawWs {
  const r = RawWs.get(port, p, headers);
  raws.push(r);
  return r;
}
afterEach(async () => {
  for (const r of raws.splice(0)) r.destroy();
  for (const c of closers.splice(0)) await c();
});

/** Messages the protocol handled, and waiters woken on each (the event the byte-cap test waits on). */
let handled = 0;
let onHandled: (() => void)[] = [];
async function untilHandled(n: number): Promise<void> {
  const end = Date.now() + 120000; // failure guard only
  while (handled < n) {
    if (Date.now() > end) throw new Error(`timed out: ${handled} of ${n} messages handled`);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 1000);
      onHandled.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

async function remote(
  opts: Partial<Parameters<typeof startRemoteServer>[0]> = {},
): Promise<{ s: RemoteServerHandle; fx: Fixture; logs: string[] }> {
  const fx = makeFixture();
  const logs: string[] = [];
  const control = new RemoteControl(fx.characters);
  const handle = control.handle.bind(control);
  control.handle = (text, id) => {
    const r = handle(text, id);
    handled++;
    const w = onHandled;
    onHandled = [];
    for (const f of w) f();
    return r;
  };
  const s = await startRemoteServer({
    control,
    port: 0,
    log: (l) => logs.push(l),
    ...opts,
  });
  closers.push(() => s.close());
  return { s, fx, logs };
}

const setScale = (value: number, id: unknown = 1) => ({
  action: 'updateValueRealtime',
  id,
  characterName: 'Alice',
  property: 'avatarScale',
  value,
});

describe('remote control (Node) under a raw client', () => {
  it('a page from another site gets 403 and sets nothing; the viewer, allowed origins and scripts work', async () => {
    const { s, fx, logs } = await remote({ allowedOrigins: ['https://tools.example'] });
    const before = fx.hubs.get('Alice')!.settings.avatarScale;
    for (const origin of [
      'https://evil.example',
      'null',
      'http://127.0.0.1:8064',
      'http://evil.example:8064',
    ]) {
      const evil = raw(s.port, { Origin: origin });
      expect([origin, await evil.answered()]).toEqual([origin, 403]);
      await evil.send(textOf(setScale(3)));
      await evil.until('the refused connection to end', () => evil.ended);
    }
    expect(s.stats().messages).toBe(0);
    expect(fx.hubs.get('Alice')!.settings.avatarScale).toBe(before);
    expect(logs.filter((l) => / 403 \(origin .* is not on the allow-list\)/.test(l))).toHaveLength(4);
    // the viewer's own page once its port is known (as kind live does), by loopback name or address
    s.allowPagePort(8064);
    const allowed: Record<string, string>[] = [
      { Origin: 'http://127.0.0.1:8064' },
      { Origin: 'http://localhost:8064' },
      { Origin: 'https://tools.example' },
      {}, // a script: no Origin
    ];
    for (const [i, headers] of allowed.entries()) {
      const ok = raw(s.port, headers);
      expect(await ok.answered()).toBe(101);
      await ok.send(textOf(setScale(1.1 + i / 100, i)));
      await ok.until('the reply', () => ok.texts().length === 1);
      expect(ok.texts()[0]).toMatchObject({ id: i, ok: true });
    }
    expect(fx.hubs.get('Alice')!.settings.avatarScale).toBeCloseTo(1.13, 10);
    // a name that resolves to this machine (DNS rebinding) is not the viewer
    const rebound = raw(s.port, { Origin: 'http://attacker.example:8064' });
    expect(await rebound.answered()).toBe(403);
  });

  it('an unmasked client frame closes with 1002 and is never handled', async () => {
    const { s, fx, logs } = await remote();
    const before = fx.hubs.get('Alice')!.settings.avatarScale;
    const r = raw(s.port);
    expect(await r.answered()).toBe(101);
    await r.send(textOf(setScale(2), null));
    expect((await r.closeFrame()).code).toBe(1002);
    expect(r.texts()).toEqual([]);
    expect(s.stats().messages).toBe(0);
    expect(fx.hubs.get('Alice')!.settings.avatarScale).toBe(before);
    await r.until('the end', () => r.ended);
    expect(logs.some((l) => /c1 sent an unmasked frame .*closing with 1002/.test(l))).toBe(true);
  });

  it('one size limit: the protocol default; one byte over closes with 1009 and the log names the limit', async () => {
    const { s, logs } = await remote();
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(16384);
    const r = raw(s.port);
    expect(await r.answered()).toBe(101);
    await r.send(textOf('x'.repeat(DEFAULT_MAX_MESSAGE_BYTES))); // at the limit: an error reply (not JSON)
    await r.until('the reply', () => r.texts().length === 1);
    expect(r.texts()[0]).toMatchObject({ ok: false });
    await r.send(textOf('x'.repeat(DEFAULT_MAX_MESSAGE_BYTES + 1)));
    expect((await r.closeFrame()).code).toBe(1009);
    expect(logs.some((l) => l === 'remote: c1 sent a message over 16384 bytes; closing with 1009')).toBe(
      true,
    );
  });

  it('10 clients that ask for character data and never read: each stays under the byte cap plus one message', async () => {
    const CAP = 64 * 1024;
    const { s, fx } = await remote({
      maxBufferedBytes: CAP,
      maxMessagesPerSecond: 1e9, // no rate limit here: the point is the queue
      maxTotalMessagesPerSecond: 1e9,
      slowClientTimeoutMs: 1e9, // skipped, not closed, during the test
    });
    const ask = { action: 'getCharacterData', characterName: 'Alice' };
    const replyBytes = Buffer.byteLength(
      new RemoteControl(fx.characters).handle(JSON.stringify(ask), 'x').reply,
    );
    const N = 10;
    const slow = Array.from({ length: N }, () => raw(s.port));
    for (const r of slow) {
      expect(await r.answered()).toBe(101);
      r.socket.pause(); // reads nothing more
    }
    const batch = Buffer.concat(Array.from({ length: 100 }, () => textOf(ask)));
    // until replies are being skipped (buffers over the cap); at most 40 batches each
    for (let i = 0; i < 40 && s.stats().skippedSlow < N; i++) {
      const want = handled + N * 100;
      await Promise.all(slow.map((r) => r.send(batch)));
      await untilHandled(want);
    }
    const st = s.stats();
    expect(st.skippedSlow).toBeGreaterThanOrEqual(N);
    expect(st.peakBufferedBytes).toBeGreaterThan(CAP); // it did fill up
    expect(st.peakBufferedBytes).toBeLessThanOrEqual(CAP + replyBytes); // and never past one message over
  });
});

function chain(name: string, n: number): ViewerSkeleton {
  return {
    name,
    boneNames: Array.from({ length: n }, (_, i) => `${name}_b${i}`),
    parents: Array.from({ length: n }, (_, i) => i - 1),
    restTranslations: Array.from({ length: 3 * n }, (_, i) => (i % 3 === 1 ? 0.1 : 0)),
    restRotations: Array.from({ length: 4 * n }, (_, i) => (i % 4 === 3 ? 1 : 0)),
  };
}

describe('page servers: Origin', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-origin-'));
    fs.writeFileSync(path.join(tmp, 'index.html'), '<!doctype html><title>page</title>');
    fs.writeFileSync(path.join(tmp, 'viewer.js'), 'export {};');
    fs.writeFileSync(path.join(tmp, 'puppet.js'), 'export {};');
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('viewer: its own page and scripts are served; another site gets 403 on the page, the scene and the pose stream', async () => {
    const logs: string[] = [];
    const v: ViewerServer = await startViewerServer({
      scene: {
        source: chain('s', 3),
        avatars: [chain('a', 3)],
        remote: { url: 'ws://127.0.0.1:1/retargeting' },
      },
      port: 0,
      webRoot: tmp,
      allowedOrigins: ['https://tools.example'],
      log: (l) => logs.push(l),
    });
    closers.push(() => v.close());
    const own = `http://127.0.0.1:${v.port}`;
    for (const [headers, status] of [
      [{}, 200],
      [{ Origin: own }, 200],
      [{ Origin: 'https://tools.example' }, 200],
      [{ Origin: 'https://evil.example' }, 403],
    ] as [Record<string, string>, number][]) {
      expect([headers, await get(v.port, '/scene.json', headers).answered()]).toEqual([headers, status]);
      const ws = raw(v.port, headers, '/pose');
      expect([headers, await ws.answered()]).toEqual([headers, status === 200 ? 101 : 403]);
    }
    expect(
      logs.filter((l) => /403 \(origin https:\/\/evil\.example is not on the allow-list\)/.test(l)),
    ).toHaveLength(2);
  });

  it('puppet page server: the same rule', async () => {
    const logs: string[] = [];
    const p: PuppetServer = await startPuppetServer({
      port: 0,
      webRoot: tmp,
      defaultDir: path.join(tmp, 'none'),
      log: (l) => logs.push(l),
    });
    closers.push(() => p.close());
    expect(await get(p.port, '/config.json').answered()).toBe(200);
    expect(await get(p.port, '/config.json', { Origin: `http://localhost:${p.port}` }).answered()).toBe(200);
    expect(await get(p.port, '/config.json', { Origin: 'https://evil.example' }).answered()).toBe(403);
    expect(await get(p.port, '/', { Origin: 'null' }).answered()).toBe(403);
    expect(logs).toHaveLength(2);
  });
});
