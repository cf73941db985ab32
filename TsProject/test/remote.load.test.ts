/**
 * Load: 50 ws clients each sending a message every 50 ms (20 per second) for 100 messages against one
 * server, while a 120 Hz frame loop runs hub.update on a real hub in the same process; plus one client
 * that never reads. Asserts what does not depend on how busy the machine is: every client gets every
 * reply, in the order it asked, none an error and none rate-limited; every update reaches the 49 other
 * readers; the frame loop keeps running with finite output. The loop's achieved rate and gaps under this
 * load are figures of `npm run bench -- live`.
 */
import { startRemoteServer } from '../src/live/node/remoteServer';
import { PARAMETERS, RemoteControl } from '../src/live/remote';
import { makeFixture, randomFrame } from './remote.fixture';
import { sleep, TestClient } from './remote.wsclient';

const CLIENTS = 50;
const MESSAGES = 100;
const FRAME_HZ = 120;

describe('remote server under load', () => {
  it(`${CLIENTS} clients x ${MESSAGES} messages at 20/s beside a ${FRAME_HZ} Hz frame loop: every reply in order, every broadcast`, async () => {
    const fx = makeFixture();
    const server = await startRemoteServer({ control: new RemoteControl(fx.characters), port: 0 });
    const clients: TestClient[] = [];
    let running = true;
    try {
      for (let i = 0; i < CLIENTS; i++) clients.push(new TestClient(server.url));
      await Promise.all(clients.map((c) => c.open()));
      // one more client that never reads
      const deaf = new TestClient(server.url);
      await deaf.open();
      (deaf.ws as unknown as { _socket: { pause(): void } })._socket.pause();

      // the frame loop: a real hub updated every 1/120 s (as the timers allow) on a moving source
      const hub = fx.hubs.get('Alice')!;
      const frames = Array.from({ length: 16 }, (_, k) => randomFrame(fx.source, 500 + k, 0.3));
      let frameCount = 0;
      let finite = true;
      const loop = () => {
        if (!running) return;
        const f = frames[frameCount % frames.length];
        hub.update(f.rotations, f.translations, 1 / FRAME_HZ);
        for (let i = 0; i < hub.localRotations.length; i++)
          if (!Number.isFinite(hub.localRotations[i])) finite = false;
        frameCount++;
        setTimeout(loop, 1000 / FRAME_HZ);
      };
      setTimeout(loop, 0);

      // the clients: updates on Bob (broadcast to all others), refreshes and reads; one message every
      // 50 ms at most (no catching up after a late timer, so never over the server's 50 per second)
      const numbers = PARAMETERS.filter((p) => p.type === 'number');
      const sentActions: string[][] = clients.map(() => []);
      await Promise.all(
        clients.map(async (c, i) => {
          await sleep(i);
          for (let k = 0; k < MESSAGES; k++) {
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
            sentActions[i].push(
              kind < 8 ? 'updateValueRealtime' : kind === 8 ? 'refresh' : 'getCharacterData',
            );
            await sleep(50);
          }
        }),
      );
      const updates = (CLIENTS * MESSAGES * 8) / 10;
      const replies = (c: TestClient) => c.messages.filter((m) => m.action !== 'valueChanged');
      const broadcasts = (c: TestClient) => c.messages.filter((m) => m.action === 'valueChanged');
      // every reader gets its replies and the other readers' updates (the deaf client's are not counted)
      await Promise.all(
        clients.map((c) =>
          c.until(
            () => replies(c).length >= MESSAGES && broadcasts(c).length >= updates - updates / CLIENTS,
            60000,
          ),
        ),
      );
      const framesAtEnd = frameCount;
      await sleep(50);
      running = false;
      const st = server.stats();
      console.log(
        `remote load: ${CLIENTS} clients x ${MESSAGES} messages; ${st.broadcastsSent} broadcasts sent, ${st.skippedSlow} skipped for the non-reader; ` +
          `frame loop ${framesAtEnd} frames meanwhile (its rate under load: npm run bench -- live)`,
      );
      clients.forEach((c, i) => {
        // its replies: one per message, in the order sent, each ok
        expect(replies(c).map((m) => [m.id, m.action, m.ok])).toEqual(
          sentActions[i].map((a, k) => [k, a, true]),
        );
        // every update of the other 49 clients, none twice
        expect(broadcasts(c)).toHaveLength(updates - updates / CLIENTS);
      });
      expect(st.rateLimited).toBe(0);
      expect(framesAtEnd).toBeGreaterThan(0);
      expect(finite).toBe(true);
      deaf.close();
    } finally {
      running = false;
      for (const c of clients) c.close();
      await server.close();
    }
  });
});
