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
import { ACTIONS, errorReply, RemoteControl } from '../src/live/remote';
import { type Fixture, makeFixture } from './remote.fixture';
import { TestClient } from './remote.wsclient';

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HAS = has('mcs') && has('mono');
if (!HAS)
  console.warn(
    '[skip] Unity WebSocket server under Mono: mcs or mono not found (apt-get install mono-devel)',
  );

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
const nodeServers: RemoteServerHandle[] = [];

async function startHost(args: string[] = []): Promise<MonoHost> {
  const fx = makeFixture();
  const proc = spawn('mono', ['--debug', exe, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const host = new MonoHost(proc, fx, new RemoteControl(fx.characters));
  hosts.push(host);
  await host.until('the port line', () => host.port > 0);
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

/** A masked client text frame (RFC 6455 section 5.2), by hand. */
function textFrame(text: string, mask = [1, 2, 3, 4]): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const n = payload.length;
  const len = n < 126 ? Buffer.from([0x80 | n]) : Buffer.from([0x80 | 126, n >> 8, n & 0xff]);
  if (n > 0xffff) throw new Error('textFrame: up to 65535 bytes');
  const masked = payload.map((b, i) => b ^ mask[i % 4]);
  return Buffer.concat([Buffer.from([0x81]), len, Buffer.from(mask), masked]);
}

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
    const h = await startHost(['--max-message-bytes', '16384']);
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
    await h.until('the close log', () => h.count(/closed \(1009\)/) === 1);
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
  });

  it('a client that stops reading is dropped once more than maxQueuedPerClient replies wait; the others go on', async () => {
    const h = await startHost(['--max-queued', '4']);
    const a = await connect(h.url);
    const r = await rawHead(h.port, upgrade('/retargeting'));
    expect(statusOf(r.head)).toBe(101);
    r.socket.pause(); // reads nothing more: the replies fill the socket buffers, then the server's queue
    const request = textFrame(JSON.stringify({ action: 'getCharacterData', characterName: 'Alice' }));
    // at most 4000 requests (about 30 MB of replies, more than loopback buffers hold); stop once dropped
    for (let i = 0; i < 40 && h.count(/dropping the client/) === 0; i++) {
      const batch = Buffer.concat(Array.from({ length: 100 }, () => request));
      const sent = await new Promise<boolean>((resolve) => r.socket.write(batch, (e) => resolve(!e)));
      if (!sent) break;
      await h.until(
        'the batch to be handled',
        () => h.handled.length >= (i + 1) * 100 || h.count(/dropping the client/) > 0,
      );
    }
    await h.until(
      'the slow client to be dropped',
      () => h.count(/^1 unity-2: more than 4 messages waiting; dropping the client/) === 1,
    );
    await h.until('the slow client to be closed', () => h.count(/unity-2 closed/) === 1);
    a.send({ action: 'refresh', id: 'still' });
    await a.until((m) => m.length === 1, WAIT);
    expect(a.messages[0]).toMatchObject({ id: 'still', ok: true });
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
