/**
 * The drawing puppet page (browser), served by src/cli/puppetServe.ts (`kind puppet`).
 *
 * A drawing (drawn on the pad, an image, an AnimatedDrawings folder, or the embedded default) is meshed,
 * weighted and rigged by src/puppet (buildMesh, computeWeights, DrawingRig); its joints come from its
 * char_cfg.yaml, or from the pose model run on the drawing itself ("Suggest joints"), and the user can drag
 * them ("Edit joints"). Pose in: the webcam through a MediaPipe backend (./backends.ts), or a recorded
 * landmark file. Each pose frame goes through src/puppet's PosePipeline (33 landmarks -> 21 joints,
 * confidence filter, occlusion fill), DrawingRig.pose and a Deformer (CPU linear blend skinning, refined
 * as-rigid-as-possible with a fold-over guard by default, src/puppet/deform.ts: the same deformation as
 * `kind puppet render`, on the CPU); the deformed mesh is drawn with per-triangle affine texture mapping (./render.ts). Live figures (./figures.ts): inference
 * rate, jitter before/after smoothing, per-joint state and confidence. "Record" saves the webcam's landmarks
 * in the recording format of issue 12 (./recorder.ts).
 *
 * URL parameters (also what the browser tests use):
 * - `character=<base URL>`: an AnimatedDrawings folder served at `<base>texture.png`, `mask.png`, `char_cfg.yaml`
 *   (`character=none`: start without a drawing);
 *   `image=<URL>`: one image; default: the server's config (the `--character` or the embedded default);
 * - `backend=legacy|tasks`, `complexity=0|1`: the pose backend (default legacy: offline, no GPU needed);
 * - `deform=arap|lbs`: the deformation (default arap; also the "Deformation" menu);
 * - `source=camera`: start the webcam at load; `recording=<URL>`: play that recording at load (`loop=1` to loop).
 *
 * For tests, `window.kindPuppet` ({@link KindPuppetApi}) exposes the page's state.
 */
import {
  buildMesh,
  type Character,
  characterFromAnimatedDrawings,
  characterFromImage,
  characterJoints,
  checkRecordingImageSize,
  computeWeights,
  createJointSet,
  DEFAULT_DEFORM_MODE,
  DEFORM_MODES,
  Deformer,
  type DeformMode,
  DepthOrder,
  DrawingRig,
  drawOrder,
  framesText,
  JOINT_STATES,
  type JointSet,
  JointStateCode,
  type LandmarkRecording,
  landmarksToJoints,
  type PoseFrame,
  type PoseOptions,
  PosePipeline,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
  PUPPET_PARENTS,
  type PuppetMesh,
  parseLandmarkRecording,
  type SkinWeights,
  type WeightMode,
} from '../../puppet';
import { type BackendName, createLegacyBackend, createTasksBackend, type PoseBackend } from './backends';
import { type FigureValues, LiveFigures } from './figures';
import { DrawingPad, decodeImage, fetchBytes, fetchText, MAX_DRAWING_SIDE, rgbaOnWhite } from './images';
import { LandmarkRecorder } from './recorder';
import { drawJoints, drawMesh, maskedTexture, STATE_COLOURS, stateLegend, type View } from './render';

/** `GET /config.json` (src/cli/puppetServe.ts PuppetPageConfig; hosts do not import each other, so restated). */
interface PageConfig {
  character: CharacterSpec | null;
  recording: string | null;
  /** The recording's name for the play button: the `--landmarks` file's name, or null for the embedded default. */
  recordingName?: string | null;
  defaultCharacter: CharacterSpec | null;
  legacyPoseBase: string;
  tasksVisionWasmBase: string;
  poseTaskUrl: string;
}
/** Where a character's files are: an AnimatedDrawings set (texture + mask + cfg) or one image (texture only). */
interface CharacterSpec {
  name: string;
  texture: string;
  mask?: string;
  cfg?: string;
  /** An AnimatedDrawings retarget config for the cfg's joints (`kind puppet --retarget-cfg`; issue 22). */
  retarget?: string;
}

type SourceName = 'none' | 'camera' | 'recording';

/** One joint as the tests read it. */
export interface JointReading {
  name: string;
  x: number;
  y: number;
  confidence: number;
  state: string;
}

