/**
 * The drawing puppet page in headless Debian chromium (playwright-core, /usr/bin/chromium), served by
 * startPuppetServer with the page built by tools/build.mjs:
 * - recorded landmark files, no camera: a figure drawn on the page's pad driven by a synthetic recording
 *   (hips bobbing, one forearm hidden for a stretch), picked through the page's file input; char1 loaded
 *   through the AnimatedDrawings file input and driven by the real squat reference (tfjs pose_squats.full.json
 *   as a recording): the drawing's hips go down and up with the person's, joints measured, figures finite;
 * - auto-rig: the offline pose model run on a photo of a person places the drawing's joints;
 * - a fake webcam fed from the real squat video (Debian ffmpeg -> .y4m, chromium's fake capture device)
 *   through the offline @mediapipe/pose backend drives char1: hips down and up, joints measured, live
 *   figures present and finite, the "record" output parses as a recording. Screenshot: /tmp/puppet-page-camera.png.
 * Skipped with a printed reason without chromium (all), ffmpeg or the shared data (the parts needing them).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type PuppetServer, startPuppetServer } from '../src/cli/puppetServe';
import { loadCharacter } from '../src/io/node';
import {
  JOINT_STATES,
  type Landmark,
  type LandmarkRecording,
  PuppetSession,
  parseLandmarkRecording,
  parseTfjsReference,
  triangleQuality,
} from '../src/puppet';
import type { KindPuppetApi } from '../src/web/puppet/main';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { findTool } from './helpers/tools';

const CHROMIUM = '/usr/bin/chromium';
/** The squat reference as the page reads it (/squat.json), for the Node run beside the page's. */
let squatRec: LandmarkRecording;
const ROOT = path.resolve(__dirname, '..');
const CHAR1 = dataPath('animated-drawings/characters/char1');
const SQUAT_MP4 = dataPath('pose-landmarks/pose_squats.mp4');
const SQUAT_JSON = dataPath('pose-landmarks/pose_squats.full.json');
const SQUAT_3D = dataPath('pose-landmarks/pose_squats_3d.full.json');
const PERSON_PHOTO = dataPath('pose-landmarks/images/full-body.png');

/** The embedded default drawing and recording (made by tools/make-puppet-sample.mjs), served by default. */
const DEFAULT_DIR = path.join(ROOT, 'assets/default/puppet');
const HAS_DEFAULT =
  fs.existsSync(path.join(DEFAULT_DIR, 'texture.png')) &&
  fs.existsSync(path.join(DEFAULT_DIR, 'recording.json'));
if (!HAS_DEFAULT)
  console.warn(`[skip] puppet page default drawing: ${DEFAULT_DIR} has no texture.png + recording.json`);
const itDefault = HAS_DEFAULT ? it : it.skip;

const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const FFMPEG = findTool('ffmpeg');
if (!HAS_CHROMIUM) console.warn(`[skip] puppet page browser tests: ${CHROMIUM} not found`);
const describeBrowser = HAS_CHROMIUM ? describe : describe.skip;
const itData = HAS_SHARED_DATA ? it : it.skip;
if (!HAS_SHARED_DATA) console.warn('[skip] puppet page on real data (char1, squat): shared data not found');
const itCamera = HAS_SHARED_DATA && FFMPEG ? it : it.skip;
if (!FFMPEG) console.warn('[skip] puppet page fake webcam: ffmpeg not found (apt-get install ffmpeg)');

type Win = { kindPuppet: KindPuppetApi };

let tmp: string;
let server: PuppetServer;

async function waitFor(page: Page, fn: string, timeout = 300_000): Promise<void> {
  await page.waitForFunction(fn, undefined, { timeout, polling: 100 });
}

