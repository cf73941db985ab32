/**
 * The live webcam mocap page (browser; issue 23 item 4), served by `kind mocap` with no file
 * (src/cli/mocapServe.ts). Input: the webcam, a video file, or a landmark file (the format `kind mocap`
 * reads). The camera and video frames go through MediaPipe BlazePose (the puppet page's backends,
 * src/web/puppet/backends.ts); every frame of landmarks goes through the mocap solver (src/mocap
 * `MocapSolver`), and its pose onto the avatar through the live hub (./avatar.ts). Shown: the image with
 * the landmarks over it (./draw.ts), the avatar (the embedded default, or a .glb/.vrm dropped on the page)
 * with the solver's skeleton beside it, each bone coloured by state and confidence, and the figures
 * (./figures.ts: rate, inference ms, pose ms, jitter). Record saves the webcam's / video's landmarks as a
 * landmark file (src/web/puppet/recorder.ts) that `kind mocap <file>` reads.
 *
 * Calibration (src/mocap calibrate.ts `calibrateMocap`): a landmark file is calibrated on its own frames,
 * as `kind mocap` does; the webcam and a video on their first `?calib=` (default 15) frames with a person,
 * after which those frames are solved in order and the stream follows. "Recalibrate" (a new source) starts over.
 *
 * A video file is stepped through (paused, seeked frame by frame at `?videoFps=`, default 15), so every
 * step is detected however slow the backend; the webcam is sampled as fast as the backend runs.
 *
 * URL parameters: `source=camera` (start the webcam at once), `backend=legacy|tasks`, `complexity=0|1`,
 * `calib=<frames>`, `videoFps=<n>`. For tests, `window.kindMocap` ({@link KindMocapApi}).
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { HumanBodyBones as H, humanBoneIndex } from '../../core/humanBodyBones';
import { calibrateMocap, MOCAP_BONE_COUNT, MOCAP_BONES, MOCAP_STATES, MocapSolver } from '../../mocap';
import { type LandmarkRecording, type PoseFrame, parseLandmarkRecording } from '../../puppet';
import {
  type BackendName,
  createLegacyBackend,
  createTasksBackend,
  type PoseBackend,
} from '../puppet/backends';
import { LandmarkRecorder } from '../puppet/recorder';
import { PosedAvatar } from './avatar';
import { boneColour, ConfidenceSkeleton, drawLandmarks } from './draw';
import { MocapFigures, type MocapFigureValues } from './figures';
import { wireMocapStream } from './stream';

/** `GET /config.json` (the puppet server's, src/cli/puppetServe.ts; hosts do not import each other): the fields read. */
interface PageConfig {
  recording: string | null;
  recordingName?: string | null;
  legacyPoseBase: string;
  tasksVisionWasmBase: string;
  poseTaskUrl: string;
}

const AVATAR_URL = '/avatar/default.glb';
/** Frames kept in `history` (the oldest dropped beyond). */
const HISTORY_MAX = 5000;

type SourceName = 'none' | 'camera' | 'video' | 'recording';

/** Per processed frame (arrays of equal length; a frame before calibration is not in it). */
export interface MocapHistory {
  t: number[];
  person: boolean[];
  /** The solver's hips height (metres). */
  solverHipsY: number[];
  /** The avatar's hips height as drawn (metres, its own frame). */
  avatarHipsY: number[];
  /** The avatar's knee angles (degrees, 180 straight) from its drawn hip, knee and ankle positions. */
  avatarKneeL: number[];
  avatarKneeR: number[];
  /** Bones measured. */
  measured: number[];
  /** The solver's world rotations `4 * 21` (bone order MOCAP_BONES). */
  worldRotations: number[][];
  /** Confidence per bone (21). */
  confidence: number[][];
}

