/**
 * The live webcam mocap page (src/web/mocap, issue 23 item 4) in headless Debian chromium (playwright-core,
 * /usr/bin/chromium), served by startMocapServer (src/cli/mocapServe.ts) with the page built by tools/build.mjs:
 * - a recorded landmark file (the real squat, pose_squats.full.json + _3d as `kind mocap` reads it, 720x1280,
 *   5 fps) given to the page: calibrated on its own frames, every frame's 21 bone world rotations equal to the
 *   Node solver's (src/mocap runMocap's calibration + MocapSolver) on the same recording within 1e-9 (the same
 *   code in V8 both sides); the default avatar, posed through the live hub (src/mocap MocapHubDriver), has its
 *   hips go down and up and its knees bend, within 0.1 degree of the Node hub driver's on the same avatar
 *   (runMocapThroughHub; measured on the drawn avatar's hip, knee and ankle);
 * - a .vrm (cryptovoxels) dropped on the 3-D view replaces the avatar and follows the same file (knees
 *   within 0.1 degree of the Node hub driver's again); a dropped .txt is refused in one line;
 * - the squat .mp4 picked as a video file, stepped through at 1 frame per second through @mediapipe/pose
 *   (lite): every step detected and solved, the avatar's hips down and up;
 * - a fake webcam fed from the real squat video (Debian ffmpeg -> .y4m, chromium's fake capture device)
 *   through the offline @mediapipe/pose backend (lite): the page calibrates on its first 3 frames with a
 *   person, the avatar's hips go down and up across the squat and its knees bend (the angle range measured
 *   on the drawn avatar), bones measured with confidence, the figures (inference ms, pose ms, jitter) finite
 *   and shown; the Record button's download is read by `kind mocap` (runMocapCommand). Screenshot: /tmp/mocap-page-camera.png.
 * Skipped with a printed reason without chromium (all), the built page, ffmpeg or the shared data.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { runMocapCommand } from '../src/cli/mocap';
import { type MocapServer, startMocapServer } from '../src/cli/mocapServe';
import { HumanBodyBones as H } from '../src/core';
import { readAvatar } from '../src/io/gltf';
import { loadLandmarkRecording } from '../src/io/node';
import {
  calibrateMocap,
  HUB_RUN_JOINTS,
  MOCAP_BONES,
  type MocapHubRun,
  MocapSolver,
  mocapKneeAngles,
  runMocap,
  runMocapThroughHub,
} from '../src/mocap';
import type { LandmarkRecording } from '../src/puppet';
import { parseLandmarkRecording, serializeLandmarkRecording } from '../src/puppet';
import type { KindMocapApi } from '../src/web/mocap/main';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { findTool } from './helpers/tools';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '..');
const WEB_ROOT = path.join(ROOT, 'dist/web/mocap');
const SQUAT_MP4 = dataPath('pose-landmarks/pose_squats.mp4');
const SQUAT_JSON = dataPath('pose-landmarks/pose_squats.full.json');

const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const HAS_PAGE = fs.existsSync(path.join(WEB_ROOT, 'mocap.js'));
const FFMPEG = findTool('ffmpeg');
if (!HAS_CHROMIUM) console.warn(`[skip] mocap page browser tests: ${CHROMIUM} not found`);
if (!HAS_PAGE)
  console.warn(`[skip] mocap page browser tests: ${WEB_ROOT}/mocap.js not built (npm run build)`);
if (!HAS_SHARED_DATA) console.warn('[skip] mocap page on the real squat: shared data not found');
if (!FFMPEG) console.warn('[skip] mocap page fake webcam: ffmpeg not found (apt-get install ffmpeg)');
const describeBrowser = HAS_CHROMIUM && HAS_PAGE ? describe : describe.skip;
const itData = HAS_SHARED_DATA ? it : it.skip;
const itCamera = HAS_SHARED_DATA && FFMPEG ? it : it.skip;

type Win = { kindMocap: KindMocapApi };

let tmp: string;
let server: MocapServer;
let browser: Browser;

async function waitFor(page: Page, fn: string, timeout = 120_000): Promise<void> {
  await page.waitForFunction(fn, undefined, { timeout, polling: 100 });
}

/** Largest absolute difference, allowing q and -q (the same rotation). */
function quatDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i += 4) {
    let same = 0;
    let flip = 0;
    for (let k = 0; k < 4; k++) {
      same = Math.max(same, Math.abs(a[i + k] - b[i + k]));
      flip = Math.max(flip, Math.abs(a[i + k] + b[i + k]));
    }
    worst = Math.max(worst, Math.min(same, flip));
  }
  return worst;
}

