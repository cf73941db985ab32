/**
 * Issue 22 item 6: @mediapipe/tasks-vision run for real, offline, on a PoseLandmarker `.task` built from the
 * models @mediapipe/pose ships (tools/make-pose-task.mjs: the detector out of pose_solution_packed_assets.data,
 * pose_landmark_full.tflite, TFLite metadata with each model's input normalisation added), in headless
 * Debian chromium (playwright-core), judged against references made apart from it:
 * - without the metadata, the Tasks graph refuses the bundle: the exact error is asserted (and quoted in
 *   docs/puppet.md);
 * - pose.jpg (MediaPipe's own test image) against MediaPipe Tasks' expected PoseLandmarker result
 *   (pose_landmarks.pbtxt) with MediaPipe's own margin, kLandmarksAbsMargin = 0.03 in normalised units
 *   (mediapipe/tasks/cc/vision/pose_landmarker/pose_landmarker_test.cc);
 * - the 65 frames of the squat video in VIDEO mode against @mediapipe/pose's reference output ("full"
 *   model; tfjs-models' test data): image landmarks per coordinate against tfjs-models' 31 px tolerance
 *   (EPSILON_VIDEO), world landmarks against its 0.24 m;
 * - the puppet server offers the built .task and hands it to the page as the tasks backend's model.
 * Skipped with a printed reason without chromium, ffmpeg or the shared data.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { BUILT_POSE_TASK_ROUTE, startPuppetServer } from '../src/cli/puppetServe';
import { dataPath, HAS_SHARED_DATA } from './helpers/data';
import { findTool } from './helpers/tools';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '../..');
const TOOL = path.join(ROOT, 'tools/make-pose-task.mjs');
const VISION = path.join(__dirname, '../node_modules/@mediapipe/tasks-vision');
const POSE_JPG = dataPath('pose-landmarks/pose.jpg');
const POSE_PBTXT = dataPath('pose-landmarks/pose_landmarks.pbtxt');
const SQUAT_MP4 = dataPath('pose-landmarks/pose_squats.mp4');
const SQUAT_JSON = dataPath('pose-landmarks/pose_squats.full.json');
const SQUAT_3D = dataPath('pose-landmarks/pose_squats_3d.full.json');

const HAS_CHROMIUM = fs.existsSync(CHROMIUM);
const FFMPEG = findTool('ffmpeg');
if (!HAS_CHROMIUM) console.warn(`[skip] tasks-vision on the built .task: ${CHROMIUM} not found`);
if (!HAS_SHARED_DATA)
  console.warn('[skip] tasks-vision on the built .task: shared data (pose-landmarks) not found');
if (!FFMPEG)
  console.warn('[skip] tasks-vision over the squat video: ffmpeg not found (apt-get install ffmpeg)');
const describeBrowser = HAS_CHROMIUM && HAS_SHARED_DATA ? describe : describe.skip;
const itVideo = FFMPEG ? it : it.skip;

let tmp: string;
let browser: Browser;
let page: Page;

/** Serves the tasks-vision package, the two .task files, pose.jpg and the squat frames at http://kind.test/. */
async function routeFiles(p: Page): Promise<void> {
  await p.route('http://kind.test/**', async (route) => {
    const u = new URL(route.request().url()).pathname;
    if (u === '/')
      return route.fulfill({ body: '<!doctype html><html><body></body></html>', contentType: 'text/html' });
    let file: string | null = null;
    if (u.startsWith('/tv/')) file = path.join(VISION, u.slice(4));
    else if (u === '/pose.jpg') file = POSE_JPG;
    else if (u.startsWith('/models/') || u.startsWith('/frames/')) file = path.join(tmp, u.slice(1));
    if (!file || u.includes('..') || !fs.existsSync(file))
      return route.fulfill({ status: 404, body: 'not found' });
    const type = /\.m?js$/.test(file)
      ? 'text/javascript'
      : file.endsWith('.wasm')
        ? 'application/wasm'
        : file.endsWith('.png')
          ? 'image/png'
          : file.endsWith('.jpg')
            ? 'image/jpeg'
            : 'application/octet-stream';
    return route.fulfill({ body: fs.readFileSync(file), contentType: type });
  });
  await p.goto('http://kind.test/');
}

interface Run {
  error?: string;
  still?: number[][];
  frames?: ({ image: number[][]; world: number[][] } | null)[];
}

/**
 * Creates a PoseLandmarker on `/models/<task>` (CPU) and runs pose.jpg, then `frames` video frames. The page
 * code is a string: the test's TypeScript transform must not rewrite its dynamic import().
 */
