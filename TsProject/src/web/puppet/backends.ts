/**
 * Pose backends of the puppet page (browser only): MediaPipe BlazePose through
 * - `legacy`: the `@mediapipe/pose` solution (0.5), loaded as a classic script from the server
 *   (`/mediapipe/pose/pose.js`, its wasm, graph and tflite models served from node_modules: fully offline;
 *   runs in headless chromium without a GPU). Its results carry `visibility` per landmark.
 * - `tasks`: `@mediapipe/tasks-vision` PoseLandmarker (bundled into puppet.js; wasm from
 *   `/mediapipe/tasks-vision/wasm`), model from MediaPipe's published `.task` URL, or bytes the user picked
 *   (`modelAssetBuffer`). Some builds omit `visibility`: it is then left out of the frame (= unknown, not 0).
 * Both turn one image (video element, canvas) into a {@link PoseFrame} of the recording format of issue 12:
 * `landmarks` normalised to the image (x, y in [0, 1], origin top-left), `worldLandmarks` in metres
 * (hip-centred, y down), `landmarks: []` when no person was found.
 */
import type { PoseLandmarker } from '@mediapipe/tasks-vision';
import type { Landmark, PoseFrame } from '../../puppet';

export type BackendName = 'legacy' | 'tasks';

/** What a pose backend can look at. */
export type PoseImage = HTMLVideoElement | HTMLCanvasElement | HTMLImageElement;

export interface PoseBackend {
  readonly name: BackendName;
  /** One video frame -> landmarks. `timestampMs` must increase between calls (tracking state). */
  detectVideo(image: PoseImage, timestampMs: number): Promise<PoseFrame>;
  /** One still image (no tracking from earlier frames), e.g. the drawing itself for auto-rig. */
  detectImage(image: PoseImage): Promise<PoseFrame>;
  close(): Promise<void>;
}

/** A landmark as the recording format stores it: `visibility` / `presence` only when the model gave them. */
function copyLandmarks(list: ArrayLike<Partial<Landmark>> | undefined | null): Landmark[] {
  const out: Landmark[] = [];
  if (!list) return out;
  for (let i = 0; i < list.length; i++) {
    const l = list[i];
    const o: Landmark = { x: Number(l.x), y: Number(l.y), z: Number(l.z ?? 0) };
    if (typeof l.visibility === 'number') o.visibility = Math.min(1, Math.max(0, l.visibility));
    if (typeof l.presence === 'number') o.presence = Math.min(1, Math.max(0, l.presence));
    out.push(o);
  }
  return out;
}

/** A PoseFrame from MediaPipe's landmark lists (`[]` = no person; world landmarks only with a person). */
export function toPoseFrame(
  timestampMs: number,
  landmarks: ArrayLike<Partial<Landmark>> | undefined | null,
  world: ArrayLike<Partial<Landmark>> | undefined | null,
): PoseFrame {
  const lm = copyLandmarks(landmarks);
  if (lm.length === 0) return { timestampMs, landmarks: [] };
  const w = copyLandmarks(world);
  return w.length === 33 ? { timestampMs, landmarks: lm, worldLandmarks: w } : { timestampMs, landmarks: lm };
}

// ---------------------------------------------------------------- legacy @mediapipe/pose

interface LegacyResults {
  poseLandmarks?: Partial<Landmark>[];
  poseWorldLandmarks?: Partial<Landmark>[];
}
interface LegacyPose {
  setOptions(o: Record<string, unknown>): void;
  onResults(cb: (r: LegacyResults) => void): void;
  initialize(): Promise<void>;
  reset(): void;
  send(inputs: { image: PoseImage }, at?: number): Promise<void>;
  close(): Promise<void>;
}
type LegacyPoseCtor = new (config: { locateFile: (f: string) => string }) => LegacyPose;

const scripts = new Map<string, Promise<void>>();
/** Load a classic script once. @throws (rejects) Error naming the URL when it fails to load. */
function loadScript(url: string): Promise<void> {
  let p = scripts.get(url);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const s = document.createElement('script');
      s.src = url;
      s.crossOrigin = 'anonymous';
      s.onload = () => resolve();
      s.onerror = () => reject(new Error(`${url}: failed to load`));
      document.head.appendChild(s);
    });
    scripts.set(url, p);
  }
  return p;
}