/** `window.kindMocap`: the page's state for tests and debugging. */
export interface KindMocapApi {
  /** Config read and the first avatar loaded. */
  ready: boolean;
  source: SourceName;
  backend: BackendName | null;
  /** Frames given to the page by the source (with or without a person). */
  frames: number;
  /** Frames solved (after calibration). */
  solved: number;
  calibrated: boolean;
  /** Frames the calibration used (its `frames`), 0 before. */
  calibrationFrames: number;
  avatar: { name: string; format: string; bones: number } | null;
  /** Every error shown in the status line. */
  errors: string[];
  history: MocapHistory;
  /** The last frame's bones: name, state, confidence. */
  bones(): { name: string; state: string; confidence: number }[];
  figures(): MocapFigureValues;
  /** The figures' texts as shown. */
  shown(): Record<string, string>;
  /** The avatar's local rotation of a HumanBodyBones bone as last applied, or null. */
  avatarLocalRotation(humanBone: string): number[] | null;
  /** Process a landmark file's text: calibrated on its frames, then every frame (at once, or in real time). */
  playRecording(json: string, o?: { realtime?: boolean; name?: string }): Promise<number>;
  startCamera(o?: { backend?: BackendName; complexity?: 0 | 1 }): Promise<void>;
  startRecording(): void;
  /** Stop recording; the landmark file's text (offered as a download when `download`). */
  stopRecording(download?: boolean): string;
  /** Load an avatar from a URL on the server. */
  loadAvatarUrl(url: string): Promise<void>;
}

declare global {
  interface Window {
    kindMocap: KindMocapApi;
  }
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
const calibTarget = Math.max(1, Number(params.get('calib') ?? 15) || 15);
const videoFps = Math.min(60, Math.max(1, Number(params.get('videoFps') ?? 15) || 15));
/** "Stream to": solved poses to `kind live --source browser` or Unity (stream.ts; `?live=ws://...`). */
const liveStream = wireMocapStream(params);

const emptyHistory = (): MocapHistory => ({
  t: [],
  person: [],
  solverHipsY: [],
  avatarHipsY: [],
  avatarKneeL: [],
  avatarKneeR: [],
  measured: [],
  worldRotations: [],
  confidence: [],
});

let config: PageConfig;
let source: SourceName = 'none';
let sourceGen = 0;
let backend: PoseBackend | null = null;
let backendKey = '';
let stream: MediaStream | null = null;
let solver: MocapSolver | null = null;
let calibBuffer: PoseFrame[] = [];
let image = { width: 0, height: 0 };
let avatar: PosedAvatar | null = null;
let lastFrame: PoseFrame | null = null;
const figures = new MocapFigures();
const recorder = new LandmarkRecorder();
const video = $<HTMLVideoElement>('video');
const overlay = $<HTMLCanvasElement>('overlay');
const g2 = overlay.getContext('2d')!;
/** The video frame given to the pose model (camera / video sources), at the video's size. */
const snap = document.createElement('canvas');
const snapG = snap.getContext('2d')!;

const api: KindMocapApi = {
  ready: false,
  source: 'none',
  backend: null,
  frames: 0,
  solved: 0,
  calibrated: false,
  calibrationFrames: 0,
  avatar: null,
  errors: [],
  history: emptyHistory(),
  bones: () =>
    MOCAP_BONES.map((name, i) => ({
      name,
      state: solver ? MOCAP_STATES[solver.state[i]] : 'none',
      confidence: solver ? solver.confidence[i] : 0,
    })),
  figures: () => figures.values(),
  shown: () => {
    const out: Record<string, string> = {};
    for (const id of [
      'fAvatar',
      'fSource',
      'fFrames',
      'fCalibration',
      'fRate',
      'fInference',
      'fPose',
      'fJitter',
      'fMeasured',
    ])
      out[id] = $(id).textContent ?? '';
    return out;
  },
  avatarLocalRotation: (name) => {
    const h = humanBoneIndex(name);
    return avatar && h >= 0 ? avatar.localRotation(h) : null;
  },
  playRecording: (json, o) => playRecording(parseLandmarkRecording(json, o?.name ?? 'landmark file'), o),
  startCamera: (o) => startCamera(o),
  startRecording: () => startRecording(),
  stopRecording: (download = true) => stopRecording(download),
  loadAvatarUrl: async (url) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    await setAvatar(new Uint8Array(await r.arrayBuffer()), url.slice(url.lastIndexOf('/') + 1));
  },
};
window.kindMocap = api;