const PAGE_RUN = `async ({ task, frames }) => {
  const vision = await import('http://kind.test/tv/vision_bundle.mjs');
  const fileset = await vision.FilesetResolver.forVisionTasks('http://kind.test/tv/wasm');
  let lm;
  try {
    lm = await vision.PoseLandmarker.createFromOptions(fileset, {
      baseOptions: { modelAssetPath: 'http://kind.test/models/' + task, delegate: 'CPU' },
      runningMode: 'IMAGE',
      numPoses: 1,
    });
  } catch (e) {
    return { error: String(e && e.message ? e.message : e) };
  }
  const load = async (u) => {
    const img = new Image();
    img.src = u;
    await img.decode();
    return img;
  };
  const xy = (p) => [p.x, p.y];
  const first = lm.detect(await load('http://kind.test/pose.jpg')).landmarks[0];
  const still = first ? first.map(xy) : [];
  await lm.setOptions({ runningMode: 'VIDEO' });
  const out = [];
  for (let i = 1; i <= frames; i++) {
    const r = lm.detectForVideo(await load('http://kind.test/frames/f' + String(i).padStart(3, '0') + '.png'), i * 200);
    out.push(r.landmarks[0] ? { image: r.landmarks[0].map(xy), world: r.worldLandmarks[0].map((p) => [p.x, p.y, p.z]) } : null);
  }
  lm.close();
  return { still, frames: out };
}`;

function run(task: string, frames: number): Promise<Run> {
  return page.evaluate(`(${PAGE_RUN})(${JSON.stringify({ task, frames })})`) as Promise<Run>;
}

const quantile = (v: number[], q: number) => [...v].sort((a, b) => a - b)[Math.floor(q * (v.length - 1))];