/** `window.kindPuppet`: the page's state for tests and debugging. */
export interface KindPuppetApi {
  /** Config loaded, the first drawing (if any) set up. */
  ready: boolean;
  /** Every error shown in the status line, in order. */
  errors: string[];
  status: string;
  character: { name: string; width: number; height: number; vertices: number; triangles: number } | null;
  source: SourceName;
  backend: BackendName | null;
  /** Pose frames processed since the source started; frames with a person. */
  frames: number;
  personFrames: number;
  /** Per processed frame: timestamp (ms), person found, pose-space and drawing-space Hips y, joints measured. */
  history: {
    t: number[];
    person: boolean[];
    hipsPoseY: number[];
    hipsDrawingY: number[];
    measured: number[];
  };
  /** The posed drawing's joints (drawing px), or the rest joints before any pose. */
  joints(): JointReading[];
  /** The pose side's joints of the last frame (pose space). */
  poseJoints(): JointReading[];
  /** The skinned vertices (drawing px, 2 per vertex), or null. */
  skinned(): number[] | null;
  /** The layers' triangle drawing order (back to front, src/puppet/depthOrder.ts) and group order, or null. */
  layers(): { order: number[]; groups: string[] } | null;
  /** The live figures as computed, plus the last frame's report. */
  figures(): FigureValues & {
    counts: Record<string, number>;
    personFound: boolean;
    visibilityUnknown: boolean;
  };
  /** The figures as the page shows them (text of each `#f*` element). */
  shown(): Record<string, string>;
  loadCharacter(spec: CharacterSpec): Promise<void>;
  startCamera(options?: { backend?: BackendName; complexity?: 0 | 1 }): Promise<void>;
  stop(): void;
  /** Play a recording (URL or JSON text). realtime false: every frame processed at once, resolves with the count. */
  playRecording(urlOrJson: string, options?: { realtime?: boolean; loop?: boolean }): Promise<number>;
  startRecording(): void;
  /** Stop recording; the recording's JSON text (also offered as a download when `download`). */
  stopRecording(download?: boolean): string;
  /** Run the pose model on the drawing and move the joints it finds; resolves with how many moved. */
  suggestJoints(): Promise<number>;
  /** Draw polylines (pad px) on the pad, then use the pad as the drawing. */
  drawAndUse(strokes: [number, number][][], width?: number): Promise<void>;
}

interface Puppet {
  character: Character;
  mesh: PuppetMesh;
  weights: SkinWeights;
  /** LBS or LBS + ARAP of this mesh and weights (rebuilt when either changes). */
  deformer: Deformer;
  rig: DrawingRig;
  texture: HTMLCanvasElement;
  skinned: Float32Array;
  view: View;
  /**
   * Layers: the triangles' draw order by body-part group from the pose's depth, with hysteresis
   * (src/puppet/depthOrder.ts; the same as PuppetSession.drawOrder in kind puppet render).
   */
  depth: DepthOrder | null;
}

/** The layers of a puppet (as PuppetSession: the rig's skeleton, the run's image size); rebuilt with the weights. */
function depthOrderOf(mesh: PuppetMesh, weights: SkinWeights, rig: DrawingRig): DepthOrder {
  return new DepthOrder(mesh, weights, rig.skeleton, { image: runImage });
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);

const stageBox = $<HTMLDivElement>('stageBox');
const stage = $<HTMLCanvasElement>('stage');
const ctx = stage.getContext('2d')!;
const video = $<HTMLVideoElement>('camera');
const statusEl = $<HTMLDivElement>('status');
const pad = new DrawingPad($<HTMLCanvasElement>('pad'));

let config: PageConfig = {
  character: null,
  recording: null,
  defaultCharacter: null,
  legacyPoseBase: '/mediapipe/pose/',
  tasksVisionWasmBase: '/mediapipe/tasks-vision/wasm',
  poseTaskUrl: '',
};
let puppet: Puppet | null = null;
let weightMode: WeightMode = 'segments-geodesic';
const deformParam = params.get('deform') as DeformMode | null;
let deformMode: DeformMode =
  deformParam && DEFORM_MODES.includes(deformParam) ? deformParam : DEFAULT_DEFORM_MODE;
const poseOptions: Partial<PoseOptions> = {};
let pipeline = new PosePipeline(poseOptions);
/** Camera image size of the current run (pixels; the pipeline's default until a run starts). */
let runImage = { width: 640, height: 480 };
const poseJoints = createJointSet();
/** The drawing's posed joints and transforms: 21, or the character's own skeleton's (resized with the rig). */
let drawingJoints = createJointSet();
let transforms = new Float64Array(PUPPET_JOINT_COUNT * 6);
let posedOnce = false;
const lastReport: { counts: Record<string, number>; personFound: boolean; visibilityUnknown: boolean } = {
  counts: Object.fromEntries(JOINT_STATES.map((st) => [st, 0])),
  personFound: false,
  visibilityUnknown: false,
};
const figures = new LiveFigures();
const recorder = new LandmarkRecorder();
let backend: PoseBackend | null = null;
let backendKey = '';
let taskModel: Uint8Array | null = null;
let source: SourceName = 'none';
/** Bumped when a source starts or stops: loops of an older source end. */
let sourceGen = 0;
let stream: MediaStream | null = null;
let editing = false;
let dragJoint = -1;
let hoverJoint = -1;