function setStatus(text: string, error = false): void {
  const el = $('status');
  el.textContent = text;
  el.classList.toggle('error', error);
  if (error) {
    api.errors.push(text);
    console.error(text);
  }
}
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

// ------------------------------------------------------------------------------------------- 3-D view

const view = $('view');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
view.prepend(renderer.domElement);
const world = new THREE.Scene();
world.background = new THREE.Color(0x22262b);
world.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(3, 6, 5);
world.add(sun);
world.add(new THREE.GridHelper(20, 20, 0x666a70, 0x3a3e44));
const camera3 = new THREE.PerspectiveCamera(40, 1, 0.05, 100);
camera3.position.set(0.45, 1.3, 4.2);
const controls = new OrbitControls(camera3, renderer.domElement);
controls.target.set(0.45, 0.85, 0);
controls.update();
const skeleton = new ConfidenceSkeleton();
skeleton.root.position.set(1.0, 0, 0); // beside the avatar (its left, the viewer's right)
skeleton.root.visible = false;
world.add(skeleton.root);

function resize(): void {
  const w = Math.max(1, view.clientWidth);
  const h = Math.max(1, view.clientHeight);
  renderer.setSize(w, h, false);
  camera3.aspect = w / h;
  camera3.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
function animate(): void {
  requestAnimationFrame(animate);
  renderer.render(world, camera3);
}

async function setAvatar(bytes: Uint8Array, name: string): Promise<void> {
  const next = await PosedAvatar.load(bytes, name);
  if (avatar) world.remove(avatar.figure.root);
  avatar = next;
  world.add(avatar.figure.root);
  if (solver) avatar.setSource(solver.calibration);
  if (solver) avatar.pose(solver, lastFrame ?? { timestampMs: 0 });
  api.avatar = { name: avatar.name, format: avatar.format, bones: avatar.avatar.skeleton.boneCount };
  $('fAvatar').textContent = `${avatar.name} (${avatar.format})`;
}

// ------------------------------------------------------------------------------------------- frames

function resetRun(size: { width: number; height: number }): void {
  image = { width: size.width, height: size.height };
  solver = null;
  calibBuffer = [];
  lastFrame = null;
  figures.reset();
  api.frames = 0;
  api.solved = 0;
  api.calibrated = false;
  api.calibrationFrames = 0;
  api.history = emptyHistory();
  skeleton.root.visible = false;
  avatar?.rest();
  if (size.width > 0 && size.height > 0) {
    overlay.width = size.width;
    overlay.height = size.height;
  }
}

const hasWorld = (f: PoseFrame) => f.landmarks?.length === 33 && f.worldLandmarks?.length === 33;

/** Calibrate on `frames`; null (and the reason in the status line when `report`) when they cannot be used. */
function calibrate(frames: PoseFrame[], name: string, report: boolean): MocapSolver | null {
  try {
    const cal = calibrateMocap(frames, { source: name });
    const s = new MocapSolver(cal);
    avatar?.setSource(cal);
    liveStream.skeleton(s.skeleton);
    api.calibrated = true;
    api.calibrationFrames = cal.frames.length;
    $('fCalibration').textContent =
      `${cal.frames.length} frames, heading ${((cal.heading * 180) / Math.PI).toFixed(0)}°`;
    return s;
  } catch (e) {
    if (report) setStatus(`calibration: ${message(e)}`, true);
    return null;
  }
}

const kneeA = new THREE.Vector3();
const kneeB = new THREE.Vector3();
const kneeC = new THREE.Vector3();
/** The avatar's knee angle, degrees (180 straight), from its drawn hip, knee and ankle. */
function kneeAngle(up: number, lo: number, foot: number): number {
  if (!avatar) return Number.NaN;
  const a = avatar.worldPosition(up, kneeA);
  const b = avatar.worldPosition(lo, kneeB);
  const c = avatar.worldPosition(foot, kneeC);
  if (!a || !b || !c) return Number.NaN;
  return a.sub(b).angleTo(c.sub(b)) * (180 / Math.PI);
}

/** Solve one frame (calibrated), pose the avatar, record the history. */
function solve(frame: PoseFrame): void {
  if (!solver) return;
  const t0 = performance.now();
  const r = solver.step(frame, image);
  avatar?.pose(solver, frame);
  const poseMs = performance.now() - t0;
  liveStream.pose(
    frame.timestampMs,
    r.personFound,
    solver.localRotations,
    solver.localTranslations,
    solver.confidence,
    solver.state,
  );
  figures.frame(frame.timestampMs, solver.positions, solver.state, poseMs);
  skeleton.update(solver.positions, solver.state, solver.confidence);
  skeleton.root.visible = true;
  api.solved++;
  const h = api.history;
  if (h.t.length >= HISTORY_MAX) for (const k of Object.keys(h) as (keyof MocapHistory)[]) h[k].shift();
  h.t.push(frame.timestampMs);
  h.person.push(r.personFound);
  h.solverHipsY.push(solver.localTranslations[1]);
  h.avatarHipsY.push(avatar?.worldPosition(H.Hips, kneeA)?.y ?? Number.NaN);
  h.avatarKneeL.push(kneeAngle(H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot));
  h.avatarKneeR.push(kneeAngle(H.RightUpperLeg, H.RightLowerLeg, H.RightFoot));
  h.measured.push(r.measured);
  h.worldRotations.push(Array.from(solver.worldRotations));
  h.confidence.push(Array.from(solver.confidence));
}

/** A frame from the camera or a video: calibrate on the first frames with a person, then solve. */
function liveFrame(frame: PoseFrame, name: string): void {
  api.frames++;
  lastFrame = frame;
  if (solver) {
    solve(frame);
    return;
  }
  if (!hasWorld(frame)) return;
  calibBuffer.push(frame);
  $('fCalibration').textContent = `${calibBuffer.length} / ${calibTarget} frames`;
  if (calibBuffer.length < calibTarget) return;
  solver = calibrate(calibBuffer, name, false);
  if (!solver) {
    calibBuffer.shift(); // keep trying on the most recent frames
    return;
  }
  for (const f of calibBuffer) solve(f);
  calibBuffer = [];
  setStatus(`${name}: calibrated on ${api.calibrationFrames} frames; solving`);
}

// ------------------------------------------------------------------------------------------- sources

async function ensureBackend(): Promise<PoseBackend> {
  const name = $<HTMLSelectElement>('backend').value as BackendName;
  const complexity = Number($<HTMLSelectElement>('complexity').value) as 0 | 1;
  const key = `${name}:${complexity}`;
  if (backend && backendKey === key) return backend;
  if (backend) await backend.close().catch(() => undefined);
  backend = null;
  setStatus(`loading the ${name} pose backend…`);
  backend =
    name === 'tasks'
      ? await createTasksBackend(config.tasksVisionWasmBase, config.poseTaskUrl)
      : await createLegacyBackend(config.legacyPoseBase, complexity);
  backendKey = key;
  api.backend = name;
  return backend;
}

function setSource(s: SourceName): void {
  source = s;
  api.source = s;
  sourceGen++;
  $<HTMLButtonElement>('stop').disabled = s === 'none';
  $<HTMLButtonElement>('record').disabled = s !== 'camera' && s !== 'video';
  $('fSource').textContent = s;
}

function stopSource(): void {
  if (recorder.active) stopRecording(true);
  setSource('none');
  if (stream) for (const t of stream.getTracks()) t.stop();
  stream = null;
  video.pause();
  video.srcObject = null;
  if (video.src) {
    URL.revokeObjectURL(video.src);
    video.removeAttribute('src');
  }
}

function nextVideoFrame(): Promise<void> {
  return new Promise((resolve) => {
    const v = video as HTMLVideoElement & { requestVideoFrameCallback?: (cb: () => void) => number };
    if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(() => resolve());
    else requestAnimationFrame(() => resolve());
  });
}

/**
 * Detect on the video's current image and show it: the frame the model sees is kept, so the overlay shows
 * that image under its landmarks (a detection can take a second on a CPU, by when a live video has moved
 * on). Returns false when the source changed meanwhile or the backend failed (said in the status line).
 */
async function detectAndShow(
  be: PoseBackend,
  gen: number,
  name: string,
  timestampMs: number,
): Promise<boolean> {
  if (snap.width !== overlay.width || snap.height !== overlay.height) {
    snap.width = overlay.width;
    snap.height = overlay.height;
  }
  snapG.drawImage(video, 0, 0, snap.width, snap.height);
  const t0 = performance.now();
  let frame: PoseFrame;
  try {
    frame = await be.detectVideo(snap, timestampMs);
  } catch (e) {
    setStatus(`pose backend: ${message(e)}`, true);
    return false;
  }
  if (gen !== sourceGen) return false;
  figures.inference(performance.now() - t0);
  g2.drawImage(snap, 0, 0);
  drawLandmarks(g2, frame);
  recorder.add(frame);
  liveFrame(frame, name);
  // let this pose be drawn before the next detection holds the main thread (the wasm backends run on it)
  await afterPaint();
  return true;
}

/** Camera: one detection per new video frame (those arriving while one runs are skipped). */
async function cameraLoop(be: PoseBackend, gen: number, name: string): Promise<void> {
  while (gen === sourceGen) {
    await nextVideoFrame();
    if (gen !== sourceGen || !(await detectAndShow(be, gen, name, performance.now()))) break;
  }
}

/**
 * A video file: paused and stepped through at `?videoFps=` (default 15) frames per second of the video, each
 * frame detected (however slow the backend: no frame is skipped), timestamps the video's own time.
 */
async function videoFileLoop(be: PoseBackend, gen: number, name: string): Promise<void> {
  video.pause();
  const step = 1 / videoFps;
  for (let t = 0; t <= video.duration && gen === sourceGen; t += step) {
    await new Promise<void>((resolve) => {
      video.addEventListener('seeked', () => resolve(), { once: true });
      video.currentTime = t;
    });
    if (gen !== sourceGen || !(await detectAndShow(be, gen, name, t * 1000))) return;
  }
  if (gen !== sourceGen) return;
  if (recorder.active) stopRecording(true);
  setStatus(`${name}: ${api.frames} frames (${api.solved} solved)`);
  setSource('none');
}

/** Resolves after the next rendering step (its requestAnimationFrame callbacks, the paint). */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

async function startVideo(
  s: 'camera' | 'video',
  file?: File,
  o: { backend?: BackendName; complexity?: 0 | 1 } = {},
): Promise<void> {
  stopSource();
  if (o.backend) $<HTMLSelectElement>('backend').value = o.backend;
  if (o.complexity !== undefined) $<HTMLSelectElement>('complexity').value = String(o.complexity);
  const be = await ensureBackend();
  if (s === 'camera') {
    setStatus('starting the webcam…');
    // a native mode near 640x480, not cropped or rescaled (the landmarks are normalised to the frame seen)
    const constraints = {
      width: { ideal: 640 },
      height: { ideal: 480 },
      resizeMode: 'none',
    } as MediaTrackConstraints;
    stream = await navigator.mediaDevices.getUserMedia({ video: constraints, audio: false });
    video.srcObject = stream;
  } else if (file) {
    video.src = URL.createObjectURL(file);
  }
  video.muted = true;
  await video.play();
  resetRun({ width: video.videoWidth, height: video.videoHeight });
  setSource(s);
  const name = s === 'camera' ? 'webcam' : (file?.name ?? 'video');
  setStatus(
    `${name} ${video.videoWidth}×${video.videoHeight} → ${be.name}; calibrating on ${calibTarget} frames`,
  );
  if (s === 'camera') void cameraLoop(be, sourceGen, name);
  else void videoFileLoop(be, sourceGen, name);
}

async function startCamera(o: { backend?: BackendName; complexity?: 0 | 1 } = {}): Promise<void> {
  try {
    await startVideo('camera', undefined, o);
  } catch (e) {
    setStatus(`webcam: ${message(e)}`, true);
    stopSource();
  }
}

/** A landmark file: calibrated on its frames (as `kind mocap`), then each frame at once or at its timestamps. */
async function playRecording(
  rec: LandmarkRecording,
  o: { realtime?: boolean; name?: string } = {},
): Promise<number> {
  stopSource();
  const name = o.name ?? rec.source ?? 'landmark file';
  resetRun(rec.image ?? { width: 0, height: 0 });
  setSource('recording');
  api.backend = null;
  solver = calibrate(rec.frames, name, true);
  if (!solver) return 0;
  const gen = sourceGen;
  const show = (f: PoseFrame) => {
    api.frames++;
    lastFrame = f;
    solve(f);
  };
  if (o.realtime === false) {
    for (const f of rec.frames) show(f);
    drawRecordingFrame();
    setStatus(`${name}: ${rec.frames.length} frames solved`);
    return rec.frames.length;
  }
  setStatus(`playing ${name} (${rec.frames.length} frames)`);
  const t0 = performance.now() - (rec.frames[0]?.timestampMs ?? 0);
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      if (gen !== sourceGen) return resolve();
      const now = performance.now() - t0;
      while (next < rec.frames.length && rec.frames[next].timestampMs <= now) show(rec.frames[next++]);
      drawRecordingFrame();
      if (next >= rec.frames.length) {
        setStatus(`${name}: ${rec.frames.length} frames played`);
        setSource('none');
        return resolve();
      }
      requestAnimationFrame(tick);
    };
    tick();
  });
  return next;
}

