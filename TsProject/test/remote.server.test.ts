/**
 * The remote-control WebSocket server over real sockets: replies, broadcasts to the other clients
 * only, token, bind address, size and rate caps, binary messages, a client that never reads.
 */
import { type RemoteServerHandle, startRemoteServer } from '../src/live/node/remoteServer';
import { RemoteControl } from '../src/live/remote';
import { makeFixture } from './remote.fixture';
import { sleep, TestClient } from './remote.wsclient';

const servers: RemoteServerHandle[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function start(opts: Partial<Parameters<typeof startRemoteServer>[0]> = {}) {
  const fx = makeFixture();
  const server = await startRemoteServer({ control: new RemoteControl(fx.characters), port: 0, ...opts });
  servers.push(server);
  return { fx, server };
}

async function connect(url: string, headers?: Record<string, string>): Promise<TestClient> {
  const c = new TestClient(url, headers);
  clients.push(c);
  await c.open();
  return c;
}

describe('remote server', () => {
  it('binds 127.0.0.1 by default and replies on /retargeting', async () => {
    const { server } = await start();
    expect(server.url).toBe(`ws://127.0.0.1:${server.port}/retargeting`);
    expect(server.port).toBeGreaterThan(0);
    const a = await connect(server.url);
    a.send({ action: 'refresh', id: 1 });
    await a.until((m) => m.length === 1);
    expect(a.messages[0]).toMatchObject({
      action: 'refresh',
      id: 1,
      ok: true,
      characters: ['Alice', 'Bob', 'Carol'],
    });
    // another path is refused
    await expect(connect(server.url.replace('/retargeting', '/other'))).rejects.toThrow('HTTP 404');
  });

  it('sends the broadcast to every other client and not to the sender', async () => {
    const { server, fx } = await start();
    const [a, b, c] = await Promise.all([connect(server.url), connect(server.url), connect(server.url)]);
    await sleep(20);
    expect(server.clientCount()).toBe(3);
    a.send({
      action: 'updateValueRealtime',
      id: 'x',
      characterName: 'Alice',
      property: 'avatarScale',
      value: 1.2,
    });
    const changed = { action: 'valueChanged', characterName: 'Alice', property: 'avatarScale', value: 1.2 };
    await Promise.all([
      b.until((m) => m.length === 1),
      c.until((m) => m.length === 1),
      a.until((m) => m.length === 1),
    ]);
    expect(b.messages).toEqual([changed]);
    expect(c.messages).toEqual([changed]);
    expect(a.messages).toEqual([
      {
        action: 'updateValueRealtime',
        id: 'x',
        ok: true,
        characterName: 'Alice',
        property: 'avatarScale',
        value: 1.2,
      },
    ]);
    expect(fx.hubs.get('Alice')!.settings.avatarScale).toBe(1.2);
    // a calibration: the others are told to re-fetch
    b.send({ action: 'resetCalibration', characterName: 'Bob' });
    await Promise.all([
      a.until((m) => m.length === 2),
      c.until((m) => m.length === 2),
      b.until((m) => m.length === 2),
    ]);
    expect(a.messages[1]).toEqual({ action: 'characterDataChanged', characterName: 'Bob' });
    expect(c.messages[1]).toEqual({ action: 'characterDataChanged', characterName: 'Bob' });
    expect(b.messages[1]).toMatchObject({ action: 'resetCalibration', ok: true });
    // an error is not broadcast
    c.send({ action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 9 });
    await c.until((m) => m.length === 3);
    await sleep(50);
    expect(c.messages[2]).toMatchObject({ ok: false, error: { field: 'value' } });
    expect([a.messages.length, b.messages.length]).toEqual([2, 2]);
    expect(server.stats()).toMatchObject({ clients: 3, messages: 3, replies: 3, broadcastsSent: 4 });
  });

  it('with a token: refused without it or with a wrong one (401), accepted in the URL or the header', async () => {
    const { server } = await start({ token: 's3cret' });
    await expect(connect(server.url)).rejects.toThrow('HTTP 401');
    await expect(connect(`${server.url}?token=wrong`)).rejects.toThrow('HTTP 401');
    await expect(connect(server.url, { 'x-kind-token': 's3cre' })).rejects.toThrow('HTTP 401');
    const a = await connect(`${server.url}?token=s3cret`);
    const b = await connect(server.url, { 'x-kind-token': 's3cret' });
    a.send({ action: 'refresh' });
    b.send({ action: 'refresh' });
    await Promise.all([a.until((m) => m.length === 1), b.until((m) => m.length === 1)]);
    expect(a.messages[0].ok).toBe(true);
    expect(server.stats().refused).toBe(3);
  });

  it('caps the rate per client: over the rate an error reply, the message dropped', async () => {
    const { server, fx } = await start({ maxMessagesPerSecond: 5 });
    const a = await connect(server.url);
    const b = await connect(server.url);
    const t0 = performance.now();
    for (let i = 0; i < 20; i++)
      a.send({
        action: 'updateValueRealtime',
        id: i,
        characterName: 'Bob',
        property: 'floorHeight',
        value: i / 100,
      });
    b.send({ action: 'refresh' });
    await a.until((m) => m.length === 20);
    const seconds = (performance.now() - t0) / 1000;
    const ok = a.messages.filter((m) => m.ok === true);
    const limited = a.messages.filter((m) => m.ok === false);
    // the bucket starts full (5) and refills 5/s: the burst passes, and at most what refilled while the
    // server was reading them (on a busy machine that can take a while: the bound, not a speed)
    expect(ok.length).toBeGreaterThanOrEqual(5);
    expect(ok.length).toBeLessThanOrEqual(5 + Math.ceil(5 * seconds));
    expect(limited.every((m) => (m.error as { message: string }).message.startsWith('rate limit'))).toBe(
      true,
    );
    // the last accepted value is in force; the dropped ones never reached the hub
    expect(fx.hubs.get('Bob')!.settings.floorHeight).toBe((ok[ok.length - 1].id as number) / 100);
    // the other client is not limited by the first
    await b.until((m) => m.some((x) => x.action === 'refresh'));
    expect(server.stats().rateLimited).toBe(limited.length);
  });

  it('caps the clients (503 beyond) and the messages of all clients together', async () => {
    const { server } = await start({
      maxClients: 3,
      maxTotalMessagesPerSecond: 10,
      maxMessagesPerSecond: 100,
    });
    const cs = [await connect(server.url), await connect(server.url), await connect(server.url)];
    await expect(connect(server.url)).rejects.toThrow('HTTP 503');
    // 3 clients x 10 messages, each within its own rate: only about 10 pass in all
    const t0 = performance.now();
    for (const c of cs) for (let i = 0; i < 10; i++) c.send({ action: 'refresh', id: i });
    await Promise.all(
      cs.map((c) => c.until((m) => m.filter((x) => x.id !== undefined || x.ok === false).length >= 10)),
    );
    const seconds = (performance.now() - t0) / 1000;
    const all = cs.flatMap((c) => c.messages);
    const ok = all.filter((m) => m.ok === true).length;
    const limited = all.filter(
      (m) => m.ok === false && (m.error as { message: string }).message.includes('from all clients together'),
    ).length;
    expect(ok).toBeGreaterThanOrEqual(10);
    expect(ok).toBeLessThanOrEqual(10 + Math.ceil(10 * seconds)); // the burst, plus what refilled meanwhile
    expect(ok + limited).toBe(30);
    // a place frees up when a client leaves
    cs[0].close();
    for (let t = 0; t < 600 && server.clientCount() > 2; t++) await sleep(50); // the server saw it go
    const d = await connect(server.url);
    expect(d.ws.readyState).toBe(1);
  });

  it('closes a connection sending a message over the size cap (1009); binary gets an error', async () => {
    const { server } = await start({ maxMessageBytes: 1024 });
    const a = await connect(server.url);
    a.ws.send(Buffer.from([1, 2, 3]));
    await a.until((m) => m.length === 1);
    expect(a.messages[0]).toMatchObject({ ok: false, error: { field: '$' } });
    const closed = a.closed();
    a.send({ action: 'refresh', id: 'x'.repeat(2000) });
    expect(await closed).toBe(1009);
    const b = await connect(server.url);
    b.send({ action: 'refresh' });
    await b.until((m) => m.length === 1);
  });

  it('a client that never reads is skipped, then closed, and never stalls the others', async () => {
    const { server } = await start({
      maxBufferedBytes: 64 * 1024,
      slowClientTimeoutMs: 300,
      maxMessagesPerSecond: 100000,
    });
    const slow = await connect(server.url);
    const fast = await connect(server.url);
    // the slow client stops reading and asks for big replies (~10 kB each): its send buffer fills
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let i = 0; i < 3000; i++) slow.send({ action: 'getCharacterData', characterName: 'Alice' });
    // meanwhile the fast client is served at once, every time
    const t0 = performance.now();
    for (let i = 0; i < 20; i++) {
      fast.send({ action: 'refresh', id: i });
      await fast.until((m) => m.length === i + 1, 30000);
    }
    const perReply = (performance.now() - t0) / 20;
    // the server closes it (the paused client itself does not read the close)
    for (let t = 0; t < 600 && server.stats().closedSlow === 0; t++) await sleep(50);
    const st = server.stats();
    expect(st.skippedSlow).toBeGreaterThan(0);
    expect(st.closedSlow).toBe(1);
    expect(server.clientCount()).toBe(1);
    fast.send({ action: 'refresh' });
    await fast.until((m) => m.length === 21);
    console.log(
      `slow client: ${st.skippedSlow} sends skipped, closed after staying over the buffer cap; fast client ${perReply.toFixed(2)} ms per round trip meanwhile`,
    );
  });
});
