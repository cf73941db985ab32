/**
 * The Unity package's remote-control WebSocket server (Runtime/Bridge/KindWebSocketServer.cs, the socket
 * side of RetargetingRemoteController) compiled with Mono's mcs and run under plain Mono, with
 * test/fixtures/KindWebSocketHost.cs in the component's place: its main thread calls Pump, and each text
 * message goes to this process, which answers with the real protocol (RemoteControl of src/live/remote)
 * the way the bundle's remote(text, clientId) does in Unity. Clients are `ws` (test/remote.wsclient.ts)
 * and raw sockets, on loopback. The Node server (src/live/node/remoteServer.ts) is the reference:
 * the same messages must give the same replies and broadcasts through both.
 * Skipped with a printed reason without `mcs`/`mono` (Debian: apt-get install mono-devel).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { type RemoteServerHandle, startRemoteServer } from '../src/live/node/remoteServer';
import { ACTIONS, DEFAULT_MAX_MESSAGE_BYTES, errorReply, RemoteControl } from '../src/live/remote';
import { monoAvailable } from './helpers/mono';
import { clientFrame, RawWs, textOf } from './rawws';
import { type Fixture, makeFixture } from './remote.fixture';
import { TestClient } from './remote.wsclient';

const HAS = monoAvailable('Unity WebSocket server');

const repo = path.resolve(__dirname, '../..');
const SERVER_CS = path.join(repo, 'Packages/com.kind.retargeting/Runtime/Bridge/KindWebSocketServer.cs');
const HOST_CS = path.join(__dirname, 'fixtures/KindWebSocketHost.cs');
const WAIT = 20000; // failure guard only (a busy 2-core machine), never an assertion on time

/** The Mono host process with the real protocol behind it. */
class MonoHost {
  readonly logs: string[] = [];
  /** Client ids in the order their messages reached the protocol. */
  readonly handled: string[] = [];
  port = 0;
  /** The server's message size limit (the host's S line). */
  maxMessageBytes = 0;
  /** The server's PeakQueuedBytes (the host's Q lines). */
  peakQueued = 0;
  private waiters: (() => void)[] = [];
  private exited = false;

  constructor(
    readonly proc: ChildProcess,
    readonly fx: Fixture,
    readonly control: RemoteControl,
  ) {
    proc.stderr!.on('data', (d) => this.logs.push(`stderr: ${d}`));
    proc.on('exit', () => {
      this.exited = true;
      this.wake();
    });
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (line.startsWith('P ')) this.port = Number(line.slice(2));
      else if (line.startsWith('S ')) this.maxMessageBytes = Number(line.slice(2));
      else if (line.startsWith('Q ')) this.peakQueued = Number(line.slice(2));
      else if (line.startsWith('L ')) this.logs.push(line.slice(2));
      else if (line.startsWith('M ')) {
        const [, clientId, b64] = line.split(' ');
        this.handled.push(clientId);
        const r = this.control.handle(Buffer.from(b64, 'base64').toString('utf8'), clientId);
        const enc = (s: string | undefined) =>
          s === undefined ? '-' : Buffer.from(s, 'utf8').toString('base64');
        proc.stdin!.write(`R ${enc(r.reply)} ${enc(r.broadcast)}\n`);
      } else this.logs.push(`unexpected: ${line}`);
      this.wake();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Wait (event-driven) until `pred` holds; fails after the guard or when the host exits. */
  async until(what: string, pred: () => boolean, ms = WAIT): Promise<void> {
    const end = Date.now() + ms;
    while (!pred()) {
      if (this.exited)
        throw new Error(`mono host exited while waiting for ${what}; log: ${this.logs.join(' | ')}`);
      const left = end - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; log: ${this.logs.slice(-5).join(' | ')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  count(re: RegExp): number {
    return this.logs.filter((l) => re.test(l)).length;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/retargeting`;
  }

  problems(): string[] {
    return this.logs.filter(
      (l) => l.startsWith('1 ') || l.startsWith('stderr') || l.startsWith('unexpected'),
    );
  }
}

let exe = '';
let tmp = '';
const hosts: MonoHost[] = [];
const clients: TestClient[] = [];
const sockets: net.Socket[] = [];
const raws: RawWs[] = [];
function raw(port: number, headers: Record<string, string> = {}): RawWs {
  const r = RawWs.open(port, '/retargeting', headers);
  raws.push(r);
  return r;
}
const nodeServers: RemoteServerHandle[] = [];

async function startHost(args: string[] = []): Promise<MonoHost> {
  const fx = makeFixture();
  const proc = spawn('mono', ['--debug', exe, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const host = new MonoHost(proc, fx, new RemoteControl(fx.characters));
  hosts.push(host);
  await host.until('the port lines', () => host.port > 0 && host.maxMessageBytes > 0);
  return host;
}

function client(url: string, headers?: Record<string, string>): TestClient {
  const c = new TestClient(url, headers);
  c.ws.on('error', () => {}); // a refused or cut client: the test looks at open()/closed()
  clients.push(c);
  return c;
}

async function connect(url: string, headers?: Record<string, string>): Promise<TestClient> {
  const c = client(url, headers);
  await c.open();
  return c;
}

/** Sends raw bytes, resolves with the response head (status line and headers). */
function rawHead(port: number, request: string): Promise<{ head: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(request, 'latin1'));
    sockets.push(s);
    let buf = '';
    s.on('data', (d) => {
      buf += d.toString('latin1');
      const i = buf.indexOf('\r\n\r\n');
      if (i >= 0) resolve({ head: buf.slice(0, i), socket: s });
    });
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed before a response head: ${JSON.stringify(buf)}`)));
  });
}

