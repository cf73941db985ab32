/**
 * Load: 50 ws clients each sending 20 messages per second for about 5 s against one server, while a
 * simulated 120 Hz frame loop runs hub.update on a real hub in the same process. Measures the loop's
 * achieved rate and largest gap, replies and broadcasts; plus one client that never reads.
 */
import { startRemoteServer } from '../src/live/node/remoteServer';
import { PARAMETERS, RemoteControl } from '../src/live/remote';
import { makeFixture, randomFrame } from './remote.fixture';
import { sleep, TestClient } from './remote.wsclient';

const CLIENTS = 50;
const RATE = 20;
const SECONDS = 5;
const FRAME_HZ = 120;

describe('remote server under load', () => {
  it(`${CLIENTS} clients x ${RATE} msg/s for ${SECONDS} s beside a ${FRAME_HZ} Hz frame loop`, async () => {
    const fx = makeFixture();
    const server = await startRemoteServer({ control: new RemoteControl(fx.characters), port: 0 });
    const clients: TestClient[] = [];
    try {
      for (let i = 0; i < CLIENTS; i++) clients.push(new TestClient(server.url));
      await Promise.all(clients.map((c) => c.open()));
      // one more client that never reads
      const deaf = new TestClient(server.url);
      await deaf.open();
      (deaf.ws as unknown as { _socket: { pause(): void } })._socket.pause();

      // the frame loop: a real hub updated at 120 Hz on a moving source
      const hub = fx.hubs.get('Alice')!;
      const frames = Array.from({ length: 16 }, (_, k) => randomFrame(fx.source, 500 + k, 0.3));
      let frameCount = 0;
      let maxGap = 0;
      const gaps: number[] = [];
      let last = performance.now();
      let running = true;
      const t0 = performance.now();
      const period = 1000 / FRAME_HZ;
      const loop = () => {
        if (!running) return;
        const now = performance.now();
        maxGap = Math.max(maxGap, now - last);
        gaps.push(now - last);
        last = now;
        const f = frames[frameCount % frames.length];
        hub.update(f.rotations, f.translations, 1 / FRAME_HZ);
        frameCount++;
        const next = t0 + frameCount * period;
        setTimeout(loop, Math.max(0, next - performance.now()));
      };
      setTimeout(loop, period);

      // the clients: updates on Bob (broadcast to all others), refreshes and reads
      const numbers = PARAMETERS.filter((p) => p.type === 'number');
      let sent = 0;
      const sentBy = new Array<number>(CLIENTS).fill(0);
      const senders = clients.map((c, i) =>
        (async () => {
          await sleep((i * 1000) / RATE / CLIENTS); // spread the clients over the period
          const start = performance.now();
          for (let k = 0; k < RATE * SECONDS; k++) {
            const p = numbers[(i + k) % numbers.length];
            const kind = k % 10;
            if (kind < 8) {
              const v = p.type === 'number' ? p.min + ((k % 7) / 6) * (p.max - p.min) : 0;
              c.send({
                action: 'updateValueRealtime',
                id: k,
                characterName: 'Bob',
                property: p.name,
                value: v,
              });
            } else if (kind === 8) c.send({ action: 'refresh', id: k });
            else c.send({ action: 'getCharacterData', id: k, characterName: 'Bob' });
            sent++;
            sentBy[i]++;
            const due = start + ((k + 1) * 1000) / RATE;
            await sleep(Math.max(0, due - performance.now()));
          }
        })(),
      );
      await Promise.all(senders);
      // every client gets all its replies
      const replies = (c: TestClient) => c.messages.filter((m) => m.action !== 'valueChanged').length;
      await Promise.all(clients.map((c, i) => c.until(() => replies(c) === sentBy[i], 10000)));
      running = false;
      const elapsed = (last - t0) / 1000;
      const rate = frameCount / elapsed;
      // broadcasts: every update reached the 49 other readers (and maybe the deaf one, until its buffer filled)
      const updates = sent * 0.8;
      await sleep(200);
      const broadcastsReceived = clients.reduce(
        (s, c) => s + c.messages.filter((m) => m.action === 'valueChanged').length,
        0,
      );
      const errors = clients.reduce((s, c) => s + c.messages.filter((m) => m.ok === false).length, 0);
      const st = server.stats();
      console.log(
        `remote load: ${CLIENTS} clients, ${sent} messages in ${elapsed.toFixed(2)} s; replies ${clients.reduce((s, c) => s + replies(c), 0)} (errors ${errors}); ` +
          `broadcasts received ${broadcastsReceived} of ${updates * (CLIENTS - 1)} to the readers, sent ${st.broadcastsSent}, skipped for the non-reader ${st.skippedSlow}; ` +
          `frame loop ${rate.toFixed(1)} Hz of ${FRAME_HZ} (${frameCount} frames), gap p99 ${gaps.sort((a, b) => a - b)[Math.floor(0.99 * gaps.length)].toFixed(1)} ms, largest ${maxGap.toFixed(1)} ms`,
      );
      expect(errors).toBe(0);
      expect(rate).toBeGreaterThanOrEqual(0.9 * FRAME_HZ);
      expect(broadcastsReceived).toBe(updates * (CLIENTS - 1));
      expect(st.rateLimited).toBe(0);
      deaf.close();
    } finally {
      for (const c of clients) c.close();
      await server.close();
    }
  });
});
