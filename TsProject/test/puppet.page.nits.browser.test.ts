/**
 * Issue 22 part 7, the page's small nits, in headless Debian chromium (playwright-core, /usr/bin/chromium)
 * with the page built by tools/build.mjs and served by startPuppetServer:
 * - the play button names the `--landmarks` file it plays ("Play one.json", not "Play default recording");
 * - a one-frame recording reads "1 frame" (not "1 frames") in the status line.
 * Without `--landmarks` the button keeps "Play default recording" (the embedded one).
 * And a recording picked through the page's file input whose "image" is swapped against its world landmarks
 * (the real squat, ../shared/data) is refused as kind puppet refuses it (src/puppet/imageSize.ts).
 * Skipped with a printed reason without chromium.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { type PuppetServer, startPuppetServer } from '../src/cli/puppetServe';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { standingFrame } from './helpers/puppetPose';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '..');
const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
if (!HAS_CHROMIUM) console.warn(`[skip] puppet page nits: ${CHROMIUM} not found`);
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;

describeBrowser('puppet page: the play button and frame counts', () => {
  let tmp: string;
  let web: string;
  let browser: Browser;
  const servers: PuppetServer[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'puppet-nits-'));
    web = path.join(tmp, 'web');
    execFileSync(process.execPath, [path.resolve(ROOT, '../tools/build.mjs'), 'web', web], {
      stdio: 'inherit',
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('"Play one.json" plays the --landmarks file; its one frame reads "1 frame"', async () => {
    const one = path.join(tmp, 'one.json');
    const image = { width: 640, height: 480 };
    fs.writeFileSync(one, JSON.stringify({ image, frames: [standingFrame({ image, visibility: 0.9 })] }));
    const s = await startPuppetServer({ port: 0, webRoot: path.join(web, 'puppet'), landmarks: one });
    servers.push(s);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(s.url);
    await page.waitForFunction('window.kindPuppet && window.kindPuppet.ready', undefined, {
      timeout: 120_000,
    });
    expect(await page.textContent('#playDefault')).toBe('Play one.json');
    await page.click('#playDefault');
    await page.waitForFunction('window.kindPuppet.frames >= 1', undefined, { timeout: 60_000 });
    const status = await page.evaluate(
      () => (window as unknown as { kindPuppet: { status: string } }).kindPuppet.status,
    );
    // playing loops: either line may be showing
    expect(status).toMatch(/^(playing one\.json \(1 frame\)|one\.json: played 1 frame)$/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a recording picked in the page whose "image" is swapped against its world landmarks is refused, naming the size', async () => {
    if (!HAS_SHARED_DATA) {
      console.warn('[skip] swapped recording in the page: shared data not found');
      return;
    }
    const px: number[][][] = JSON.parse(
      fs.readFileSync(dataPath('pose-landmarks', 'pose_squats.full.json'), 'utf8'),
    );
    const world: number[][][] = JSON.parse(
      fs.readFileSync(dataPath('pose-landmarks', 'pose_squats_3d.full.json'), 'utf8'),
    );
    const make = (width: number, height: number) =>
      JSON.stringify({
        image: { width, height },
        frames: px.map((f, i) => ({
          timestampMs: i * 200,
          landmarks: f.map(([x, y, z]) => ({ x: x / 720, y: y / 1280, z: z / 720 })),
          worldLandmarks: world[i].map(([x, y, z]) => ({ x, y, z })),
        })),
      });
    const swapped = path.join(tmp, 'squat_swapped.json');
    fs.writeFileSync(swapped, make(1280, 720));
    const right = path.join(tmp, 'squat_right.json');
    fs.writeFileSync(right, make(720, 1280));
    const s = await startPuppetServer({ port: 0, webRoot: path.join(web, 'puppet') });
    servers.push(s);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    await page.goto(`${s.url}?character=none`);
    await page.waitForFunction('window.kindPuppet && window.kindPuppet.ready', undefined, {
      timeout: 120_000,
    });
    await page.setInputFiles('#recordingFile', swapped);
    await page.waitForFunction('window.kindPuppet.errors.length > 0', undefined, { timeout: 60_000 });
    const err = await page.evaluate(
      () => (window as unknown as { kindPuppet: { errors: string[] } }).kindPuppet.errors,
    );
    expect(err.at(-1)).toMatch(
      /^squat_swapped\.json: the landmarks do not fit the 1280x720 image: .*the recording looks like 720x1280/,
    );
    // the right size plays, named by its file
    await page.setInputFiles('#recordingFile', right);
    await page.waitForFunction('window.kindPuppet.frames >= 1', undefined, { timeout: 60_000 });
    const status = await page.evaluate(
      () => (window as unknown as { kindPuppet: { status: string } }).kindPuppet.status,
    );
    expect(status).toMatch(/^playing squat_right\.json \(65 frames\)$/);
    await page.close();
  });

  it('without --landmarks the button plays the embedded default and says so', async () => {
    const s = await startPuppetServer({ port: 0, webRoot: path.join(web, 'puppet') });
    servers.push(s);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    await page.goto(s.url);
    await page.waitForFunction('window.kindPuppet && window.kindPuppet.ready', undefined, {
      timeout: 120_000,
    });
    expect(await page.textContent('#playDefault')).toBe('Play default recording');
    await page.close();
  });
});
