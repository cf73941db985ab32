/**
 * The live viewer in headless Chromium (playwright-core, Debian's /usr/bin/chromium): a replay of the
 * embedded default walk runs onto the default avatar; the page plays it, its glTF avatar is posed
 * exactly as the stream says, a parameter changed through the panel's DOM reaches the hub and the
 * drawn avatar, and a second remote client gets the broadcasts. A screenshot is saved to
 * test-output/viewer.png. Until a stream starts (and after it ends) the figures show their rest pose.
 * Skipped with a printed reason when Chromium is absent.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { quat, vec3 } from 'gl-matrix';
import { type Browser, chromium, type Page } from 'playwright-core';
import WebSocket from 'ws';
import { forwardKinematics, quat64, readQuat, type Skeleton, vec64, writeQuat } from '../src/core';
import { defaultAssetsDir, loadSource } from '../src/io/node';
import { startLive } from '../src/live/node/live';
import { NatNetReplayServer } from '../src/live/node/natnetServer';
import type { KindViewerApi } from '../src/web/viewer/main';
import { DEFAULT_AVATAR, startViewerTestLive, type ViewerTestLive } from './viewer.harness';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'test-output');

const describeBrowser = fs.existsSync(CHROMIUM) ? describe : describe.skip;
if (!fs.existsSync(CHROMIUM)) console.warn(`[skip] viewer browser test: ${CHROMIUM} not found`);

type Win = { kindViewer: KindViewerApi };

async function waitFor(page: Page, fn: string, timeout = 300_000): Promise<void> {
  await page.waitForFunction(fn, undefined, { timeout, polling: 50 });
}

/** A plain remote-control client that records every message. */
async function remoteClient(url: string): Promise<{ ws: WebSocket; messages: Record<string, unknown>[] }> {
  const ws = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(String(d))));
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
  });
  return { ws, messages };
}