const api: KindPuppetApi = {
  ready: false,
  errors: [],
  status: '',
  character: null,
  source: 'none',
  backend: null,
  frames: 0,
  personFrames: 0,
  history: { t: [], person: [], hipsPoseY: [], hipsDrawingY: [], measured: [] },
  joints: () => readJoints(posedOnce ? drawingJoints : (puppet?.character.restJoints ?? drawingJoints)),
  poseJoints: () => readJoints(poseJoints),
  skinned: () => (puppet ? Array.from(puppet.skinned) : null),
  layers: () => {
    const d = puppet?.depth;
    return d
      ? { order: Array.from(d.order), groups: Array.from(d.groupOrder, (g) => d.groups[g].name) }
      : null;
  },
  figures: () => ({
    ...figures.values(pipeline.options.visibilityThreshold),
    counts: { ...lastReport.counts },
    personFound: lastReport.personFound,
    visibilityUnknown: lastReport.visibilityUnknown,
  }),
  shown: () => {
    const out: Record<string, string> = {};
    document.querySelectorAll('#figures b[id]').forEach((e) => {
      out[e.id] = e.textContent ?? '';
    });
    return out;
  },
  loadCharacter: (spec) => guard(loadCharacterSpec(spec)),
  startCamera: (o) => guard(startCamera(o)),
  stop: () => stopSource(),
  playRecording: (u, o) => guard(playRecording(u, o)),
  startRecording: () => startRecording(),
  stopRecording: (d) => stopRecording(d),
  suggestJoints: () => guard(suggestJoints()),
  drawAndUse: async (strokes, width = 10) => {
    pad.clear();
    pad.width = width;
    for (const s of strokes) {
      pad.moveTo(s[0][0], s[0][1]);
      for (const [x, y] of s) pad.stroke(x, y);
    }
    await guard(useDrawing());
  },
};
(window as unknown as { kindPuppet: KindPuppetApi }).kindPuppet = api;

function readJoints(j: JointSet): JointReading[] {
  const names =
    j.x.length === PUPPET_JOINT_COUNT || !puppet ? PUPPET_JOINTS : characterJoints(puppet.character).names;
  return names.map((name, i) => ({
    name,
    x: j.x[i],
    y: j.y[i],
    confidence: j.confidence[i],
    state: JOINT_STATES[j.state[i]],
  }));
}

function setStatus(text: string, error = false): void {
  statusEl.textContent = text;
  statusEl.classList.toggle('error', error);
  api.status = text;
  if (error) api.errors.push(text);
}

/** Await `p`; an error goes to the status line (and api.errors) and is rethrown to the caller. */
async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    setStatus(e instanceof Error ? e.message : String(e), true);
    throw e;
  }
}

// ------------------------------------------------------------------ the drawing

/**
 * The rest drawing in the upper part of the stage, centred across: room below it for the drawing to squat
 * or crouch (the rig moves the hips with the person's, relative to the first frame) and at the sides for arms.
 */
function fitView(c: Character): View {
  const w = stage.width;
  const h = stage.height;
  const scale = Math.min((0.7 * w) / c.width, (0.66 * h) / c.height);
  return { scale, offsetX: (w - scale * c.width) / 2, offsetY: 0.06 * h };
}

/** Mesh, weights, rig and texture of a character; the page's puppet from now on. */
function setCharacter(c: Character): void {
  const built = buildMesh(c);
  const weights = computeWeights(built, c, weightMode);
  // limbs drawn over the body, as kind puppet render (PuppetSession)
  const mesh = drawOrder(built, weights, c.skeleton?.parents ?? PUPPET_PARENTS);
  puppet = {
    character: c,
    mesh,
    weights,
    deformer: new Deformer(mesh, weights, deformMode),
    rig: new DrawingRig(c),
    texture: maskedTexture(c.texture, c.mask),
    skinned: Float32Array.from(mesh.vertices),
    view: fitView(c),
    depth: null,
  };
  puppet.depth = depthOrderOf(mesh, puppet.weights, puppet.rig);
  sizeRigOutputs();
  posedOnce = false;
  api.character = {
    name: c.name,
    width: c.width,
    height: c.height,
    vertices: mesh.vertexCount,
    triangles: mesh.triangleCount,
  };
  $('drawingInfo').textContent =
    `${c.name}: ${c.width}×${c.height} px, ${mesh.vertexCount} vertices, ${mesh.triangleCount} triangles, weights ${weightMode}, ${deformMode} deformation`;
}

/**
 * After the weights changed: the drawing order (it follows the weights), the deformer (its factorisation)
 * and the depth groups' order (built on the reordered triangles).
 */
function rebuildDeformer(p: Puppet): void {
  p.mesh = drawOrder(p.mesh, p.weights, p.character.skeleton?.parents ?? PUPPET_PARENTS);
  p.deformer = new Deformer(p.mesh, p.weights, deformMode);
  p.depth = depthOrderOf(p.mesh, p.weights, p.rig);
}

/** Posed joints and transforms sized for the puppet's rig (a character's own skeleton has M joints, not 21). */
function sizeRigOutputs(): void {
  const n = puppet?.rig.jointCount ?? PUPPET_JOINT_COUNT;
  if (drawingJoints.x.length !== n) drawingJoints = createJointSet(n);
  if (transforms.length !== n * 6) transforms = new Float64Array(n * 6);
}