/** The knee angles (degrees) per frame of a Node run through the hub, from its hip, knee and ankle. */
function hubKnees(run: MocapHubRun): { left: number[]; right: number[] } {
  const J = HUB_RUN_JOINTS.length;
  const at = (f: number, h: number) => {
    const o = (f * J + HUB_RUN_JOINTS.indexOf(h as (typeof HUB_RUN_JOINTS)[number])) * 3;
    return [run.joints[o], run.joints[o + 1], run.joints[o + 2]];
  };
  const angle = (f: number, a: number, b: number, c: number) => {
    const p = at(f, a);
    const q = at(f, b);
    const r = at(f, c);
    const u = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
    const v = [r[0] - q[0], r[1] - q[1], r[2] - q[2]];
    const d = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(...u) * Math.hypot(...v));
    return (Math.acos(Math.max(-1, Math.min(1, d))) * 180) / Math.PI;
  };
  const F = run.frameCount;
  return {
    left: Array.from({ length: F }, (_, f) => angle(f, H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot)),
    right: Array.from({ length: F }, (_, f) => angle(f, H.RightUpperLeg, H.RightLowerLeg, H.RightFoot)),
  };
}

/** The squat through the hub in Node onto an avatar file, as the page poses it. */
async function nodeHubKnees(rec: LandmarkRecording, avatarFile: string) {
  const av = await readAvatar(new Uint8Array(fs.readFileSync(avatarFile)), {
    fileName: path.basename(avatarFile),
  });
  return hubKnees(runMocapThroughHub(rec, av.skeleton, { source: 'squat' }));
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-mocap-page-'));
  if (!HAS_CHROMIUM || !HAS_PAGE) return;
  server = await startMocapServer({ port: 0, webRoot: WEB_ROOT });
});