const upgrade = (target: string, extra = '', key = 'dGhlIHNhbXBsZSBub25jZQ==') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

const statusOf = (head: string) => Number(head.split(' ')[1]);

beforeAll(() => {
  if (!HAS) return;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'kind-ws-mono-'));
  exe = path.join(tmp, 'KindWebSocketHost.exe');
  // as tools/check-csharp.mjs compiles the package: C# 7, warnings are errors, System.dll for the sockets
  execFileSync(
    'mcs',
    [
      '-nologo',
      '-langversion:7',
      '-warnaserror+',
      '-debug',
      '-r:System.dll',
      '-r:System.Core.dll',
      `-out:${exe}`,
      SERVER_CS,
      HOST_CS,
    ],
    { stdio: 'pipe' },
  );
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of sockets.splice(0)) s.destroy();
  for (const r of raws.splice(0)) r.destroy();
  for (const s of nodeServers.splice(0)) await s.close();
  for (const h of hosts.splice(0)) {
    h.proc.kill();
  }
});

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** One script through a server: a sends every action (and bad messages), b only listens. */
async function runScript(url: string): Promise<{ a: unknown[]; b: unknown[] }> {
  const a = await connect(url);
  const b = await connect(url);
  // b is surely open on the server before a's first broadcast: its own refresh came back
  b.send({ action: 'refresh', id: 'b0' });
  await b.until((m) => m.length === 1, WAIT);
  const script: (unknown | Buffer)[] = [
    { action: 'refresh', id: 1 },
    { action: 'getCharacterData', id: 2, characterName: 'Alice' },
    { action: 'updateValueRealtime', id: 3, characterName: 'Alice', property: 'avatarScale', value: 1.2 },
    { action: 'setHandPosePreset', id: 4, characterName: 'Bob', hand: 'left', preset: 'rock' },
    { action: 'calibrateIPose', id: 5, characterName: 'Alice' },
    { action: 'resetCalibration', id: 6, characterName: 'Bob' },
    { action: 'calibrateHeadForward', id: 7, characterName: 'Bob' },
    { action: 'autoCalibrateAll', id: 8, characterName: 'Bob' },
    { action: 'getCharacterData', id: 9, characterName: 'Bob' },
    'this is not JSON',
    Buffer.from([0x7b, 0x7d]), // binary
    { action: 'fly', id: 11 },
    { action: 'updateValueRealtime', id: 12, characterName: 'Alice', property: 'avatarScale', value: 99 },
    { action: 'calibrateIPose', id: 13, characterName: 'Carol' }, // no frame yet: an error
    `{"action":"refresh","id":"${'é'.repeat(100)}"}`, // multi-byte UTF-8 both ways
  ];
  for (const m of script) {
    if (Buffer.isBuffer(m)) a.ws.send(m, { binary: true });
    else a.send(m);
  }
  await a.until((m) => m.length === script.length, WAIT);
  // broadcasts: one per applied change (3 updates/presets/calibrations each send one); wait for all 6
  await b.until((m) => m.length === 1 + 6, WAIT);
  return { a: a.messages, b: b.messages.slice(1) };
}