describeBrowser('@mediapipe/tasks-vision on a .task built from @mediapipe/pose (headless chromium)', () => {
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-pose-task-'));
    fs.mkdirSync(path.join(tmp, 'models'));
    execFileSync('node', [TOOL, '--out', path.join(tmp, 'models/full.task')], { stdio: 'pipe' });
    execFileSync('node', [TOOL, '--no-metadata', '--out', path.join(tmp, 'models/bare.task')], {
      stdio: 'pipe',
    });
    if (FFMPEG) {
      fs.mkdirSync(path.join(tmp, 'frames'));
      execFileSync(FFMPEG, ['-loglevel', 'error', '-i', SQUAT_MP4, path.join(tmp, 'frames/f%03d.png')]);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.setDefaultTimeout(300_000); // actions wait as long as the waits do (a hang guard: a busy machine, not a speed check)
    await routeFiles(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('the build writes a zip of two stored TFLite models named as the PoseLandmarker graph looks them up', () => {
    const bytes = fs.readFileSync(path.join(tmp, 'models/full.task'));
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    const names = execFileSync('unzip', ['-Z1', path.join(tmp, 'models/full.task')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(names).toEqual(['pose_detector.tflite', 'pose_landmarks_detector.tflite']);
    expect(bytes.readUInt16LE(8)).toBe(0); // compression method of the first entry: stored
  });

  it('without TFLite metadata the Tasks graph refuses the legacy models, naming the missing normalisation', async () => {
    const r = await run('bare.task', 0);
    expect(r.error).toContain(
      'Input tensor has type float32: it requires specifying NormalizationOptions metadata to preprocess input images',
    );
  }, 120_000);

  it("pose.jpg: within MediaPipe's own margin (0.03 normalised) of MediaPipe Tasks' expected result", async () => {
    const r = await run('full.task', 0);
    expect(r.error).toBeUndefined();
    const expected = [...fs.readFileSync(POSE_PBTXT, 'utf8').matchAll(/x: ([-\d.e]+)\s+y: ([-\d.e]+)/g)].map(
      (m) => [Number(m[1]), Number(m[2])],
    );
    expect(expected).toHaveLength(33);
    expect(r.still).toHaveLength(33);
    const err = r.still!.map((p, i) =>
      Math.max(Math.abs(p[0] - expected[i][0]), Math.abs(p[1] - expected[i][1])),
    );
    const px = r.still!.map((p, i) =>
      Math.hypot((p[0] - expected[i][0]) * 1000, (p[1] - expected[i][1]) * 667),
    );
    console.log(
      `tasks-vision on the built .task, pose.jpg vs MediaPipe's expected: max |d| ${Math.max(...err).toFixed(4)} normalised, ` +
        `median ${quantile(px, 0.5).toFixed(1)} px, max ${Math.max(...px).toFixed(1)} px (1000x667)`,
    );
    expect(Math.max(...err)).toBeLessThan(0.03);
  }, 120_000);

  itVideo(
    "the squat video: image landmarks within tfjs-models' 31 px of @mediapipe/pose's, world within 0.24 m",
    async () => {
      const r = await run('full.task', 65);
      expect(r.error).toBeUndefined();
      const ref = JSON.parse(fs.readFileSync(SQUAT_JSON, 'utf8')) as number[][][];
      const ref3 = JSON.parse(fs.readFileSync(SQUAT_3D, 'utf8')) as number[][][];
      expect(r.frames).toHaveLength(65);
      const coord: number[] = [];
      const dist: number[] = [];
      const world: number[] = [];
      r.frames!.forEach((f, i) => {
        expect(f).not.toBeNull(); // a person on every frame
        f!.image.forEach((p, k) => {
          const dx = Math.abs(p[0] * 720 - ref[i][k][0]);
          const dy = Math.abs(p[1] * 1280 - ref[i][k][1]);
          coord.push(dx, dy);
          dist.push(Math.hypot(dx, dy));
        });
        f!.world.forEach((p, k) => {
          world.push(Math.hypot(p[0] - ref3[i][k][0], p[1] - ref3[i][k][1], p[2] - ref3[i][k][2]));
        });
      });
      const within = coord.filter((d) => d <= 31).length / coord.length;
      console.log(
        `tasks-vision on the built .task, 65 squat frames vs @mediapipe/pose: ${(100 * within).toFixed(2)} % of coordinates within 31 px ` +
          `(max ${Math.max(...coord).toFixed(1)} px), distance median ${quantile(dist, 0.5).toFixed(1)} px, p95 ${quantile(dist, 0.95).toFixed(1)} px; ` +
          `world median ${(100 * quantile(world, 0.5)).toFixed(1)} cm, max ${(100 * Math.max(...world)).toFixed(1)} cm`,
      );
      expect(within).toBeGreaterThan(0.995);
      expect(quantile(dist, 0.5)).toBeLessThan(10);
      expect(Math.max(...world)).toBeLessThan(0.24);
    },
    300_000,
  );

  it('the puppet server offers the built .task and gives it to the page as the tasks model', async () => {
    const built = path.join(__dirname, '../dist/models/pose_landmarker_full_from_pose.task');
    if (!fs.existsSync(built)) {
      console.warn(`[skip] puppet server's built .task: ${built} not built (npm run build)`);
      return;
    }
    const server = await startPuppetServer({ port: 0 });
    try {
      const config = (await (await fetch(`${server.url}config.json`)).json()) as { poseTaskUrl: string };
      expect(config.poseTaskUrl).toBe(BUILT_POSE_TASK_ROUTE);
      const res = await fetch(`${server.url}${BUILT_POSE_TASK_ROUTE.slice(1)}`);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(bytes.equals(fs.readFileSync(built))).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('TFLite metadata added in front of the unchanged model (tools/make-pose-task.mjs)', () => {
  const POSE = path.join(__dirname, '../node_modules/@mediapipe/pose/pose_landmark_full.tflite');
  const it2 = fs.existsSync(POSE) ? it : it.skip;
  it2(
    'every old buffer keeps its bytes and 16-byte alignment; one TFLITE_METADATA entry names a new buffer holding the M001 metadata',
    () => {
      const script = `
      import { imageInputMetadata, readModel, withMetadata } from ${JSON.stringify(TOOL)};
      import { readFileSync } from 'node:fs';
      const model = new Uint8Array(readFileSync(${JSON.stringify(POSE)}));
      const md = imageInputMetadata({ name: 'n', description: 'd', mean: [0], std: [255] });
      const patched = withMetadata(model, md);
      const a = readModel(model), b = readModel(patched);
      let sameBytes = true, aligned = true;
      a.buffers.forEach((x, i) => {
        const y = b.buffers[i];
        if (x.length !== y.length || !Buffer.from(model.subarray(x.start, x.start + x.length)).equals(Buffer.from(patched.subarray(y.start, y.start + y.length)))) sameBytes = false;
        if (y.length > 0 && y.start % 16 !== 0) aligned = false;
      });
      const last = b.buffers[b.buffers.length - 1];
      let again = '';
      try { withMetadata(patched, md); } catch (e) { again = e.message; }
      console.log(JSON.stringify({
        identifier: b.identifier, version: [a.version, b.version], buffers: [a.buffers.length, b.buffers.length],
        metadata: b.metadata.map((m) => [m.name, m.buffer]), oldMetadata: a.metadata.map((m) => m.name),
        sameBytes, aligned, mdStored: Buffer.from(patched.subarray(last.start, last.start + last.length)).equals(Buffer.from(md)),
        mdIdentifier: String.fromCharCode(...md.subarray(4, 8)), again,
      }));`;
      const r = JSON.parse(execFileSync('node', ['--input-type=module', '-e', script], { encoding: 'utf8' }));
      expect(r.identifier).toBe('TFL3');
      expect(r.version[1]).toBe(r.version[0]);
      expect(r.buffers[1]).toBe(r.buffers[0] + 1);
      expect(r.sameBytes).toBe(true);
      expect(r.aligned).toBe(true);
      expect(r.mdStored).toBe(true);
      expect(r.mdIdentifier).toBe('M001');
      expect(r.metadata.at(-1)).toEqual(['TFLITE_METADATA', r.buffers[0]]);
      expect(r.metadata.slice(0, -1).map((m: [string, number]) => m[0])).toEqual(r.oldMetadata);
      expect(r.again).toBe('the model already has TFLITE_METADATA');
    },
  );
});