function drawRecordingFrame(): void {
  g2.fillStyle = '#15181b';
  g2.fillRect(0, 0, overlay.width, overlay.height);
  drawLandmarks(g2, lastFrame);
}

function startRecording(): void {
  if (source !== 'camera' && source !== 'video') throw new Error('Record: start the webcam or a video first');
  recorder.start(video.videoWidth, video.videoHeight);
  $('record').classList.add('on');
  $('record').textContent = 'Stop recording';
}

function stopRecording(download: boolean): string {
  recorder.stop();
  $('record').classList.remove('on');
  $('record').textContent = 'Record';
  const text = recorder.json();
  if (download) recorder.download('mocap-landmarks.json');
  setStatus(`recorded ${recorder.frameCount} frames${download ? ' (mocap-landmarks.json)' : ''}`);
  return text;
}

// ------------------------------------------------------------------------------------------- display

function bonesTable(): void {
  const t = $('bones');
  if (t.childElementCount === 0) {
    for (const n of MOCAP_BONES) {
      const tr = document.createElement('tr');
      tr.innerHTML = `<td><span class="swatch"></span>${n}</td><td class="num"></td>`;
      t.appendChild(tr);
    }
  }
  for (let i = 0; i < MOCAP_BONE_COUNT; i++) {
    const tr = t.children[i] as HTMLTableRowElement;
    const st = solver ? solver.state[i] : 2;
    const c = solver ? solver.confidence[i] : 0;
    (tr.cells[0].firstChild as HTMLElement).style.background = solver ? boneColour(st, c) : '#444';
    tr.cells[1].textContent = solver ? `${MOCAP_STATES[st]} ${c.toFixed(2)}` : '–';
  }
}