afterAll(async () => {
  await server?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describeBrowser('mocap page, a recorded landmark file', () => {
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });

  itData('the squat file: the same bone rotations as the Node solver; the avatar squats', async () => {
    const rec = loadLandmarkRecording(SQUAT_JSON, {
      imageSize: { width: 720, height: 1280 },
      fps: 5,
    }).recording;
    const json = serializeLandmarkRecording(rec);
    // the Node side: runMocap's calibration and solver, frame by frame
    const solver = new MocapSolver(calibrateMocap(rec.frames, { source: 'squat' }));
    const node = rec.frames.map((f) => {
      solver.step(f, rec.image);
      return Array.from(solver.worldRotations);
    });
    const solverKnees = mocapKneeAngles(runMocap(rec, { source: 'squat' }));
    const nodeKnees = await nodeHubKnees(rec, path.join(ROOT, 'assets/default/default-avatar.glb'));
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(server.url);
    await waitFor(page, 'window.kindMocap && window.kindMocap.ready');
    const n = await page.evaluate(
      (text) => (window as unknown as Win).kindMocap.playRecording(text, { realtime: false, name: 'squat' }),
      json,
    );
    const got = await page.evaluate(() => {
      const k = (window as unknown as Win).kindMocap;
      return {
        h: k.history,
        bones: k.bones(),
        figures: k.figures(),
        calibrationFrames: k.calibrationFrames,
        avatar: k.avatar,
        hipsRot: k.avatarLocalRotation('Hips'),
        errors: k.errors,
      };
    });
    expect(n).toBe(65);
    expect(got.errors).toEqual([]);
    expect(got.avatar).toEqual({ name: 'default', format: 'gltf', bones: expect.any(Number) });
    expect(got.calibrationFrames).toBe(solver.calibration.frames.length);
    expect(got.h.worldRotations.length).toBe(65);
    let worst = 0;
    for (let f = 0; f < 65; f++) worst = Math.max(worst, quatDiff(got.h.worldRotations[f], node[f]));
    expect(worst).toBeLessThan(1e-9);
    // every bone measured in every frame (MOCAP.md: the real squat), confidence 0.8 (no visibility given)
    expect(got.h.measured.every((m) => m === 21)).toBe(true);
    expect(got.bones.map((b) => b.name)).toEqual([...MOCAP_BONES]);
    expect(got.bones.every((b) => b.state === 'measured' && Math.abs(b.confidence - 0.8) < 1e-9)).toBe(true);
    // the avatar squats: its hips go down and up (three dips in the take), its knees bend
    const y = got.h.avatarHipsY;
    const yMax = Math.max(...y);
    const yMin = Math.min(...y);
    expect(yMax - yMin).toBeGreaterThan(0.15);
    const low = y.indexOf(yMin);
    expect(Math.max(...y.slice(low))).toBeGreaterThan(yMin + 0.1);
    const kl = got.h.avatarKneeL;
    const kr = got.h.avatarKneeR;
    expect(Math.max(...kl)).toBeGreaterThan(150);
    expect(Math.min(...kl)).toBeLessThan(100);
    expect(Math.max(...kr)).toBeGreaterThan(150);
    expect(Math.min(...kr)).toBeLessThan(100);
    // the knee angles drawn on the avatar are the Node hub driver's (the same code; the figure is float32)
    let kneeErr = 0;
    let solverErr = 0;
    for (let f = 0; f < 65; f++) {
      kneeErr = Math.max(kneeErr, Math.abs(kl[f] - nodeKnees.left[f]), Math.abs(kr[f] - nodeKnees.right[f]));
      solverErr = Math.max(
        solverErr,
        Math.abs(kl[f] - solverKnees.left[f]),
        Math.abs(kr[f] - solverKnees.right[f]),
      );
    }
    expect(kneeErr).toBeLessThan(0.1);
    expect(got.hipsRot!.every(Number.isFinite)).toBe(true);
    expect(Number.isFinite(got.figures.poseMs)).toBe(true);
    console.log(
      `[mocap page] squat file: 65 frames, world rotations vs Node max |dq| ${worst.toExponential(1)}; ` +
        `avatar hips ${yMin.toFixed(3)}..${yMax.toFixed(3)} m; knees L ${Math.min(...kl).toFixed(0)}-${Math.max(...kl).toFixed(0)}, ` +
        `R ${Math.min(...kr).toFixed(0)}-${Math.max(...kr).toFixed(0)} deg (vs the Node hub driver's: max ${kneeErr.toFixed(3)} deg; vs the solver's own: max ${solverErr.toFixed(1)} deg, the hub's filter and leg IK); pose ${got.figures.poseMs.toFixed(2)} ms/frame`,
    );
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});

describeBrowser('mocap page, an avatar dropped on it', () => {
  itData('a .vrm dropped on the 3-D view replaces the default and follows the squat file', async () => {
    const VRM = dataPath('vrm-samples-madjin/cryptovoxels.vrm');
    const rec = loadLandmarkRecording(SQUAT_JSON, {
      imageSize: { width: 720, height: 1280 },
      fps: 5,
    }).recording;
    const nodeKnees = await nodeHubKnees(rec, VRM);
    const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await b.newPage({ viewport: { width: 1280, height: 720 } });
      page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(String(e)));
      await page.goto(server.url);
      await waitFor(page, 'window.kindMocap && window.kindMocap.ready');
      // a drop event carrying the file, as the browser makes one when a file is dropped on the view
      await page.evaluate(
        ([b64, name]) => {
          const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
          const dt = new DataTransfer();
          dt.items.add(new File([bytes], name));
          document
            .getElementById('view')!
            .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        },
        [fs.readFileSync(VRM).toString('base64'), 'cryptovoxels.vrm'],
      );
      await waitFor(page, "window.kindMocap.avatar && window.kindMocap.avatar.name === 'cryptovoxels'");
      // a file that is not an avatar: one line naming it, the avatar kept
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['hello'], 'notes.txt'));
        document
          .getElementById('view')!
          .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.evaluate(
        (text) =>
          (window as unknown as Win).kindMocap.playRecording(text, { realtime: false, name: 'squat' }),
        serializeLandmarkRecording(rec),
      );
      const got = await page.evaluate(() => {
        const k = (window as unknown as Win).kindMocap;
        return { h: k.history, avatar: k.avatar, errors: k.errors };
      });
      expect(got.avatar!.format).toBe('vrm0');
      expect(got.errors).toEqual(['notes.txt: not a .glb or .vrm avatar']);
      const y = got.h.avatarHipsY;
      expect(Math.max(...y) - Math.min(...y)).toBeGreaterThan(0.1);
      let kneeErr = 0;
      for (let f = 0; f < 65; f++)
        kneeErr = Math.max(
          kneeErr,
          Math.abs(got.h.avatarKneeL[f] - nodeKnees.left[f]),
          Math.abs(got.h.avatarKneeR[f] - nodeKnees.right[f]),
        );
      expect(kneeErr).toBeLessThan(0.1);
      console.log(
        `[mocap page] dropped cryptovoxels.vrm: hips ${Math.min(...y).toFixed(3)}..${Math.max(...y).toFixed(3)} m, ` +
          `knees within ${kneeErr.toFixed(3)} deg of the Node hub driver's`,
      );
      expect(pageErrors).toEqual([]);
    } finally {
      await b.close();
    }
  });
});