/** After the rest joints changed (suggested or dragged): new rig and weights, same mesh. */
function rebindCharacter(): void {
  if (!puppet) return;
  const c = puppet.character;
  puppet.weights = computeWeights(puppet.mesh, c, weightMode);
  rebuildDeformer(puppet);
  puppet.rig = new DrawingRig(c);
  sizeRigOutputs();
  puppet.skinned.set(puppet.mesh.vertices);
  posedOnce = false;
}

async function loadCharacterSpec(spec: CharacterSpec): Promise<void> {
  setStatus(`loading ${spec.name}…`);
  if (spec.mask && spec.cfg) {
    const [tex, mask, cfg, retarget] = await Promise.all([
      fetchBytes(spec.texture).then((b) => decodeImage(b, spec.texture)),
      fetchBytes(spec.mask).then((b) => decodeImage(b, spec.mask!)),
      fetchText(spec.cfg),
      spec.retarget ? fetchText(spec.retarget) : Promise.resolve(null),
    ]);
    const retargetCfg =
      retarget !== null && spec.retarget ? { text: retarget, source: spec.retarget } : undefined;
    setCharacter(characterFromAnimatedDrawings(tex, mask, cfg, spec.name, { retargetCfg }));
  } else {
    const img = await decodeImage(await fetchBytes(spec.texture), spec.texture, MAX_DRAWING_SIDE);
    setCharacter(characterFromImage(img, undefined, { name: spec.name, source: spec.texture }));
  }
  setStatus(`${spec.name} loaded`);
}

async function loadImageFile(file: File): Promise<void> {
  const img = await decodeImage(file, file.name, MAX_DRAWING_SIDE);
  setCharacter(characterFromImage(img, undefined, { name: file.name, source: file.name }));
  setStatus(`${file.name} loaded: joints fitted to its outline; "Suggest joints" or drag them`);
}

/** An AnimatedDrawings character from picked files (a folder or the three files), found by name. */
async function loadAnimatedDrawingsFiles(files: FileList): Promise<void> {
  const byName = new Map<string, File>();
  for (const f of Array.from(files)) byName.set(f.name.toLowerCase(), f);
  const missing = ['texture.png', 'mask.png', 'char_cfg.yaml'].filter((n) => !byName.has(n));
  if (missing.length)
    throw new Error(`AnimatedDrawings character: ${missing.join(', ')} not among the picked files`);
  const first = Array.from(files)[0] as File & { webkitRelativePath?: string };
  const folder = first.webkitRelativePath?.split('/')[0] || 'character';
  const [tex, mask, cfg] = await Promise.all([
    decodeImage(byName.get('texture.png')!, `${folder}/texture.png`),
    decodeImage(byName.get('mask.png')!, `${folder}/mask.png`),
    byName.get('char_cfg.yaml')!.text(),
  ]);
  setCharacter(characterFromAnimatedDrawings(tex, mask, cfg, folder));
  setStatus(`${folder} loaded`);
}

async function useDrawing(): Promise<void> {
  const img = pad.image();
  setCharacter(characterFromImage(img, undefined, { name: 'drawing', source: 'drawing pad' }));
  setDrawMode(false);
  setStatus('drawing rigged: joints fitted to its outline; "Suggest joints" or drag them to fit');
}

function setDrawMode(on: boolean): void {
  stageBox.classList.toggle('drawing', on);
  ($('useDrawing') as HTMLButtonElement).disabled = !on;
  ($('clearPad') as HTMLButtonElement).disabled = !on;
  $('drawMode').textContent = on ? 'Back' : 'Draw';
  if (on) setEditing(false);
}

function setEditing(on: boolean): void {
  editing = on && puppet !== null;
  stageBox.classList.toggle('editing', editing);
  $('editJoints').textContent = editing ? 'Done editing' : 'Edit joints';
}

/** The pose model on the drawing itself: joints it measures above the threshold replace the rest joints. */
async function suggestJoints(): Promise<number> {
  if (!puppet) throw new Error('suggest joints: no drawing loaded');
  const be = await ensureBackend();
  const c = puppet.character;
  if (c.skeleton) {
    setStatus(
      `suggest joints places the 21 joints of a two-armed, two-legged figure; ${c.name} has its own ${c.skeleton.names.length} joints (drag them)`,
    );
    return 0;
  }
  setStatus('running the pose model on the drawing…');
  // the texture as it is (alpha composited on white), not cut by the mask: a photo's mask may miss the head
  const frame = await be.detectImage(rgbaOnWhite(c.texture));
  const found = createJointSet();
  const info = landmarksToJoints(frame, { width: c.width, height: c.height }, pipeline.options, found);
  if (!info.personFound) {
    setStatus('the pose model found no person in the drawing: joints unchanged (drag them)');
    return 0;
  }
  let moved = 0;
  const rest = c.restJoints;
  for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
    if (found.confidence[j] < pipeline.options.visibilityThreshold) continue;
    rest.x[j] = Math.min(c.width - 1, Math.max(0, found.x[j]));
    rest.y[j] = Math.min(c.height - 1, Math.max(0, found.y[j]));
    rest.confidence[j] = found.confidence[j];
    rest.state[j] = JointStateCode.Measured;
    moved++;
  }
  rebindCharacter();
  setStatus(`pose model on the drawing: ${moved} of 21 joints placed; drag any that are off`);
  return moved;
}