function refreshFigures(): void {
  const v = figures.values();
  const num = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '–');
  $('fFrames').textContent = `${api.frames} (${api.solved} solved)`;
  $('fRate').textContent = num(v.rateHz, 1);
  $('fInference').textContent = num(v.inferenceMs, 0);
  $('fPose').textContent = num(v.poseMs, 2);
  $('fJitter').textContent = num(v.jitter, 2);
  $('fMeasured').textContent = solver ? `${solver.report.measured} / ${MOCAP_BONE_COUNT}` : '–';
  bonesTable();
}

// ------------------------------------------------------------------------------------------- wiring

function wire(): void {
  $('camera').addEventListener('click', () => void startCamera());
  $('stop').addEventListener('click', () => {
    stopSource();
    setStatus('stopped');
  });
  $('record').addEventListener('click', () => {
    if (recorder.active) stopRecording(true);
    else startRecording();
  });
  $<HTMLInputElement>('videoFile').addEventListener('change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) startVideo('video', f).catch((err) => setStatus(`${f.name}: ${message(err)}`, true));
  });
  $<HTMLInputElement>('recordingFile').addEventListener('change', async (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (!f) return;
    try {
      await playRecording(parseLandmarkRecording(await f.text(), f.name), { name: f.name });
    } catch (err) {
      setStatus(message(err), true);
    }
  });
  const avatarFile = async (f: File) => {
    if (!/\.(glb|vrm)$/i.test(f.name)) {
      setStatus(`${f.name}: not a .glb or .vrm avatar`, true);
      return;
    }
    setStatus(`loading ${f.name}…`);
    try {
      await setAvatar(new Uint8Array(await f.arrayBuffer()), f.name);
      setStatus(`avatar ${f.name}`);
    } catch (err) {
      setStatus(message(err), true);
    }
  };
  $<HTMLInputElement>('avatarFile').addEventListener('change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) void avatarFile(f);
  });
  view.addEventListener('dragover', (e) => {
    e.preventDefault();
    view.classList.add('dropping');
  });
  view.addEventListener('dragleave', () => view.classList.remove('dropping'));
  view.addEventListener('drop', (e) => {
    e.preventDefault();
    view.classList.remove('dropping');
    const f = e.dataTransfer?.files?.[0];
    if (f) void avatarFile(f);
  });
  if (config.recording) {
    const b = $<HTMLButtonElement>('playServed');
    b.hidden = false;
    b.textContent = `Play ${config.recordingName ?? 'recording'}`;
    b.addEventListener('click', async () => {
      try {
        const r = await fetch(config.recording!);
        await playRecording(parseLandmarkRecording(await r.text(), config.recording!), {
          name: config.recordingName ?? undefined,
        });
      } catch (err) {
        setStatus(message(err), true);
      }
    });
  }
}

async function init(): Promise<void> {
  resize();
  animate();
  setInterval(refreshFigures, 250);
  const backendParam = params.get('backend');
  if (backendParam === 'legacy' || backendParam === 'tasks')
    $<HTMLSelectElement>('backend').value = backendParam;
  const cx = params.get('complexity');
  if (cx === '0' || cx === '1') $<HTMLSelectElement>('complexity').value = cx;
  try {
    const r = await fetch('/config.json');
    if (!r.ok) throw new Error(`/config.json: HTTP ${r.status}`);
    config = (await r.json()) as PageConfig;
    wire();
    await api.loadAvatarUrl(AVATAR_URL);
    api.ready = true;
    setStatus('ready: start the webcam, open a video or a landmark file');
  } catch (e) {
    setStatus(message(e), true);
    return;
  }
  if (params.get('source') === 'camera') await startCamera();
}

void init();
