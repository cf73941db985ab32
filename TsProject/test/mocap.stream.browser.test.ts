/**
 * The mocap page streaming to `kind live --source browser` over loopback (issue 23 item 5): the page (headless
 * chromium, served by `kind mocap`'s server) opened with `?live=ws://.../source&token=...` plays the real
 * squat landmark file in real time (5 fps, 13 s); every solved pose reaches the live server, and the avatar's final pose equals a hub run
 * directly in Node on the Node solver's poses through the same wire format (the page's solver gives the Node
 * solver's rotations exactly: test/mocap.page.browser.test.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { type MocapServer, startMocapServer } from '../src/cli/mocapServe';
import { loadAvatar, loadLandmarkRecording } from '../src/io/node';
import { type LiveHandle, startLive } from '../src/live/node/live';
import {
  calibrateMocap,
  MocapHubDriver,
  MocapPoseWriter,
  MocapSolver,
  MocapStreamFrame,
  mocapSkeleton,
  mocapSourceFigure,
  readMocapPose,
} from '../src/mocap';
import { serializeLandmarkRecording } from '../src/puppet';
import { RetargetHub } from '../src/rig';
import type { MocapStream } from '../src/web/mocap/stream';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { sleep } from './remote.wsclient';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '..');
const WEB_ROOT = path.join(ROOT, 'dist/web/mocap');
const AVATAR = path.join(ROOT, 'assets/default/default-avatar.glb');
const HAS = fs.existsSync(CHROMIUM) && fs.existsSync(path.join(WEB_ROOT, 'mocap.js')) && HAS_SHARED_DATA;
if (!HAS)
  console.warn(
    '[skip] mocap page streaming: chromium, the built page (npm run build) or shared data missing',
  );
const itPage = HAS ? it : it.skip;

type Win = {
  kindMocap: { ready: boolean; playRecording(t: string, o: object): Promise<number> };
  kindMocapStream: MocapStream;
};

describe('the mocap page streaming to kind live --source browser', () => {
  let server: MocapServer | undefined;
  let live: LiveHandle | undefined;
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
    await live?.close();
    await server?.close();
  });

  itPage(
    'every solved squat pose reaches the live hubs; the avatar ends where a direct Node run ends',
    async () => {
      const rec = loadLandmarkRecording(dataPath('pose-landmarks/pose_squats.full.json'), {
        imageSize: { width: 720, height: 1280 },
        fps: 5,
      }).recording;
      server = await startMocapServer({ port: 0, webRoot: WEB_ROOT });
      const pagePort = Number(new URL(server.url).port);
      live = await startLive({
        source: 'browser',
        avatars: [AVATAR],
        remotePort: 0,
        viewerPort: 0,
        token: 'tok',
        mocapPagePort: pagePort,
      });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      const page = await browser.newPage();
      page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${server.url}?live=${encodeURIComponent(live.browserSourceUrl)}&token=tok`);
      await page.waitForFunction(
        () => {
          const w = window as unknown as Win;
          return w.kindMocap?.ready && w.kindMocapStream?.status.state === 'open';
        },
        undefined,
        { timeout: 120_000, polling: 100 },
      );
      const n = await page.evaluate(
        (text) => (window as unknown as Win).kindMocap.playRecording(text, { realtime: true, name: 'squat' }),
        serializeLandmarkRecording(rec),
      );
      expect(n).toBe(65);
      const end = Date.now() + 60_000;
      while (live.stats().frames < 65 && Date.now() < end) await sleep(20);
      const s = live.stats();
      const status = await page.evaluate(() => ({ ...(window as unknown as Win).kindMocapStream.status }));
      expect(status).toMatchObject({
        state: 'open',
        sent: 65,
        skipped: 0,
        skeletons: 1,
        lastRefusal: '',
        poseBytes: 485,
      });
      expect(s.frames).toBe(65);
      expect(s.dropped).toBe(0);
      expect(s.malformed).toBe(0);
      expect(errors).toEqual([]);
      // the Node side: the same solver, the same bytes, the same hub
      const cal = calibrateMocap(rec.frames, { source: 'squat' });
      const solver = new MocapSolver(cal);
      const sk = mocapSkeleton(cal);
      expect(Array.from(live.sourceSkeleton.restTranslations)).toEqual(Array.from(sk.restTranslations));
      const hub = new RetargetHub(sk, (await loadAvatar(AVATAR)).skeleton, {
        ik: 'auto',
        hipsMode: 'room',
        fingers: 'rotation',
      });
      hub.calibrate({ rotations: sk.restRotations, translations: sk.restTranslations });
      const driver = new MocapHubDriver(mocapSourceFigure(sk), hub);
      const writer = new MocapPoseWriter(21);
      const frame = new MocapStreamFrame(sk);
      for (const f of rec.frames) {
        const r = solver.step(f, rec.image);
        const bytes = writer.write(
          1,
          0,
          r.personFound,
          f.timestampMs,
          0,
          solver.localRotations,
          solver.localTranslations,
          solver.confidence,
          solver.state,
        );
        expect(readMocapPose(bytes, 1, frame)).toBeNull();
        driver.stepStream(frame);
      }
      expect(Array.from(live.hub('default-avatar').localRotations)).toEqual(Array.from(hub.localRotations));
      expect(Array.from(live.hub('default-avatar').localTranslations)).toEqual(
        Array.from(hub.localTranslations),
      );
      console.log(
        `mocap page -> kind live: ${s.frames} poses of ${status.poseBytes} B; page send -> pose median ${s.endToEndMs.median.toFixed(2)} ms, p99 ${s.endToEndMs.p99.toFixed(2)} ms; arrival -> pose median ${s.latencyMs.median.toFixed(2)} ms, p99 ${s.latencyMs.p99.toFixed(2)} ms`,
      );
    },
    240_000,
  );
});