// ------------------------------------------------------------------ pose in

function resetRun(image: { width: number; height: number }): void {
  pipeline = new PosePipeline(poseOptions, image);
  runImage = { width: image.width, height: image.height };
  puppet?.rig.clearReference();
  puppet?.depth?.setImage(runImage);
  puppet?.depth?.reset();
  posedOnce = false;
  figures.reset();
  api.frames = 0;
  api.personFrames = 0;
  api.history = { t: [], person: [], hipsPoseY: [], hipsDrawingY: [], measured: [] };
}

const HISTORY_MAX = 20000;

/** One pose frame through the whole pipeline: pose side, rig, skinning (the drawing is drawn by the rAF loop). */
function processFrame(frame: PoseFrame): void {
  const report = pipeline.step(frame, poseJoints);
  api.frames++;
  if (report.personFound) api.personFrames++;
  figures.frame(frame.timestampMs, report.rawJoints, poseJoints, report.bodyScale);
  for (const st of JOINT_STATES) lastReport.counts[st] = report.counts[st];
  lastReport.personFound = report.personFound;
  lastReport.visibilityUnknown = report.visibilityUnknown;
  if (puppet && (report.personFound || posedOnce)) {
    puppet.rig.pose(poseJoints, drawingJoints, transforms);
    puppet.deformer.deform(transforms, puppet.skinned);
    puppet.depth?.update(frame);
    posedOnce = true;
  }
  const h = api.history;
  if (h.t.length < HISTORY_MAX) {
    h.t.push(frame.timestampMs);
    h.person.push(report.personFound);
    h.hipsPoseY.push(poseJoints.y[0]);
    h.hipsDrawingY.push(posedOnce ? drawingJoints.y[0] : Number.NaN);
    h.measured.push(report.counts.measured);
  }
}

async function ensureBackend(): Promise<PoseBackend> {
  const name = ($('backend') as HTMLSelectElement).value as BackendName;
  const complexity = Number(($('complexity') as HTMLSelectElement).value) as 0 | 1;
  const key = `${name}:${complexity}:${taskModel ? taskModel.length : 'url'}`;
  if (backend && backendKey === key) return backend;
  if (backend) await backend.close().catch(() => undefined);
  backend = null;
  setStatus(`loading the ${name} pose backend…`);
  backend =
    name === 'tasks'
      ? await createTasksBackend(config.tasksVisionWasmBase, taskModel ?? config.poseTaskUrl)
      : await createLegacyBackend(config.legacyPoseBase, complexity);
  backendKey = key;
  api.backend = name;
  return backend;
}

function setSource(s: SourceName): void {
  source = s;
  api.source = s;
  sourceGen++;
  ($('stopSource') as HTMLButtonElement).disabled = s === 'none';
  ($('record') as HTMLButtonElement).disabled = s !== 'camera';
}

function stopSource(): void {
  setSource('none');
  if (recorder.active) stopRecording(false);
  if (stream) for (const t of stream.getTracks()) t.stop();
  stream = null;
  video.srcObject = null;
  video.classList.remove('on');
}

async function startCamera(o: { backend?: BackendName; complexity?: 0 | 1 } = {}): Promise<void> {
  stopSource();
  if (o.backend) ($('backend') as HTMLSelectElement).value = o.backend;
  if (o.complexity !== undefined) ($('complexity') as HTMLSelectElement).value = String(o.complexity);
  const be = await ensureBackend();
  setStatus('starting the webcam…');
  // a native camera mode near 640x480, never cropped or rescaled by the browser (resizeMode 'none'): the
  // landmarks are normalised to the frame the model saw, and bone angles need its true aspect
  const video0 = {
    width: { ideal: 640 },
    height: { ideal: 480 },
    resizeMode: 'none',
  } as MediaTrackConstraints;
  stream = await navigator.mediaDevices.getUserMedia({ video: video0, audio: false });
  video.srcObject = stream;
  video.classList.add('on');
  await video.play();
  resetRun({ width: video.videoWidth, height: video.videoHeight });
  setSource('camera');
  const gen = sourceGen;
  setStatus(`webcam ${video.videoWidth}×${video.videoHeight} → ${be.name}`);
  void cameraLoop(be, gen);
}

function nextVideoFrame(): Promise<void> {
  return new Promise((resolve) => {
    const v = video as HTMLVideoElement & { requestVideoFrameCallback?: (cb: () => void) => number };
    if (v.requestVideoFrameCallback) v.requestVideoFrameCallback(() => resolve());
    else requestAnimationFrame(() => resolve());
  });
}