/**
 * The legacy `@mediapipe/pose` backend. `modelComplexity` 0 (lite) or 1 (full); no smoothing inside
 * MediaPipe (`smoothLandmarks: false`): the puppet pipeline's confidence filter does it, measurably.
 * @throws (rejects) Error when pose.js or its assets cannot be loaded.
 */
export async function createLegacyBackend(base: string, modelComplexity: 0 | 1 = 1): Promise<PoseBackend> {
  await loadScript(`${base}pose.js`);
  const Ctor = (window as unknown as { Pose?: LegacyPoseCtor }).Pose;
  if (!Ctor) throw new Error(`${base}pose.js: did not define Pose`);
  const pose = new Ctor({ locateFile: (f) => `${base}${f}` });
  pose.setOptions({
    modelComplexity,
    smoothLandmarks: false,
    enableSegmentation: false,
    selfieMode: false,
    minDetectionConfidence: 0.5,
    minTrackingConfidence: 0.5,
  });
  let last: LegacyResults | null = null;
  pose.onResults((r) => {
    last = r;
  });
  await pose.initialize();
  // `send` resolves after the graph ran and onResults was called for that input (one result per send).
  let queue: Promise<unknown> = Promise.resolve();
  const run = (image: PoseImage, ts: number, still: boolean): Promise<PoseFrame> => {
    const job = queue.then(async () => {
      if (still) pose.reset();
      last = null;
      await pose.send({ image });
      const r = last as LegacyResults | null;
      if (still) pose.reset();
      return toPoseFrame(ts, r?.poseLandmarks, r?.poseWorldLandmarks);
    });
    queue = job.catch(() => undefined);
    return job;
  };
  return {
    name: 'legacy',
    detectVideo: (image, ts) => run(image, ts, false),
    detectImage: (image) => run(image, 0, true),
    close: () => pose.close(),
  };
}

// ---------------------------------------------------------------- @mediapipe/tasks-vision

/**
 * The tasks-vision PoseLandmarker backend (CPU delegate: works without a GPU). `model` is a URL
 * (default: MediaPipe's published pose_landmarker_lite.task) or the bytes of a `.task` file.
 * @throws (rejects) Error naming the model when it cannot be fetched or read.
 */
export async function createTasksBackend(wasmBase: string, model: string | Uint8Array): Promise<PoseBackend> {
  const vision = await import('@mediapipe/tasks-vision');
  const fileset = await vision.FilesetResolver.forVisionTasks(wasmBase);
  let landmarker: PoseLandmarker;
  try {
    landmarker = await vision.PoseLandmarker.createFromOptions(fileset, {
      baseOptions:
        typeof model === 'string'
          ? { modelAssetPath: model, delegate: 'CPU' }
          : { modelAssetBuffer: model, delegate: 'CPU' },
      runningMode: 'VIDEO',
      numPoses: 1,
      outputSegmentationMasks: false,
    });
  } catch (e) {
    const what = typeof model === 'string' ? model : `the picked .task file (${model.length} bytes)`;
    throw new Error(`PoseLandmarker model ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let mode: 'VIDEO' | 'IMAGE' = 'VIDEO';
  let lastTs = -1;
  const setMode = async (m: 'VIDEO' | 'IMAGE') => {
    if (mode !== m) {
      await landmarker.setOptions({ runningMode: m });
      mode = m;
    }
  };
  return {
    name: 'tasks',
    async detectVideo(image, ts) {
      await setMode('VIDEO');
      const t = Math.max(ts, lastTs + 1); // tasks-vision needs strictly increasing timestamps
      lastTs = t;
      const r = landmarker.detectForVideo(image, t);
      return toPoseFrame(ts, r.landmarks[0], r.worldLandmarks[0]);
    },
    async detectImage(image) {
      await setMode('IMAGE');
      const r = landmarker.detect(image);
      return toPoseFrame(0, r.landmarks[0], r.worldLandmarks[0]);
    },
    close: async () => landmarker.close(),
  };
}