describeBrowser('mocap page, a video file', () => {
  itData(
    'the squat .mp4 picked as a video file: MediaPipe runs on it, the solver and the avatar follow',
    async () => {
      const b = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      try {
        const page = await b.newPage({ viewport: { width: 1280, height: 720 } });
        page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
        const pageErrors: string[] = [];
        page.on('pageerror', (e) => pageErrors.push(String(e)));
        await page.goto(`${server.url}?backend=legacy&complexity=0&calib=3&videoFps=1`);
        await waitFor(page, 'window.kindMocap && window.kindMocap.ready');
        await page.setInputFiles('#videoFile', SQUAT_MP4);
        await waitFor(page, "window.kindMocap.source === 'video' || window.kindMocap.errors.length > 0");
        // stepped through at 1 frame per video second to the end (13-14 frames: the mp4 runs 13.x s), then stopped
        await waitFor(
          page,
          "window.kindMocap.source === 'none' || window.kindMocap.errors.length > 0",
          300_000,
        );
        const got = await page.evaluate(() => {
          const k = (window as unknown as Win).kindMocap;
          return { h: k.history, frames: k.frames, backend: k.backend, errors: k.errors, shown: k.shown() };
        });
        expect(got.errors).toEqual([]);
        expect(got.backend).toBe('legacy');
        expect([13, 14]).toContain(got.frames);
        expect(got.h.t).toEqual([...Array(got.frames).keys()].map((i) => i * 1000));
        expect(got.h.person.every(Boolean)).toBe(true);
        expect(got.h.measured.every((m) => m >= 15)).toBe(true);
        const y = got.h.avatarHipsY;
        const lo = Math.min(...y);
        const hi = Math.max(...y);
        expect(hi - lo).toBeGreaterThan(0.1);
        expect(Math.max(...y.slice(y.indexOf(lo)))).toBeGreaterThan(lo + (hi - lo) / 3);
        console.log(
          `[mocap page] video file at 1 frame/s: ${got.h.t.length} frames solved, avatar hips ${lo.toFixed(3)}..${hi.toFixed(3)} m, ` +
            `bones measured ${got.h.measured.join(' ')}`,
        );
        expect(pageErrors).toEqual([]);
      } finally {
        await b.close();
      }
    },
  );
});