/** Pearson correlation of two series. */
function correlation(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

/**
 * A synthetic recording (640x480, 30 fps, 90 frames): a person standing facing the camera whose hips (and
 * everything) bob by 40 px with a 1.5 s period; the right forearm (elbow, wrist, hand landmarks) has
 * visibility 0.05 from frame 30 to 49.
 */
function syntheticRecording(): string {
  // [x, y] px of the 33 BlazePose landmarks, person's left on image right
  const base: [number, number][] = [
    [320, 100], // 0 nose
    [326, 94],
    [330, 94],
    [334, 94],
    [314, 94],
    [310, 94],
    [306, 94], // eyes
    [340, 100],
    [300, 100], // ears
    [326, 112],
    [314, 112], // mouth
    [360, 150],
    [280, 150], // shoulders 11 L, 12 R
    [390, 200],
    [250, 200], // elbows
    [410, 250],
    [230, 250], // wrists
    [414, 262],
    [226, 262],
    [412, 264],
    [228, 264],
    [406, 258],
    [234, 258], // pinky, index, thumb
    [345, 260],
    [295, 260], // hips 23 L, 24 R
    [350, 340],
    [290, 340], // knees
    [352, 420],
    [288, 420], // ankles
    [350, 430],
    [290, 430],
    [362, 436],
    [278, 436], // heels, foot index
  ];
  const hidden = new Set([14, 16, 18, 20, 22]);
  const frames = [];
  for (let f = 0; f < 90; f++) {
    const dy = 20 - 20 * Math.cos((2 * Math.PI * f) / 45);
    const landmarks: Landmark[] = base.map(([x, y], i) => ({
      x: x / 640,
      y: (y + (i >= 23 ? 0.4 : 1) * dy) / 480,
      z: 0,
      visibility: f >= 30 && f < 50 && hidden.has(i) ? 0.05 : 0.98,
    }));
    frames.push({ timestampMs: Math.round((f * 1000) / 30), landmarks });
  }
  return JSON.stringify({ image: { width: 640, height: 480 }, frames });
}

beforeAll(async () => {
  if (!HAS_CHROMIUM) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'puppet-page-'));
  const web = path.join(tmp, 'web');
  execFileSync(process.execPath, [path.resolve(ROOT, '../tools/build.mjs'), 'web', web], {
    stdio: 'inherit',
  });
  const files: Record<string, string> = {};
  if (HAS_SHARED_DATA) {
    for (const f of ['texture.png', 'mask.png', 'char_cfg.yaml'])
      files[`/chars/char1/${f}`] = path.join(CHAR1, f);
    files['/photos/full-body.png'] = PERSON_PHOTO;
    const rec = parseTfjsReference(
      fs.readFileSync(SQUAT_JSON, 'utf8'),
      fs.readFileSync(SQUAT_3D, 'utf8'),
      'pose_squats.full.json',
      { width: 720, height: 1280 },
      5,
    );
    fs.writeFileSync(path.join(tmp, 'squat.json'), JSON.stringify({ image: rec.image, frames: rec.frames }));
    files['/squat.json'] = path.join(tmp, 'squat.json');
    squatRec = parseLandmarkRecording(fs.readFileSync(path.join(tmp, 'squat.json'), 'utf8'), 'squat.json');
  }
  server = await startPuppetServer({ port: 0, webRoot: path.join(web, 'puppet'), files });
});