async function until(cond: () => boolean, what: string, ms = 10000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * World positions of a skeleton's bones from local rotations/translations with uniform scales on some
 * bones (the hub's hips and head scales, which the host puts on those nodes): `p_b = p_parent +
 * R_parent * (S_parent * t_b)`, `S` the product of the scales of the bone and its ancestors.
 */
function scaledPositions(
  sk: Skeleton,
  rot: ArrayLike<number>,
  trans: ArrayLike<number>,
  scaleOf: Map<number, number>,
): Float64Array {
  const n = sk.boneCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const ws = new Float64Array(n);
  const q = quat64();
  const pq = quat64();
  const t = vec64();
  for (let b = 0; b < n; b++) {
    const p = sk.parents[b];
    readQuat(q, rot, b);
    vec3.set(t, trans[3 * b], trans[3 * b + 1], trans[3 * b + 2]);
    if (p >= 0) {
      readQuat(pq, wr, p);
      vec3.scale(t, t, ws[p]);
      vec3.transformQuat(t, t, pq);
      vec3.add(t, t, [wp[3 * p], wp[3 * p + 1], wp[3 * p + 2]]);
      quat.multiply(q, pq, q);
    }
    ws[b] = (p >= 0 ? ws[p] : 1) * (scaleOf.get(b) ?? 1);
    writeQuat(wr, b, q);
    wp.set(t, 3 * b);
  }
  return wp;
}

function maxDistance(a: ArrayLike<number>, positions: (number[] | null)[]): number {
  let m = 0;
  positions.forEach((p, b) => {
    m = Math.max(m, p ? Math.hypot(p[0] - a[3 * b], p[1] - a[3 * b + 1], p[2] - a[3 * b + 2]) : Infinity);
  });
  return m;
}

describeBrowser('live viewer in headless Chromium', () => {
  let live: ViewerTestLive;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // the page and its bundle, as `npm run build` makes them (dist/web)
    execFileSync(process.execPath, [path.resolve(ROOT, '../tools/build.mjs'), 'web'], { stdio: 'inherit' });
    live = await startViewerTestLive();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await live?.close();
  });

  it('plays the stream, poses the avatar as streamed, and the panel is a working remote', async () => {
    const name = live.characters[0];
    const hub = live.hub(name);
    const other = await remoteClient(live.remoteUrl);
    try {
      await page.goto(live.viewerUrl);
      await waitFor(
        page,
        'window.kindViewer && window.kindViewer.sceneReady && window.kindViewer.frames > 5',
      );
      await waitFor(page, 'window.kindViewer.panelReady');

      // playing: frames keep arriving with increasing frame numbers
      const f0 = await page.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(page, `window.kindViewer.lastFrame > ${f0 + 5}`);
      const played = await page.evaluate(() => {
        const v = (window as unknown as Win).kindViewer;
        return { frames: v.frames, lastFrame: v.lastFrame, last: v.last, errors: v.errors };
      });
      expect(played.lastFrame).toBeGreaterThan(f0 + 5);
      expect(played.errors).toEqual([]); // every bone found in the glTF model, no load error
      expect(played.last!.fps).toBeGreaterThan(0);
      // the overlay shows the stream's figures (it refreshes every 10 drawn frames)
      await waitFor(page, "document.getElementById('dropped').textContent !== '-'");
      expect(await page.textContent('#fps')).toMatch(/^\d+\.\d$/);
      expect(await page.textContent('#latency')).toMatch(/^\d+\.\d\d$/);
      expect(await page.textContent('#dropped')).toMatch(/^\d+$/);

      // the glTF avatar is drawn where forward kinematics of the streamed pose puts each bone
      const target = hub.target;
      const drawn = await page.evaluate((names: string[]) => {
        const v = (window as unknown as Win).kindViewer;
        return { pose: v.avatarPose(0), positions: names.map((n) => v.avatarBoneWorldPosition(0, n)) };
      }, target.names as string[]);
      const pose = drawn.pose!;
      expect(pose.rotations.length).toBe(4 * target.boneCount);
      const wr = new Float64Array(4 * target.boneCount);
      const wp = new Float64Array(3 * target.boneCount);
      forwardKinematics(target, pose.rotations, pose.translations, wr, wp);
      let maxErr = 0;
      target.names.forEach((_, b) => {
        const p = drawn.positions[b]!;
        maxErr = Math.max(maxErr, Math.hypot(p[0] - wp[3 * b], p[1] - wp[3 * b + 1], p[2] - wp[3 * b + 2]));
      });
      console.log(
        `viewer: drawn glTF bones vs FK of the streamed pose: max ${(maxErr * 1000).toFixed(3)} mm`,
      );
      expect(maxErr).toBeLessThan(1e-4);

      // change the avatar scale through the panel's DOM (the number field of the lil-gui slider)
      const headName = target.names[target.humanoid[10]];
      const headBefore = await page.evaluate(
        (n) => (window as unknown as Win).kindViewer.avatarBoneWorldPosition(0, n),
        headName,
      );
      expect(hub.settings.avatarScale).toBe(1);
      const scaleInput = page.locator('[data-param="avatarScale"] input').first();
      await scaleInput.fill('1.5');
      await scaleInput.press('Enter');
      await until(() => hub.settings.avatarScale === 1.5, 'the hub to get avatarScale 1.5');
      await waitFor(page, 'window.kindViewer.avatarScales(0)[0] === 1.5');
      const after = await page.evaluate((names: string[]) => {
        const v = (window as unknown as Win).kindViewer;
        return { pose: v.avatarPose(0)!, positions: names.map((n) => v.avatarBoneWorldPosition(0, n)) };
      }, target.names as string[]);
      expect(after.pose.scales).toEqual([1.5, 1]);
      // drawn as streamed, with the hips scale on the hips node
      const scaleOf = new Map([
        [target.humanoid[0], after.pose.scales[0]],
        [target.humanoid[10], after.pose.scales[1]],
      ]);
      const expected = scaledPositions(target, after.pose.rotations, after.pose.translations, scaleOf);
      const scaledErr = maxDistance(expected, after.positions);
      console.log(
        `viewer: drawn bones vs streamed pose with hips scale 1.5: max ${(scaledErr * 1000).toFixed(3)} mm`,
      );
      expect(scaledErr).toBeLessThan(1e-4);
      // and without scales it would not match: the check sees the scale
      expect(
        maxDistance(
          scaledPositions(target, after.pose.rotations, after.pose.translations, new Map()),
          after.positions,
        ),
      ).toBeGreaterThan(0.1);
      const headAfter = after.positions[target.humanoid[10]];
      console.log(
        `viewer: avatar head height ${headBefore![1].toFixed(3)} m -> ${headAfter![1].toFixed(3)} m at avatar scale 1.5`,
      );
      // taller (not 1.5x: the hub shortens the neck at avatarScale != 1, reported to the lead)
      expect(headAfter![1] / headBefore![1]).toBeGreaterThan(1.1);
      // the other remote got the broadcast
      await until(
        () => other.messages.some((m) => m.action === 'valueChanged' && m.property === 'avatarScale'),
        'the valueChanged broadcast',
      );
      expect(other.messages.find((m) => m.action === 'valueChanged')).toEqual({
        action: 'valueChanged',
        characterName: name,
        property: 'avatarScale',
        value: 1.5,
      });

      // a head rotation offset from the slider turns the streamed head bone
      const hb = target.humanoid[10];
      const headQ = () =>
        page.evaluate(
          (n) => (window as unknown as Win).kindViewer.avatarBoneQuaternion(0, n),
          target.names[hb],
        );
      const q0 = await headQ();
      const yawInput = page.locator('[data-param="headRotationOffsetY"] input').first();
      await yawInput.fill('60');
      await yawInput.press('Enter');
      await until(() => hub.settings.headRotationOffset[1] === 60, 'the hub to get headRotationOffsetY 60');
      // a few frames made after the change (the frame numbers, not a time)
      const fChange = await page.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(page, `window.kindViewer.lastFrame > ${fChange + 2}`);
      const q1 = (await headQ())!;
      const dot = Math.abs(q0!.reduce((s, x, i) => s + x * q1[i], 0));
      const angle = (2 * Math.acos(Math.min(1, dot)) * 180) / Math.PI;
      console.log(
        `viewer: head local rotation turned by ${angle.toFixed(1)} deg after headRotationOffsetY 60`,
      );
      expect(angle).toBeGreaterThan(45);

      // a remote change shows in the panel (valueChanged from the other client)
      other.ws.send(
        JSON.stringify({
          action: 'updateValueRealtime',
          characterName: name,
          property: 'headScale',
          value: 1.2,
        }),
      );
      await waitFor(page, 'window.kindViewer.panel.values.headScale === 1.2');
      expect(await page.inputValue('[data-param="headScale"] input')).toBe('1.2');

      // a calibration button: the other client is told to re-fetch
      await page.locator('[data-action="calibrateHeadForward"] button').click();
      await until(
        () => other.messages.some((m) => m.action === 'characterDataChanged' && m.characterName === name),
        'the characterDataChanged broadcast',
      );

      fs.mkdirSync(OUT, { recursive: true });
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(OUT, 'viewer.png') });
      expect(fs.statSync(path.join(OUT, 'viewer.png')).size).toBeGreaterThan(10000);
      expect(pageErrors).toEqual([]);
    } finally {
      other.ws.close();
    }
  });
  it('?raw=1: draws the raw source beside the filtered one, each as streamed, and the panel turns it off', async () => {
    // a noisy copy of the walk (white noise and marker-swap spikes), the source filter on (defaults)
    const noisy = await startViewerTestLive({ noise: true });
    const p3 = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    p3.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    const errors: string[] = [];
    p3.on('pageerror', (e) => errors.push(String(e)));
    p3.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    try {
      const src = noisy.sourceSkeleton;
      const hub = noisy.hub(noisy.characters[0]);
      expect(hub.settings.sourceFilter.body.minCutoff).toBeGreaterThan(0); // the filter is on
      const names = src.names as string[];
      await p3.goto(`${noisy.viewerUrl}?raw=1`);
      await waitFor(p3, 'window.kindViewer && window.kindViewer.sceneReady && window.kindViewer.frames > 5');
      await waitFor(p3, 'window.kindViewer.panelReady');
      expect(await p3.evaluate(() => (window as unknown as Win).kindViewer.rawShown)).toBe(true);
      await waitFor(p3, "window.kindViewer.sourcePose('raw') !== null");
      // a few frames on, so the filter has a history
      const f0 = await p3.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(p3, `window.kindViewer.lastFrame > ${f0 + 20}`);

      // one snapshot (the page handles no message during an evaluate): the last message's poses and
      // both figures' drawn joints
      const snap = () =>
        p3.evaluate((bones: string[]) => {
          const v = (window as unknown as Win).kindViewer;
          return {
            frame: v.lastFrame,
            version: v.sourcePose('raw') ? 2 : 1,
            filtered: v.sourcePose('filtered'),
            raw: v.sourcePose('raw'),
            drawnFiltered: bones.map((n) => v.sourceBoneWorldPosition('filtered', n)),
            drawnRaw: bones.map((n) => v.sourceBoneWorldPosition('raw', n)),
          };
        }, names);
      const s1 = await snap();
      expect(s1.version).toBe(2);
      const fk = (pose: { rotations: number[]; translations: number[] }) => {
        const wr = new Float64Array(4 * src.boneCount);
        const wp = new Float64Array(3 * src.boneCount);
        forwardKinematics(src, pose.rotations, pose.translations, wr, wp);
        return wp;
      };
      const rawWp = fk(s1.raw!);
      const filtWp = fk(s1.filtered!);
      const rawErr = maxDistance(rawWp, s1.drawnRaw);
      const filtErr = maxDistance(filtWp, s1.drawnFiltered);
      // the raw stream is the replayed noisy clip's frame itself (same bone names, float32 on the wire)
      const clip = noisy.noisyClip!;
      const cf = (s1.frame - 1) % clip.frameCount;
      const ck = clip.skeleton;
      const cwr = new Float64Array(4 * ck.boneCount);
      const cwp = new Float64Array(3 * ck.boneCount);
      forwardKinematics(
        ck,
        clip.rotations.subarray(4 * cf * ck.boneCount, 4 * (cf + 1) * ck.boneCount),
        clip.translations.subarray(3 * cf * ck.boneCount, 3 * (cf + 1) * ck.boneCount),
        cwr,
        cwp,
      );
      let clipErr = 0;
      let matched = 0;
      // bone by bone through the humanoid maps (the stream names bones `Skeleton_<Motive name>`)
      for (let h = 0; h < src.humanoid.length; h++) {
        const b = src.humanoid[h];
        const c = ck.humanoid[h];
        if (b < 0 || c < 0) continue;
        matched++;
        clipErr = Math.max(
          clipErr,
          Math.hypot(
            cwp[3 * c] - rawWp[3 * b],
            cwp[3 * c + 1] - rawWp[3 * b + 1],
            cwp[3 * c + 2] - rawWp[3 * b + 2],
          ),
        );
      }
      // filtered and raw differ (noise removed, some lag): the figures are not the same pose
      const apart = maxDistance(filtWp, s1.drawnRaw);
      console.log(
        `viewer raw: frame ${s1.frame}: drawn raw figure vs FK of the raw stream max ${(rawErr * 1000).toFixed(4)} mm, ` +
          `drawn filtered figure vs FK of the filtered stream max ${(filtErr * 1000).toFixed(4)} mm, ` +
          `raw stream vs the noisy clip's frame ${cf} max ${(clipErr * 1000).toFixed(4)} mm over ${matched}/${names.length} bones, ` +
          `raw vs filtered joints up to ${(apart * 1000).toFixed(1)} mm`,
      );
      expect(rawErr).toBeLessThan(2e-6);
      expect(filtErr).toBeLessThan(2e-6);
      expect(matched).toBeGreaterThan(15);
      expect(clipErr).toBeLessThan(1e-4);
      expect(apart).toBeGreaterThan(1e-3);
      expect(maxDistance(rawWp, s1.drawnFiltered)).toBeGreaterThan(1e-3);

      // the overlay shows the stream's figures (it refreshes every 10 drawn frames)
      await waitFor(p3, "document.getElementById('dropped').textContent !== '-'");
      fs.mkdirSync(OUT, { recursive: true });
      await p3.screenshot({ path: path.join(OUT, 'viewer-raw.png') });
      expect(fs.statSync(path.join(OUT, 'viewer-raw.png')).size).toBeGreaterThan(10000);

      // off through the panel's "View > raw source" checkbox: the figure goes, the stream is layout 1 again
      const toggle = p3.locator('[data-view="raw source"] input');
      expect(await toggle.isChecked()).toBe(true);
      await toggle.uncheck();
      await waitFor(p3, 'window.kindViewer.rawShown === false');
      const fOff = await p3.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(
        p3,
        `window.kindViewer.lastFrame > ${fOff + 3} && window.kindViewer.sourcePose('filtered') !== null`,
      );
      const s2 = await snap();
      expect(s2.version).toBe(1);
      expect(s2.raw).toBeNull();
      expect(s2.drawnRaw.every((p) => p === null)).toBe(true);
      expect(maxDistance(fk(s2.filtered!), s2.drawnFiltered)).toBeLessThan(2e-6);
      // on again through the API, then off through the API: the checkbox follows
      await p3.evaluate(() => (window as unknown as Win).kindViewer.setShowRaw(true));
      const fOn = await p3.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(
        p3,
        `window.kindViewer.lastFrame > ${fOn + 3} && window.kindViewer.sourcePose('raw') !== null`,
      );
      expect(await toggle.isChecked()).toBe(true);
      const s3 = await snap();
      expect(maxDistance(fk(s3.raw!), s3.drawnRaw)).toBeLessThan(2e-6);
      await p3.evaluate(() => (window as unknown as Win).kindViewer.setShowRaw(false));
      const fOff2 = await p3.evaluate(() => (window as unknown as Win).kindViewer.lastFrame);
      await waitFor(
        p3,
        `window.kindViewer.lastFrame > ${fOff2 + 3} && window.kindViewer.sourcePose('filtered') !== null`,
      );
      expect(await toggle.isChecked()).toBe(false);
      const s4 = await snap();
      expect(s4.version).toBe(1);
      expect(s4.drawnRaw.every((p) => p === null)).toBe(true);
      expect(errors).toEqual([]);
      expect(await p3.evaluate(() => (window as unknown as Win).kindViewer.errors)).toEqual([]);
    } finally {
      await p3.close();
      await noisy.close();
    }
  });
  it('shows the rest pose until the stream starts, follows the stream, and goes back to rest when it ends', async () => {
    // a NatNet server that sends frames only when told (Motive connected but not playing yet)
    const replay = new NatNetReplayServer();
    const src = await loadSource(path.join(defaultAssetsDir(), 'default-walk.bvh'));
    await replay.start({ clip: src.clip, commandPort: 0, manual: true });
    const waiting = await startLive({
      natnet: { host: '127.0.0.1', commandPort: replay.port },
      avatars: [DEFAULT_AVATAR],
      remotePort: 0,
      viewerPort: 0,
    });
    const p2 = await browser.newPage({ viewport: { width: 800, height: 500 } });
    p2.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    p2.on('pageerror', (e) => pageErrors.push(String(e)));
    try {
      const target = waiting.hub(waiting.characters[0]).target;
      const drawn = () =>
        p2.evaluate(
          (names: string[]) =>
            names.map((n) => (window as unknown as Win).kindViewer.avatarBoneWorldPosition(0, n)),
          target.names as string[],
        );
      const rw = new Float64Array(4 * target.boneCount);
      const rest = new Float64Array(3 * target.boneCount);
      forwardKinematics(target, target.restRotations, target.restTranslations, rw, rest);
      await p2.goto(waiting.viewerUrl);
      await waitFor(p2, 'window.kindViewer && window.kindViewer.sceneReady');
      // no frame yet: every avatar bone where the rest pose puts it
      expect(await p2.evaluate(() => (window as unknown as Win).kindViewer.frames)).toBe(0);
      expect(await p2.evaluate(() => (window as unknown as Win).kindViewer.showingRest)).toBe(true);
      const before = maxDistance(rest, await drawn());
      // the stream starts: the walk's pose, not the rest pose
      for (
        let k = 0;
        k < 400 && (await p2.evaluate(() => (window as unknown as Win).kindViewer.frames)) < 3;
        k++
      ) {
        replay.step(1);
        await new Promise((r) => setTimeout(r, 20));
      }
      await waitFor(p2, 'window.kindViewer.frames >= 3');
      expect(await p2.evaluate(() => (window as unknown as Win).kindViewer.showingRest)).toBe(false);
      const playing = maxDistance(rest, await drawn());
      // the stream ends (kind live stopped): back to the rest pose, not frozen in the last one
      await waiting.close();
      await waitFor(p2, 'window.kindViewer.showingRest === true');
      const after = maxDistance(rest, await drawn());
      console.log(
        `viewer: avatar bones off the rest pose: before the stream ${(before * 1000).toFixed(3)} mm, playing ${(playing * 1000).toFixed(0)} mm, after it ended ${(after * 1000).toFixed(3)} mm`,
      );
      expect(before).toBeLessThan(1e-4);
      expect(playing).toBeGreaterThan(0.05);
      expect(after).toBeLessThan(1e-4);
      expect(pageErrors).toEqual([]);
    } finally {
      await p2.close();
      await waiting.close();
      await replay.close();
    }
  });
});