describeBrowser('mocap page, fake webcam from the real squat video', () => {
  itCamera(
    'MediaPipe -> the solver -> the avatar: hips down and up, knees bend; figures; Record -> kind mocap',
    async () => {
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
      const cam = await chromium.launch({
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
        const page = await cam.newPage({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
        page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
        page.on('pageerror', (e) => pageErrors.push(String(e)));
        await page.goto(`${server.url}?backend=legacy&complexity=0&calib=3&source=camera`);
        await waitFor(page, "window.kindMocap && window.kindMocap.source === 'camera'", 300_000);
        await page.click('#record'); // Record, as a user does
        // until the avatar went down and came back up by a third of its range (the fake camera plays in real
        // time: on a loaded machine the inferences sample other moments of the looping video; wait for the
        // motion, not for a count that assumes a speed), and at least 12 frames solved
        await waitFor(
          page,
          `(() => {
          const h = window.kindMocap.history;
          if (h.avatarHipsY.length < 12) return false;
          const y = h.avatarHipsY;
          const lo = Math.min(...y), hi = Math.max(...y);
          if (!(hi - lo > 0.12)) return false;
          return Math.max(...y.slice(y.indexOf(lo))) > lo + (hi - lo) / 3;
        })()`,
          300_000,
        );
        // Record again stops and offers the landmark file as a download
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#record')]);
        expect(download.suggestedFilename()).toBe('mocap-landmarks.json');
        const file = path.join(tmp, 'recorded.json');
        await download.saveAs(file);
        const json = fs.readFileSync(file, 'utf8');
        await page.waitForTimeout(400); // a refresh of the figures
        const got = await page.evaluate(() => {
          const k = (window as unknown as Win).kindMocap;
          return {
            h: k.history,
            bones: k.bones(),
            figures: k.figures(),
            shown: k.shown(),
            frames: k.frames,
            solved: k.solved,
            calibrationFrames: k.calibrationFrames,
            backend: k.backend,
            errors: k.errors,
          };
        });
        await page.click('#stop'); // the view holds still for the screenshot (no detection lands during it)
        await page.screenshot({ path: '/tmp/mocap-page-camera.png' });
        expect(got.backend).toBe('legacy');
        expect(got.errors).toEqual([]);
        expect(got.calibrationFrames).toBe(3);
        const y = got.h.avatarHipsY;
        const lo = Math.min(...y);
        const hi = Math.max(...y);
        expect(hi - lo).toBeGreaterThan(0.12);
        // the knees bend: straight-ish when standing, well bent at the bottom (the file run: 69-168 degrees)
        const kl = got.h.avatarKneeL.filter(Number.isFinite);
        const kr = got.h.avatarKneeR.filter(Number.isFinite);
        expect(kl.length).toBe(y.length);
        const range = (v: number[]) => Math.max(...v) - Math.min(...v);
        expect(Math.min(range(kl), range(kr))).toBeGreaterThan(40);
        expect(Math.max(...kl, ...kr)).toBeGreaterThan(150);
        expect(Math.min(...kl, ...kr)).toBeLessThan(120);
        // the avatar's hips go down as the solver's do. Through the hub (One-Euro source stage, leg IK, room
        // hips) the avatar's height is not a per-frame monotonic map of the solver's, so with three dips of
        // near equal depth the two lowest frames may fall in different dips: the avatar at the solver's
        // lowest frame is at the bottom of its own range, and the two heights move together
        const sy = got.h.solverHipsY;
        const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
        const my = mean(y);
        const ms = mean(sy);
        let cov = 0;
        let vy = 0;
        let vs = 0;
        for (let i = 0; i < y.length; i++) {
          cov += (y[i] - my) * (sy[i] - ms);
          vy += (y[i] - my) ** 2;
          vs += (sy[i] - ms) ** 2;
        }
        const hipsR = cov / Math.sqrt(vy * vs);
        const atSolverLow = (y[sy.indexOf(Math.min(...sy))] - lo) / (hi - lo);
        expect(hipsR).toBeGreaterThan(0.9);
        expect(atSolverLow).toBeLessThanOrEqual(0.25);
        // bones: MediaPipe gives visibility; the legs and torso are measured with a confidence from it
        const measured = got.h.measured;
        expect(measured.reduce((s, v) => s + v, 0) / measured.length).toBeGreaterThan(15);
        for (const b of got.bones.filter((x) => /Hips|Spine|UpperLeg|LowerLeg/.test(x.name))) {
          expect([b.name, b.state]).toEqual([b.name, 'measured']);
          expect(b.confidence).toBeGreaterThan(0.5);
          expect(b.confidence).toBeLessThanOrEqual(1);
        }
        // figures: finite, and what the page shows
        const f = got.figures;
        expect(f.inferenceMs).toBeGreaterThan(0);
        expect(f.poseMs).toBeGreaterThan(0);
        expect(f.jitter).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(f.jitter)).toBe(true);
        expect(got.shown.fInference).toMatch(/^\d+$/);
        expect(got.shown.fPose).toMatch(/^\d+\.\d\d$/);
        expect(got.shown.fJitter).toMatch(/^\d+\.\d\d$/);
        expect(got.shown.fSource).toBe('camera');
        // Record: the webcam's landmarks as a landmark file, which `kind mocap` reads
        const rec = parseLandmarkRecording(json, 'recorded.json');
        expect(rec.image).toEqual({ width: 360, height: 640 });
        expect(rec.frames.length).toBeGreaterThanOrEqual(10);
        const r = await runMocapCommand(file, { outDir: path.join(tmp, 'out') });
        expect(r.summary.frames).toBe(rec.frames.length);
        expect(fs.existsSync(path.join(tmp, 'out', 'recorded.bvh'))).toBe(true);
        console.log(
          `[mocap page] fake webcam: ${got.frames} frames (${got.solved} solved), inference ${f.inferenceMs.toFixed(0)} ms, ` +
            `pose ${f.poseMs.toFixed(2)} ms, jitter ${f.jitter.toFixed(2)} m/s^2; avatar hips ${lo.toFixed(3)}..${hi.toFixed(3)} m (vs the solver's: r ${hipsR.toFixed(3)}, at the solver's lowest ${(100 * atSolverLow).toFixed(0)} % up its range); ` +
            `knees L ${Math.min(...kl).toFixed(0)}-${Math.max(...kl).toFixed(0)}, R ${Math.min(...kr).toFixed(0)}-${Math.max(...kr).toFixed(0)} deg; ` +
            `measured ${(measured.reduce((s, v) => s + v, 0) / measured.length).toFixed(1)} bones/frame; recorded ${rec.frames.length} frames -> ` +
            `kind mocap: knees ${r.summary.knees.left.min.toFixed(0)}-${r.summary.knees.left.max.toFixed(0)} deg; screenshot /tmp/mocap-page-camera.png`,
        );
        expect(pageErrors).toEqual([]);
      } finally {
        await cam.close();
      }
    },
  );
});