afterAll(async () => {
  await server?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describeBrowser('puppet page, recorded landmark files (no camera)', () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a figure drawn on the pad follows a recording picked through the file input', async () => {
    await page.goto(`${server.url}?character=none`);
    await waitFor(page, 'window.kindPuppet && window.kindPuppet.ready');
    // a stick figure with a filled body: head, torso, arms, legs (pad px)
    await page.evaluate(() =>
      (window as unknown as Win).kindPuppet.drawAndUse(
        [
          [
            [320, 90],
            [320, 110],
          ], // head (a thick dot)
          [
            [320, 120],
            [320, 300],
          ], // torso
          [
            [320, 160],
            [240, 230],
          ], // right arm (image left)
          [
            [320, 160],
            [400, 230],
          ], // left arm
          [
            [320, 300],
            [280, 450],
          ], // right leg
          [
            [320, 300],
            [360, 450],
          ], // left leg
        ],
        28,
      ),
    );
    const character = await page.evaluate(() => (window as unknown as Win).kindPuppet.character);
    expect(character!.name).toBe('drawing');
    expect(character!.vertices).toBeGreaterThan(50);
    expect(character!.triangles).toBeGreaterThan(50);

    const file = path.join(tmp, 'synthetic.json');
    fs.writeFileSync(file, syntheticRecording());
    await page.setInputFiles('#recordingFile', file);
    // played in real time, looping: wait for more than one pass
    await waitFor(page, 'window.kindPuppet.frames > 100');
    const got = await page.evaluate(() => {
      const k = (window as unknown as Win).kindPuppet;
      return { h: k.history, figures: k.figures(), shown: k.shown(), skinned: k.skinned(), source: k.source };
    });
    await page.evaluate(() => (window as unknown as Win).kindPuppet.stop());
    expect(got.source).toBe('recording');
    const n = 90; // the first pass
    const drawY = got.h.hipsDrawingY.slice(0, n);
    const poseY = got.h.hipsPoseY.slice(0, n);
    expect(drawY.every(Number.isFinite)).toBe(true);
    // the person's hips bob 16 px (0.4 x 40) in a 480 px image; the drawing's follow, scaled by torso lengths
    expect(Math.max(...poseY) - Math.min(...poseY)).toBeGreaterThan(10);
    expect(Math.max(...drawY) - Math.min(...drawY)).toBeGreaterThan(5);
    expect(correlation(drawY, poseY)).toBeGreaterThan(0.95);
    // the hidden forearm: not all 21 measured while hidden, all measured before
    expect(got.h.measured[20]).toBe(21);
    expect(Math.min(...got.h.measured.slice(32, 50))).toBeLessThan(21);
    expect(got.skinned!.every(Number.isFinite)).toBe(true);
    for (const k of ['jitterRaw', 'jitterSmoothed', 'rateHz'] as const)
      expect(Number.isFinite(got.figures[k])).toBe(true);
    // the recording's own rate (30 fps, timestamps rounded to ms)
    expect(Math.abs(got.figures.rateHz - 30)).toBeLessThan(0.5);
    expect(got.shown.fSource).toBe('recording');
    expect(pageErrors).toEqual([]);
  });

  itDefault(
    'the embedded default drawing is preloaded and its recording shows every joint state',
    async () => {
      await page.goto(server.url);
      await waitFor(page, 'window.kindPuppet && window.kindPuppet.ready');
      const character = await page.evaluate(() => (window as unknown as Win).kindPuppet.character);
      expect(character?.name).toBe('default');
      const n = await page.evaluate(() =>
        (window as unknown as Win).kindPuppet.playRecording('/default/recording.json', { realtime: false }),
      );
      const got = await page.evaluate(() => {
        const k = (window as unknown as Win).kindPuppet;
        return {
          h: k.history,
          person: k.personFrames,
          frames: k.frames,
          joints: k.joints(),
          skinned: k.skinned(),
        };
      });
      expect(got.frames).toBe(n);
      // the default recording has frames without a person and a hidden forearm: not every frame all measured
      expect(got.person).toBeLessThan(n);
      expect(Math.min(...got.h.measured.filter((_, i) => got.h.person[i]))).toBeLessThan(21);
      expect(got.joints.every((j) => Number.isFinite(j.x) && Number.isFinite(j.y))).toBe(true);
      expect(got.skinned!.every(Number.isFinite)).toBe(true);
      expect(pageErrors).toEqual([]);
    },
  );

  itData('char1 through the AnimatedDrawings file input, driven by the real squat reference', async () => {
    await page.goto(`${server.url}?character=none`);
    await waitFor(page, 'window.kindPuppet && window.kindPuppet.ready');
    await page.setInputFiles(
      '#adFiles',
      ['texture.png', 'mask.png', 'char_cfg.yaml'].map((f) => path.join(CHAR1, f)),
    );
    await waitFor(page, "window.kindPuppet.character && window.kindPuppet.character.name === 'character'");
    const character = await page.evaluate(() => (window as unknown as Win).kindPuppet.character);
    expect([character!.width, character!.height]).toEqual([508, 602]);
    const frames = await page.evaluate(() =>
      (window as unknown as Win).kindPuppet.playRecording('/squat.json', { realtime: false }),
    );
    expect(frames).toBe(65);
    const got = await page.evaluate(() => {
      const k = (window as unknown as Win).kindPuppet;
      return { h: k.history, figures: k.figures(), joints: k.joints(), person: k.personFrames };
    });
    expect(got.person).toBe(65);
    // every joint measured in (nearly) every frame: the squat has no occlusion
    const measured = got.h.measured.reduce((s, v) => s + v, 0) / 65;
    expect(measured).toBeGreaterThan(20);
    const poseY = got.h.hipsPoseY;
    const drawY = got.h.hipsDrawingY;
    // hips go down and up: the person's hips move over 100 px of the 1280 px video
    expect(Math.max(...poseY) - Math.min(...poseY)).toBeGreaterThan(100);
    const rangeDraw = Math.max(...drawY) - Math.min(...drawY);
    expect(rangeDraw).toBeGreaterThan(20);
    expect(correlation(drawY, poseY)).toBeGreaterThan(0.95);
    // down then up: the lowest hips lie strictly inside the take, and it rises again after
    const low = drawY.indexOf(Math.max(...drawY));
    expect(low).toBeGreaterThan(0);
    expect(drawY[drawY.length - 1]).toBeLessThan(drawY[low] - rangeDraw / 3);
    expect(got.joints.every((j) => Number.isFinite(j.x) && Number.isFinite(j.y))).toBe(true);
    expect(got.joints.every((j) => (JOINT_STATES as readonly string[]).includes(j.state))).toBe(true);
    expect(got.figures.rateHz).toBeCloseTo(5, 5); // the recording's own 5 fps
    expect(got.figures.jitterSmoothed).toBeLessThan(got.figures.jitterRaw);
    // the page draws the deformation kind puppet render draws (issue 22 part 3: LBS + ARAP + fold-over
    // guard, on the CPU in both): its last frame's vertices are PuppetSession's, and no triangle is flipped
    const skinned = await page.evaluate(() => (window as unknown as Win).kindPuppet.skinned());
    const session = new PuppetSession(loadCharacter(CHAR1), { image: squatRec.image });
    for (const f of squatRec.frames) session.step(f);
    expect(skinned).toHaveLength(session.skinned.length);
    let worst = 0;
    for (let k = 0; k < skinned!.length; k++)
      worst = Math.max(worst, Math.abs(skinned![k] - session.skinned[k]));
    expect(worst).toBeLessThan(1e-3);
    expect(triangleQuality(session.mesh, skinned!).flipped).toBe(0);
    // and in the same order (issue 22 part 2, layers): the page's triangle order is PuppetSession's
    const layers = await page.evaluate(() => (window as unknown as Win).kindPuppet.layers());
    expect(layers!.order).toEqual(Array.from(session.drawOrder!.order));
    expect(layers!.groups).toEqual(
      Array.from(session.drawOrder!.groupOrder, (g) => session.drawOrder!.groups[g].name),
    );
    console.log(
      `[puppet page] char1 <- squat reference: hips ${Math.min(...drawY).toFixed(0)}..${Math.max(...drawY).toFixed(0)} px, ` +
        `measured ${measured.toFixed(2)}/21, jitter ${got.figures.jitterRaw.toFixed(2)} -> ${got.figures.jitterSmoothed.toFixed(2)} body/s^2`,
    );
    expect(pageErrors).toEqual([]);
  });

  itData('auto-rig: the offline pose model run on a photo of a person places the joints', async () => {
    await page.goto(`${server.url}?image=/photos/full-body.png&backend=legacy&complexity=1`);
    await waitFor(page, 'window.kindPuppet && window.kindPuppet.ready && window.kindPuppet.character');
    const before = await page.evaluate(() => (window as unknown as Win).kindPuppet.joints());
    const moved = await page.evaluate(() => (window as unknown as Win).kindPuppet.suggestJoints());
    const after = await page.evaluate(() => (window as unknown as Win).kindPuppet.joints());
    expect(moved).toBeGreaterThanOrEqual(15);
    const at = (name: string) => after.find((j) => j.name === name)!;
    // a person standing upright facing the camera: head above neck above hips above feet, left on image right
    expect(at('Head').y).toBeLessThan(at('Neck').y);
    expect(at('Neck').y).toBeLessThan(at('Hips').y);
    expect(at('Hips').y).toBeLessThan(at('LeftFoot').y);
    expect(at('LeftUpperArm').x).toBeGreaterThan(at('RightUpperArm').x);
    expect(after.filter((j) => j.state === 'measured').length).toBe(moved);
    expect(after.some((j, i) => Math.hypot(j.x - before[i].x, j.y - before[i].y) > 5)).toBe(true);
    expect(pageErrors).toEqual([]);
  });

  it('a six-armed AnimatedDrawings character (issue 22) loads through the file input and moves all six arms', async () => {
    const dir = path.join(tmp, 'six-arms');
    execFileSync(
      process.execPath,
      [path.resolve(ROOT, '../tools/make-puppet-sample.mjs'), '--out', dir, '--figure', 'six-arms'],
      {
        stdio: 'pipe',
      },
    );
    await page.goto(`${server.url}?character=none`);
    await waitFor(page, 'window.kindPuppet && window.kindPuppet.ready');
    await page.setInputFiles(
      '#adFiles',
      ['texture.png', 'mask.png', 'char_cfg.yaml'].map((f) => path.join(dir, f)),
    );
    await waitFor(page, "window.kindPuppet.character && window.kindPuppet.character.name === 'character'");
    const rest = await page.evaluate(() => (window as unknown as Win).kindPuppet.joints());
    expect(rest).toHaveLength(28);
    // the default recording ends with the person standing, arms hanging: every drawn arm (drawn raised,
    // level and down) swings down towards the person's; the fan closes against its lower bound (rig.ts: an
    // arm fan stays on its side, 0 = hanging along the body .. 150 degrees), keeping its drawn order
    await page.evaluate(() =>
      (window as unknown as Win).kindPuppet.playRecording('/default/recording.json', { realtime: false }),
    );
    const posed = await page.evaluate(() => (window as unknown as Win).kindPuppet.joints());
    await page.screenshot({ path: '/tmp/puppet-page-six-arms.png' });
    const at = (js: typeof rest, name: string) => js.find((j) => j.name === name)!;
    // side angle of an upper arm, degrees: 0 hanging straight down (image y down), 90 level, 180 straight up;
    // the character's right arm is on the image's left
    const sideAngle = (js: typeof rest, side: string, k: number) => {
      const dx = at(js, `${side}_elbow${k}`).x - at(js, `${side}_shoulder${k}`).x;
      const dy = at(js, `${side}_elbow${k}`).y - at(js, `${side}_shoulder${k}`).y;
      return (Math.atan2(side === 'right' ? -dx : dx, dy) * 180) / Math.PI;
    };
    for (const side of ['right', 'left'])
      for (const k of [1, 2, 3]) {
        const r = at(rest, `${side}_hand${k}`);
        const p = at(posed, `${side}_hand${k}`);
        expect(Math.hypot(p.x - r.x, p.y - r.y)).toBeGreaterThan(40);
        expect(sideAngle(posed, side, k)).toBeLessThan(sideAngle(rest, side, k));
        // the sector's 0 is along the body (perpendicular to the drawn shoulder line, which the person's lean
        // tilts a few degrees from the image's vertical): no arm swings across the body
        expect(sideAngle(posed, side, k)).toBeGreaterThan(-5);
        if (k > 1) expect(sideAngle(posed, side, k - 1)).toBeGreaterThan(sideAngle(posed, side, k));
      }
    expect(posed.every((j) => Number.isFinite(j.x) && Number.isFinite(j.y))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});

describeBrowser('puppet page, fake webcam from the real squat video', () => {
  itCamera('the offline @mediapipe/pose backend drives char1 from the video: hips down and up', async () => {
    // chromium's fake capture device plays a .y4m file (looping); 360x640 keeps it at 22 MB
    const y4m = path.join(tmp, 'squat.y4m');
    execFileSync(FFMPEG!, [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-i',
      SQUAT_MP4,
      '-vf',
      'scale=360:640',
      '-pix_fmt',
      'yuv420p',
      y4m,
    ]);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-video-capture=${y4m}`,
      ],
    });
    const pageErrors: string[] = [];
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await page.goto(`${server.url}?character=/chars/char1/&backend=legacy&complexity=0&source=camera`);
      await waitFor(page, "window.kindPuppet && window.kindPuppet.source === 'camera'");
      await waitFor(page, 'window.kindPuppet.frames >= 3');
      await page.evaluate(() => (window as unknown as Win).kindPuppet.startRecording());
      // at least 18 frames (a whole pass of the 13 s video at about 1 inference per second on a quiet
      // machine), and then until the frames seen hold a squat down and up: the fake camera plays in real
      // time, so on a loaded machine the inferences sample other moments of the (looping) video; wait for
      // the motion, not for a count that assumes a speed
      await waitFor(
        page,
        `(() => {
          const k = window.kindPuppet;
          if (k.frames < 18) return false;
          const h = k.history;
          const p = [], d = [];
          for (let i = 0; i < h.person.length; i++) if (h.person[i]) { p.push(h.hipsPoseY[i]); d.push(h.hipsDrawingY[i]); }
          if (d.length < 10 || !d.every(Number.isFinite)) return false;
          const dMax = Math.max(...d), dMin = Math.min(...d);
          if (Math.max(...p) - Math.min(...p) <= 32 || dMax - dMin <= 15) return false;
          const later = d.slice(d.indexOf(dMax));
          return later.length > 1 && Math.min(...later) < dMax - (dMax - dMin) / 3;
        })()`,
      );
      const json = await page.evaluate(() => (window as unknown as Win).kindPuppet.stopRecording(false));
      await page.waitForTimeout(300); // one refresh of the figures
      const got = await page.evaluate(() => {
        const k = (window as unknown as Win).kindPuppet;
        return {
          h: k.history,
          figures: k.figures(),
          shown: k.shown(),
          person: k.personFrames,
          frames: k.frames,
          skinned: k.skinned(),
          backend: k.backend,
        };
      });
      await page.screenshot({ path: '/tmp/puppet-page-camera.png' });
      expect(got.backend).toBe('legacy');
      expect(got.person).toBeGreaterThanOrEqual(got.frames - 2);
      const ok = got.h.person.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
      const poseY = ok.map((i) => got.h.hipsPoseY[i]);
      const drawY = ok.map((i) => got.h.hipsDrawingY[i]);
      const measured = ok.map((i) => got.h.measured[i]);
      // the person squats: the hips move over 5 % of the 640 px frame; the drawing's follow
      expect(Math.max(...poseY) - Math.min(...poseY)).toBeGreaterThan(32);
      expect(Math.max(...drawY) - Math.min(...drawY)).toBeGreaterThan(15);
      expect(correlation(drawY, poseY)).toBeGreaterThan(0.9);
      // down and up: after the lowest frame the hips rise again by at least a third of the range
      const lowest = drawY.indexOf(Math.max(...drawY));
      const later = drawY.slice(lowest);
      expect(Math.min(...(later.length > 1 ? later : drawY))).toBeLessThan(
        Math.max(...drawY) - (Math.max(...drawY) - Math.min(...drawY)) / 3,
      );
      expect(measured.reduce((s, v) => s + v, 0) / measured.length).toBeGreaterThan(18);
      expect(got.skinned!.every(Number.isFinite)).toBe(true);
      // live figures: present, finite, and what the page shows
      expect(got.figures.rateHz).toBeGreaterThan(0);
      for (const k of ['rateHz', 'inferenceMs', 'jitterRaw', 'jitterSmoothed'] as const)
        expect([k, Number.isFinite(got.figures[k])]).toEqual([k, true]);
      expect(got.shown.fRate).toMatch(/^\d+\.\d$/);
      expect(got.shown.fInference).toMatch(/^\d+$/);
      expect(got.shown.fJitterRaw).toMatch(/^\d+\.\d\d$/);
      expect(got.shown.fJitterSmoothed).toMatch(/^\d+\.\d\d$/);
      expect(got.shown.fSource).toBe('camera');
      expect(got.shown.fBackend).toBe('legacy');
      expect(got.shown.fPerson).toBe('yes');
      expect(got.shown.fVisibility).toBe('given');
      // the recorded webcam landmarks: the format, read back by the pose side's reader
      const rec = parseLandmarkRecording(json, 'recorded.json');
      expect(rec.image).toEqual({ width: 360, height: 640 });
      expect(rec.frames.length).toBeGreaterThanOrEqual(10);
      expect(rec.frames[0].timestampMs).toBe(0);
      const withPerson = rec.frames.filter((f) => f.landmarks && f.landmarks.length === 33);
      expect(withPerson.length).toBeGreaterThanOrEqual(rec.frames.length - 2);
      expect(withPerson.every((f) => f.landmarks!.every((l) => typeof l.visibility === 'number'))).toBe(true);
      expect(withPerson.every((f) => f.worldLandmarks?.length === 33)).toBe(true);
      console.log(
        `[puppet page] fake webcam: ${got.frames} frames, ${got.figures.rateHz.toFixed(2)} Hz, ` +
          `${got.figures.inferenceMs.toFixed(0)} ms per inference, hips ${Math.min(...drawY).toFixed(0)}..` +
          `${Math.max(...drawY).toFixed(0)} px, jitter ${got.figures.jitterRaw.toFixed(2)} -> ` +
          `${got.figures.jitterSmoothed.toFixed(2)} body/s^2; screenshot /tmp/puppet-page-camera.png`,
      );
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