async function cameraLoop(be: PoseBackend, gen: number): Promise<void> {
  while (gen === sourceGen) {
    await nextVideoFrame();
    if (gen !== sourceGen) break;
    const t0 = performance.now();
    let frame: PoseFrame;
    try {
      frame = await be.detectVideo(video, t0);
    } catch (e) {
      setStatus(`pose backend: ${e instanceof Error ? e.message : String(e)}`, true);
      break;
    }
    if (gen !== sourceGen) break;
    const t1 = performance.now();
    figures.arrival(t1, t1 - t0);
    recorder.add(frame);
    processFrame(frame);
  }
}

async function recordingFrom(urlOrJson: string): Promise<LandmarkRecording> {
  const isJson = urlOrJson.trimStart().startsWith('{');
  const text = isJson ? urlOrJson : await fetchText(urlOrJson);
  return parseLandmarkRecording(text, isJson ? 'recording' : urlOrJson);
}

async function playRecording(
  urlOrJson: string,
  o: { realtime?: boolean; loop?: boolean; name?: string } = {},
): Promise<number> {
  stopSource();
  const rec = await recordingFrom(urlOrJson);
  resetRun(rec.image);
  setSource('recording');
  api.backend = null;
  const gen = sourceGen;
  const frames = rec.frames;
  const name = o.name ?? rec.source ?? 'recording';
  if (o.realtime === false) {
    for (const f of frames) {
      figures.arrival(f.timestampMs, Number.NaN);
      processFrame(f);
    }
    setStatus(`${name}: ${framesText(frames.length)} processed`);
    return frames.length;
  }
  setStatus(`playing ${name} (${framesText(frames.length)})`);
  const t0 = performance.now() - (frames[0]?.timestampMs ?? 0);
  let next = 0;
  let offset = 0; // added to timestamps on each loop so they keep increasing
  const span = frames.length ? frames[frames.length - 1].timestampMs - frames[0].timestampMs + 33 : 0;
  const tick = () => {
    if (gen !== sourceGen) return;
    const now = performance.now() - t0;
    while (next < frames.length && frames[next].timestampMs + offset <= now) {
      const f = frames[next++];
      const shifted = offset ? { ...f, timestampMs: f.timestampMs + offset } : f;
      figures.arrival(shifted.timestampMs, Number.NaN); // the recording's clock: its frame rate
      processFrame(shifted);
    }
    if (next >= frames.length) {
      if (!o.loop) {
        setStatus(`${name}: played ${framesText(frames.length)}`);
        return;
      }
      next = 0;
      offset += span;
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  return frames.length;
}

function startRecording(): void {
  if (source !== 'camera') throw new Error('record: start the webcam first');
  recorder.start(video.videoWidth, video.videoHeight);
  $('record').textContent = 'Stop & save';
  setStatus('recording the webcam landmarks…');
}

let lastRecording = '';
function stopRecording(download = true): string {
  recorder.stop();
  lastRecording = recorder.json();
  $('record').textContent = 'Record';
  if (download) recorder.download(`landmarks-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  setStatus(`recorded ${framesText(recorder.frameCount)}`);
  return lastRecording;
}

// ------------------------------------------------------------------ drawing the stage

function resizeStage(): void {
  const r = stage.getBoundingClientRect();
  const w = Math.max(1, Math.round(r.width));
  const h = Math.max(1, Math.round(r.height));
  if (stage.width !== w || stage.height !== h) {
    stage.width = w;
    stage.height = h;
    if (puppet) puppet.view = fitView(puppet.character);
  }
}

function render(): void {
  resizeStage();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = '#2c3137';
  ctx.fillRect(0, 0, stage.width, stage.height);
  if (puppet) {
    const p = puppet;
    // the drawing's page: a faint rectangle where the drawing lies at rest
    ctx.strokeStyle = 'rgba(255,255,255,0.12)';
    ctx.strokeRect(
      p.view.offsetX,
      p.view.offsetY,
      p.view.scale * p.character.width,
      p.view.scale * p.character.height,
    );
    const showRest = editing || !posedOnce;
    drawMesh(
      ctx,
      p.texture,
      p.mesh.vertices,
      showRest ? p.mesh.vertices : p.skinned,
      p.mesh.triangles,
      p.mesh.triangleCount,
      p.view,
      showRest ? undefined : p.depth?.order,
    );
    drawJoints(
      ctx,
      showRest ? p.character.restJoints : drawingJoints,
      p.view,
      editing ? hoverJoint : -1,
      characterJoints(p.character).parents,
    );
  }
  requestAnimationFrame(render);
}

// ------------------------------------------------------------------ live figures

const fmt = (v: number, d: number) => (Number.isFinite(v) ? v.toFixed(d) : '-');

function buildJointTable(): void {
  const body = $('joints');
  body.innerHTML = '';
  for (const name of PUPPET_JOINTS) {
    const tr = document.createElement('tr');
    tr.innerHTML = `<td>${name}</td><td class="state">-</td><td><span class="bar"></span> <span class="conf">-</span></td>`;
    body.appendChild(tr);
  }
  $('legend').innerHTML = stateLegend();
}

function updateFigures(): void {
  const v = figures.values(pipeline.options.visibilityThreshold);
  const live = source !== 'none';
  $('fSource').textContent = source;
  $('fBackend').textContent =
    source === 'camera' ? (api.backend ?? '-') : source === 'recording' ? 'file' : '-';
  $('fRate').textContent = live ? fmt(v.rateHz, 1) : '-';
  $('fInference').textContent = live ? fmt(v.inferenceMs, 0) : '-';
  $('fJitterRaw').textContent = fmt(v.jitterRaw, 2);
  $('fJitterSmoothed').textContent = fmt(v.jitterSmoothed, 2);
  $('fFrames').textContent = String(api.frames);
  $('fPerson').textContent = api.frames ? (lastReport.personFound ? 'yes' : 'no') : '-';
  $('fVisibility').textContent = api.frames ? (lastReport.visibilityUnknown ? 'unknown' : 'given') : '-';
  $('fCounts').textContent = api.frames
    ? JOINT_STATES.map((s) => `${s} ${lastReport.counts[s] ?? 0}`).join(' · ')
    : '-';
  const rows = $('joints').children;
  for (let j = 0; j < PUPPET_JOINT_COUNT && j < rows.length; j++) {
    const row = rows[j] as HTMLTableRowElement;
    const st = api.frames ? poseJoints.state[j] : -1;
    const c = api.frames ? poseJoints.confidence[j] : Number.NaN;
    const stateCell = row.querySelector('.state') as HTMLElement;
    stateCell.textContent = st >= 0 ? JOINT_STATES[st] : '-';
    stateCell.style.color = st >= 0 ? STATE_COLOURS[st] : '';
    (row.querySelector('.conf') as HTMLElement).textContent = fmt(c, 2);
    (row.querySelector('.bar') as HTMLElement).style.width =
      `${Number.isFinite(c) ? Math.round(60 * c) : 0}px`;
  }
}

// ------------------------------------------------------------------ controls

function stagePoint(e: PointerEvent): [number, number] {
  const r = stage.getBoundingClientRect();
  const v = puppet!.view;
  return [(e.clientX - r.left - v.offsetX) / v.scale, (e.clientY - r.top - v.offsetY) / v.scale];
}

function nearestJoint(x: number, y: number): number {
  if (!puppet) return -1;
  const rest = puppet.character.restJoints;
  let best = -1;
  let bestD = 14 / puppet.view.scale; // 14 screen px
  for (let j = 0; j < rest.x.length; j++) {
    const d = Math.hypot(rest.x[j] - x, rest.y[j] - y);
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  }
  return best;
}

function wireControls(): void {
  const on = (id: string, ev: string, fn: (e: Event) => unknown) =>
    $(id).addEventListener(ev, (e) => {
      Promise.resolve()
        .then(() => fn(e))
        .catch((err) => setStatus(err instanceof Error ? err.message : String(err), true));
    });
  on('drawMode', 'click', () => setDrawMode(!stageBox.classList.contains('drawing')));
  on('useDrawing', 'click', () => useDrawing());
  on('clearPad', 'click', () => pad.clear());
  on('brushColour', 'input', (e) => {
    pad.colour = (e.target as HTMLInputElement).value;
  });
  on('brushWidth', 'input', (e) => {
    pad.width = Number((e.target as HTMLInputElement).value);
  });
  on('imageFile', 'change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    return f ? loadImageFile(f) : undefined;
  });
  const adPicked = (e: Event) => {
    const fs = (e.target as HTMLInputElement).files;
    return fs?.length ? loadAnimatedDrawingsFiles(fs) : undefined;
  };
  on('adFolder', 'change', adPicked);
  on('adFiles', 'change', adPicked);
  on('defaultDrawing', 'click', () => {
    if (!config.defaultCharacter) throw new Error('no embedded default drawing on this server');
    return loadCharacterSpec(config.defaultCharacter);
  });
  on('suggestJoints', 'click', () => suggestJoints());
  on('editJoints', 'click', () => setEditing(!editing));
  on('weightMode', 'change', (e) => {
    weightMode = (e.target as HTMLSelectElement).value as WeightMode;
    if (puppet) {
      puppet.weights = computeWeights(puppet.mesh, puppet.character, weightMode);
      rebuildDeformer(puppet);
      setStatus(`weights: ${weightMode}`);
    }
  });
  ($('deformMode') as HTMLSelectElement).value = deformMode;
  on('deformMode', 'change', (e) => {
    deformMode = (e.target as HTMLSelectElement).value as DeformMode;
    if (puppet) {
      puppet.deformer = new Deformer(puppet.mesh, puppet.weights, deformMode);
      setStatus(`deformation: ${deformMode}`);
    }
  });
  on('taskFile', 'change', async (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    taskModel = f ? new Uint8Array(await f.arrayBuffer()) : null;
    if (f) ($('backend') as HTMLSelectElement).value = 'tasks';
    setStatus(
      f ? `model ${f.name} (${taskModel!.length} bytes) picked for tasks-vision` : 'model: published URL',
    );
  });
  on('startCamera', 'click', () => startCamera());
  on('stopSource', 'click', () => {
    stopSource();
    setStatus('stopped');
  });
  on('record', 'click', () => (recorder.active ? stopRecording(true) : startRecording()));
  on('recordingFile', 'change', async (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (!f) return;
    const text = await f.text();
    stopSource();
    const rec = parseLandmarkRecording(text, f.name);
    // a recording whose "image" is swapped against its world landmarks is refused here as in kind puppet
    checkRecordingImageSize(rec, { coordinates: 'normalized', given: 'file', source: f.name });
    return playRecording(JSON.stringify(rec), { loop: true, name: f.name });
  });
  on('playDefault', 'click', () => {
    if (!config.recording) throw new Error('no recording on this server');
    return playRecording(config.recording, { loop: true, name: config.recordingName ?? 'default recording' });
  });
  const slider = (id: string, key: 'smoothingMs' | 'visibilityThreshold', digits: number) => {
    const el = $(id) as HTMLInputElement;
    el.value = String(pipeline.options[key]);
    $(`${id}Value`).textContent = pipeline.options[key].toFixed(digits);
    on(id, 'input', () => {
      poseOptions[key] = Number(el.value);
      $(`${id}Value`).textContent = Number(el.value).toFixed(digits);
      pipeline = new PosePipeline(poseOptions, pipeline.image);
    });
  };
  slider('smoothingMs', 'smoothingMs', 0);
  slider('threshold', 'visibilityThreshold', 2);

  // joint dragging (Edit joints)
  stage.addEventListener('pointerdown', (e) => {
    if (!editing || !puppet) return;
    const [x, y] = stagePoint(e);
    dragJoint = nearestJoint(x, y);
    if (dragJoint >= 0) stage.setPointerCapture(e.pointerId);
  });
  stage.addEventListener('pointermove', (e) => {
    if (!editing || !puppet) return;
    const [x, y] = stagePoint(e);
    if (dragJoint < 0) {
      hoverJoint = nearestJoint(x, y);
      return;
    }
    const c = puppet.character;
    c.restJoints.x[dragJoint] = Math.min(c.width - 1, Math.max(0, x));
    c.restJoints.y[dragJoint] = Math.min(c.height - 1, Math.max(0, y));
    c.restJoints.state[dragJoint] = JointStateCode.Measured;
    c.restJoints.confidence[dragJoint] = 1;
  });
  const drop = () => {
    if (dragJoint >= 0) {
      setStatus(
        `${puppet ? characterJoints(puppet.character).names[dragJoint] : dragJoint} moved; weights and rig rebuilt`,
      );
      dragJoint = -1;
      rebindCharacter();
    }
  };
  stage.addEventListener('pointerup', drop);
  stage.addEventListener('pointercancel', drop);
}

// ------------------------------------------------------------------ start

async function init(): Promise<void> {
  buildJointTable();
  wireControls();
  requestAnimationFrame(render);
  setInterval(updateFigures, 250);
  resizeStage();
  try {
    const r = await fetch('/config.json');
    if (r.ok) config = (await r.json()) as PageConfig;
  } catch {
    // served by something else: the defaults above, no drawing
  }
  const b = params.get('backend');
  if (b === 'legacy' || b === 'tasks') ($('backend') as HTMLSelectElement).value = b;
  const cx = params.get('complexity');
  if (cx === '0' || cx === '1') ($('complexity') as HTMLSelectElement).value = cx;
  const charBase = params.get('character');
  const image = params.get('image');
  const spec: CharacterSpec | null =
    charBase === 'none'
      ? null
      : charBase
        ? {
            name: charBase.replace(/\/$/, '').split('/').pop() || 'character',
            texture: `${charBase}texture.png`,
            mask: `${charBase}mask.png`,
            cfg: `${charBase}char_cfg.yaml`,
          }
        : image
          ? { name: image.split('/').pop() || 'image', texture: image }
          : config.character;
  if (spec) await guard(loadCharacterSpec(spec)).catch(() => undefined);
  else setStatus('no drawing yet: draw one, or load an image or an AnimatedDrawings folder');
  ($('playDefault') as HTMLButtonElement).disabled = !config.recording;
  // the button names what it plays: the --landmarks file, or the embedded default
  if (config.recordingName) $('playDefault').textContent = `Play ${config.recordingName}`;
  ($('defaultDrawing') as HTMLButtonElement).disabled = !config.defaultCharacter;
  api.ready = true;
  const rec = params.get('recording');
  if (params.get('source') === 'camera') await guard(startCamera()).catch(() => undefined);
  else if (rec) await guard(playRecording(rec, { loop: params.get('loop') === '1' })).catch(() => undefined);
}

void init();