(HAS ? describe : describe.skip)('KindWebSocketServer (Unity remote controller) under Mono', () => {
  it("answers the RFC 6455 handshake (the RFC's own key and accept value) and refuses bad upgrades", async () => {
    const h = await startHost();
    // RFC 6455 section 1.3: key dGhlIHNhbXBsZSBub25jZQ== gives s3pPLMBiTxaQ9kYGzzhZRbK+xOo=
    const ok = await rawHead(h.port, upgrade('/retargeting'));
    expect(ok.head.split('\r\n')).toEqual([
      'HTTP/1.1 101 Switching Protocols',
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=',
    ]);
    const refusals: [string, string, number, RegExp?][] = [
      ['wrong path', upgrade('/other'), 404],
      ['path with a trailing slash', upgrade('/retargeting/'), 404],
      ['missing key', upgrade('/retargeting').replace(/Sec-WebSocket-Key: .*\r\n/, ''), 400],
      ['key not 16 bytes', upgrade('/retargeting', '', 'c2hvcnQ='), 400],
      ['plain HTTP GET', 'GET /retargeting HTTP/1.1\r\nHost: x\r\n\r\n', 426, /Sec-WebSocket-Version: 13/],
      [
        'version 8',
        upgrade('/retargeting').replace('Version: 13', 'Version: 8'),
        426,
        /Sec-WebSocket-Version: 13/,
      ],
      ['POST', upgrade('/retargeting').replace('GET', 'POST'), 405],
      ['HTTP/1.0', upgrade('/retargeting').replace('HTTP/1.1', 'HTTP/1.0'), 400],
      ['garbage', 'hello\r\n\r\n', 400],
      ['head too long', `GET /retargeting HTTP/1.1\r\nX: ${'a'.repeat(9000)}\r\n\r\n`, 400],
    ];
    for (const [what, request, status, header] of refusals) {
      const r = await rawHead(h.port, request);
      expect([what, statusOf(r.head)]).toEqual([what, status]);
      if (header) expect(r.head).toMatch(header);
    }
    // and through ws: 404 on another path
    await expect(connect(h.url.replace('/retargeting', '/other'))).rejects.toThrow('HTTP 404');
    await h.until('the refusal logs', () => h.count(/^0 refused/) === refusals.length + 1);
    expect(h.problems()).toEqual([]);
  });

  it('every action of the protocol, bad messages and broadcasts: the same replies, in order, as the Node server', async () => {
    const node = await startRemoteServer({ control: new RemoteControl(makeFixture().characters), port: 0 });
    nodeServers.push(node);
    const want = await runScript(node.url);
    const h = await startHost();
    const got = await runScript(h.url);
    expect(got).toEqual(want);
    // the script's replies came back in the order sent, each action answered ok at least once
    const a = got.a as { id?: unknown; action: unknown; ok: boolean }[];
    expect(a.map((m) => m.id)).toEqual([
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      undefined,
      undefined,
      11,
      12,
      13,
      'é'.repeat(100),
    ]);
    for (const action of ACTIONS)
      expect([action, a.some((m) => m.action === action && m.ok)]).toEqual([action, true]);
    // the binary message got the Node server's error reply, byte for byte the C# constant
    expect(a[10]).toEqual(
      JSON.parse(errorReply(null, { field: '$', message: 'need a text message (JSON)' })),
    );
    expect(a[9]).toMatchObject({ ok: false, error: { field: '$' } });
    // the changes reached the hubs behind the Mono server
    expect(h.fx.hubs.get('Alice')!.settings.avatarScale).toBe(1.2);
    expect((got.b as { action: string }[]).map((m) => m.action)).toEqual([
      'valueChanged',
      'characterDataChanged',
      'characterDataChanged',
      'characterDataChanged',
      'characterDataChanged',
      'characterDataChanged',
    ]);
    expect(h.problems()).toEqual([]);
  });

  it('a message over the size cap closes that client with 1009 (as the Node server); the others go on', async () => {
    const h = await startHost(); // the default: the protocol's limit
    expect(h.maxMessageBytes).toBe(DEFAULT_MAX_MESSAGE_BYTES); // one limit for transport and protocol
    expect(DEFAULT_MAX_MESSAGE_BYTES).toBe(16384);
    const node = await startRemoteServer({ control: new RemoteControl(makeFixture().characters), port: 0 });
    nodeServers.push(node);
    const codes: number[] = [];
    for (const url of [node.url, h.url]) {
      const big = await connect(url);
      const other = await connect(url);
      const closed = big.closed();
      // exactly at the cap passes (an error reply: not JSON), one byte over closes
      big.send('x'.repeat(16384));
      await big.until((m) => m.length === 1, WAIT);
      expect(big.messages[0]).toMatchObject({ ok: false, error: { field: '$' } });
      big.send('x'.repeat(16385));
      codes.push(await closed);
      other.send({ action: 'refresh', id: 'after' });
      await other.until((m) => m.length === 1, WAIT);
      expect(other.messages[0]).toMatchObject({ id: 'after', ok: true });
    }
    expect(codes).toEqual([1009, 1009]);
    // the C# close frame names the limit (a raw client reads the reason)
    const r = raw(h.port);
    expect(await r.answered()).toBe(101);
    await r.send(textOf('x'.repeat(16385)));
    expect(await r.closeFrame()).toEqual({ code: 1009, reason: 'message larger than 16384 bytes' });
    await r.send(clientFrame(8, Buffer.from([0x03, 0xf1]))); // the close handshake's answer (1009)
    await h.until('the close logs', () => h.count(/closed \(1009\)/) === 2);
    expect(h.problems()).toEqual([]);
  });

  it('64 clients at once all served, the 65th refused with 503; a closed client frees its slot', async () => {
    const h = await startHost();
    const all = await Promise.all(Array.from({ length: 64 }, () => connect(h.url)));
    await expect(connect(h.url)).rejects.toThrow('HTTP 503');
    for (const [i, c] of all.entries()) c.send({ action: 'refresh', id: i });
    await Promise.all(all.map((c) => c.until((m) => m.length === 1, WAIT)));
    for (const [i, c] of all.entries())
      expect(c.messages[0]).toMatchObject({ action: 'refresh', id: i, ok: true });
    // one change: its reply to the sender, the broadcast to the 63 others
    all[0].send({ action: 'updateValueRealtime', characterName: 'Bob', property: 'avatarScale', value: 0.8 });
    await Promise.all(all.map((c) => c.until((m) => m.length === 2, WAIT)));
    expect(all[0].messages[1]).toMatchObject({ action: 'updateValueRealtime', ok: true, value: 0.8 });
    for (const c of all.slice(1))
      expect(c.messages[1]).toEqual({
        action: 'valueChanged',
        characterName: 'Bob',
        property: 'avatarScale',
        value: 0.8,
      });
    // a clean close (close handshake) frees the slot
    const gone = all[5].closed();
    all[5].ws.close(1000);
    expect(await gone).toBe(1000);
    await h.until('the close log', () => h.count(/ closed \(1000\)/) === 1);
    const again = await connect(h.url);
    again.send({ action: 'refresh', id: 'again' });
    await again.until((m) => m.length === 1, WAIT);
    expect(again.messages[0]).toMatchObject({ id: 'again', ok: true });
    expect(h.count(/refused .*: 503/)).toBe(1);
    expect(h.problems()).toEqual([]);
  });

  it('a client that vanishes mid-frame (socket destroyed) does not stop the server, and its slot is freed', async () => {
    const h = await startHost(['--max-clients', '2']);
    const a = await connect(h.url);
    // the vanishing client: a handshake by hand, then half of a masked text frame, then the socket is cut
    const v = await rawHead(h.port, upgrade('/retargeting'));
    expect(statusOf(v.head)).toBe(101);
    await h.until('two clients', () => h.count(/connected from/) === 2);
    await expect(connect(h.url)).rejects.toThrow('HTTP 503'); // full
    const payload = Buffer.from(JSON.stringify({ action: 'refresh', id: 'never' }));
    const frame = Buffer.concat([
      Buffer.from([0x81, 0x80 | payload.length, 1, 2, 3, 4]),
      payload.subarray(0, 10),
    ]);
    await new Promise<void>((resolve) => v.socket.write(frame, () => resolve()));
    v.socket.destroy();
    await h.until('the vanished client to be closed', () => h.count(/unity-2 closed/) === 1);
    // its slot is free again, and the first client never noticed
    const c = await connect(h.url);
    a.send({ action: 'refresh', id: 'a' });
    await a.until((m) => m.length === 1, WAIT);
    c.send({ action: 'refresh', id: 'c' });
    await c.until((m) => m.length === 1, WAIT);
    expect([a.messages[0].id, c.messages[0].id]).toEqual(['a', 'c']);
    // the half frame never reached the protocol
    expect(h.handled).toEqual(['unity-1', 'unity-3']);
    // a connection that vanishes in the middle of its request head does not count either
    const half = net.connect(h.port, '127.0.0.1');
    sockets.push(half);
    await new Promise<void>((resolve) =>
      half.on('connect', () => half.write('GET /retarg', () => resolve())),
    );
    half.destroy();
    a.send({ action: 'refresh', id: 'a2' });
    await a.until((m) => m.length === 2, WAIT);
    expect(h.handled).toEqual(['unity-1', 'unity-3', 'unity-1']);
    // an abrupt disconnect is normal: logged as information, not as a problem
    expect(h.problems()).toEqual([]);
  });

  it('clients that stop reading are dropped once their send queue would pass the byte cap; the queue never does; the others go on', async () => {
    const CAP = 65536;
    const h = await startHost(['--max-queued-bytes', String(CAP)]);
    const a = await connect(h.url);
    const N = 4; // non-reading clients asking for character data (the case, fewer for a 2-core box)
    const slow = Array.from({ length: N }, () => raw(h.port));
    for (const r of slow) {
      expect(await r.answered()).toBe(101);
      r.socket.pause(); // reads nothing more: the replies fill the socket buffers, then the server's queue
    }
    const request = textOf({ action: 'getCharacterData', characterName: 'Alice' });
    const batch = Buffer.concat(Array.from({ length: 100 }, () => request));
    const dropped = () => h.count(/send queue would go over 65536 bytes .*dropping the client/);
    // at most 4000 requests each (about 30 MB of replies, more than loopback buffers hold); stop once all dropped
    for (let i = 0; i < 40 && dropped() < N; i++) {
      const before = h.handled.length;
      const droppedBefore = dropped();
      let sent = 0;
      for (const r of slow)
        if (!r.ended && (await new Promise<boolean>((ok) => r.socket.write(batch, (e) => ok(!e))))) sent++;
      if (sent === 0) break;
      // every batch handled, or a client dropped during it (the rest of a dropped client's batch is
      // never handled: waiting for the full count then only ran into the guard on a busy machine)
      await h.until(
        'the batches to be handled or a client dropped',
        () => h.handled.length >= before + sent * 100 || dropped() > droppedBefore,
      );
    }
    await h.until('every slow client to be dropped', () => dropped() === N);
    await h.until('the slow clients to be closed', () => h.count(/unity-[2-5] closed/) === N);
    // the bound: never more than the cap queued for one client (replies are ~7.5 KB: it did fill up)
    expect(h.peakQueued).toBeGreaterThan(CAP / 2);
    expect(h.peakQueued).toBeLessThanOrEqual(CAP);
    a.send({ action: 'refresh', id: 'still' });
    await a.until((m) => m.length === 1, WAIT);
    expect(a.messages[0]).toMatchObject({ id: 'still', ok: true });
  });

  it('Origin: a web page not on the allow-list gets 403 and sets nothing; allowed origins and clients without Origin work', async () => {
    const h = await startHost(['--allow-origin', 'http://127.0.0.1:8064']);
    const before = h.fx.hubs.get('Alice')!.settings.avatarScale;
    const evil = raw(h.port, { Origin: 'https://evil.example' });
    expect(await evil.answered()).toBe(403);
    expect(evil.head).toMatch(/^HTTP\/1\.1 403 Forbidden/);
    // the refused page's message (it may try anyway) never reaches the protocol
    await evil.send(
      textOf({ action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 3 }),
    );
    await evil.until('the refused connection to end', () => evil.ended);
    expect(h.handled).toEqual([]);
    expect(h.fx.hubs.get('Alice')!.settings.avatarScale).toBe(before);
    // the allowed page (case and a trailing slash aside) and a script without Origin both set values
    for (const headers of [{ Origin: 'HTTP://127.0.0.1:8064/' }, {}] as Record<string, string>[]) {
      const ok = raw(h.port, headers);
      expect(await ok.answered()).toBe(101);
      await ok.send(
        textOf({
          action: 'updateValueRealtime',
          id: 1,
          characterName: 'Alice',
          property: 'avatarScale',
          value: 1.1,
        }),
      );
      await ok.until('the reply', () => ok.texts().length === 1);
      expect(ok.texts()[0]).toMatchObject({ ok: true, value: 1.1 });
    }
    expect(h.fx.hubs.get('Alice')!.settings.avatarScale).toBe(1.1);
    // "null" (a file:// page) is a browser origin too
    const file = raw(h.port, { Origin: 'null' });
    expect(await file.answered()).toBe(403);
    await h.until(
      'the refusal logs',
      () => h.count(/^0 refused .*: 403 \(origin .* is not on the allow-list/) === 2,
    );
    expect(h.problems()).toEqual([]);
    // the default allow-list is empty: no web page at all
    const d = await startHost();
    const page = raw(d.port, { Origin: 'http://127.0.0.1:8064' });
    expect(await page.answered()).toBe(403);
  });

  it('an unmasked client frame is a protocol error: close 1002, never handled (RFC 6455 section 5.1)', async () => {
    const h = await startHost();
    const before = h.fx.hubs.get('Alice')!.settings.avatarScale;
    const r = raw(h.port);
    expect(await r.answered()).toBe(101);
    await r.send(
      textOf(
        { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 2 },
        null,
      ),
    );
    expect(await r.closeFrame()).toEqual({
      code: 1002,
      reason: 'unmasked client frame (RFC 6455 section 5.1)',
    });
    await r.until('the connection to end', () => r.ended);
    expect(r.texts()).toEqual([]);
    expect(h.handled).toEqual([]);
    expect(h.fx.hubs.get('Alice')!.settings.avatarScale).toBe(before);
    await h.until('the close log', () => h.count(/unity-1 closed \(1002\)/) === 1);
    expect(h.count(/unity-1: unmasked client frame .*; closed with 1002/)).toBe(1);
    // a masked one on another connection is answered as ever
    const ok = raw(h.port);
    expect(await ok.answered()).toBe(101);
    await ok.send(textOf({ action: 'refresh', id: 'm' }));
    await ok.until('the reply', () => ok.texts().length === 1);
    expect(ok.texts()[0]).toMatchObject({ id: 'm', ok: true });
    expect(h.problems()).toEqual([]);
  });

  it('with a token: 401 without it or with a wrong one; accepted as ?token= or the x-kind-token header', async () => {
    const h = await startHost(['--token', 's3cret&x']);
    await expect(connect(h.url)).rejects.toThrow('HTTP 401');
    await expect(connect(`${h.url}?token=wrong`)).rejects.toThrow('HTTP 401');
    await expect(connect(h.url, { 'x-kind-token': 's3cret&' })).rejects.toThrow('HTTP 401');
    const a = await connect(`${h.url}?token=${encodeURIComponent('s3cret&x')}`);
    const b = await connect(h.url, { 'x-kind-token': 's3cret&x' });
    a.send({ action: 'refresh' });
    b.send({ action: 'refresh' });
    await Promise.all([a.until((m) => m.length === 1, WAIT), b.until((m) => m.length === 1, WAIT)]);
    expect([a.messages[0].ok, b.messages[0].ok]).toEqual([true, true]);
    expect(h.count(/refused .*: 401/)).toBe(3);
  });
});
