/**
 * The live viewer (browser; three.js + lil-gui), served by src/live/node/viewerServer.ts.
 *
 * Fetches `/scene.json`, draws the source skeleton (a stick figure) and every avatar (its glTF model
 * when `modelUrl` is given, else a stick figure) side by side along +X, connects to `ws /pose` and
 * applies each pose message (layout: src/live/viewer/poseLayout.ts; quaternions [x, y, z, w], metres, Y up, faces +Z:
 * the same frame as three.js, so values go on the nodes as they are), shows an overlay with the
 * stream's frame rate, latency and dropped packets, and opens the remote-control panel (./panel.ts).
 * Until the stream starts (before the first pose message, and again after the pose socket closed, until
 * the next message) every figure shows its skeleton's rest pose from the scene (the avatar as authored,
 * scales 1), not whatever pose it last had.
 *
 * Raw and filtered side by side: with `?raw=1` in the page URL or the panel's "View > raw source"
 * toggle, the page asks the server for layout version 2 (`/pose?raw=1`: the raw source pose appended)
 * and draws the raw source as a red stick figure beside the source figure (which shows the filtered
 * pose the hubs read); off, it goes back to the plain stream and hides that figure.
 *
 * For tests, `window.kindViewer` ({@link KindViewerApi}) exposes what the page received.
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { type GLTF, GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import {
  type PoseLayoutInfo,
  type PoseOffsets,
  poseOffsets,
  type ViewerScene,
} from '../../live/viewer/poseLayout';
import { type Figure, GltfFigure, StickFigure } from './figures';
import { type PanelState, RemotePanel } from './panel';

/** `window.kindViewer`: the page's state for tests and debugging. */
export interface KindViewerApi {
  /** Pose messages applied. */
  frames: number;
  /** Frame number of the last message (-1 before the first). */
  lastFrame: number;
  /** Header of the last message. */
  last: { frameNumber: number; timestamp: number; latencyMs: number; dropped: number; fps: number } | null;
  /** Figures loaded (source + avatars) and ready to draw. */
  sceneReady: boolean;
  /** True while no stream is playing (before the first pose message, or since the pose socket closed): the figures show the rest pose. */
  showingRest: boolean;
  /** Local rotation `[x, y, z, w]` of an avatar bone in the last message, or null. */
  avatarBoneQuaternion(avatarIndex: number, boneName: string): number[] | null;
  /** Local translation (metres) of an avatar bone in the last message, or null. */
  avatarBoneTranslation(avatarIndex: number, boneName: string): number[] | null;
  /** `[hips scale, head scale]` of an avatar in the last message, or null. */
  avatarScales(avatarIndex: number): number[] | null;
  /**
   * Position (metres) of an avatar bone as drawn, in the avatar's own frame (the three.js scene minus
   * the figure's side-by-side offset along X), or null.
   */
  avatarBoneWorldPosition(avatarIndex: number, boneName: string): number[] | null;
  /** The last message's pose of an avatar (local rotations `4n`, translations `3n`, scales), or null. */
  avatarPose(avatarIndex: number): { rotations: number[]; translations: number[]; scales: number[] } | null;
  /** True while the raw source is asked for and drawn (`?raw=1` or the panel's toggle). */
  rawShown: boolean;
  /** Turn the raw source figure on or off (as the panel's toggle does; reconnects the pose stream). */
  setShowRaw(on: boolean): void;
  /**
   * Position (metres) of a source bone as drawn by the source figure (`filtered`) or the raw source
   * figure (`raw`), in that figure's own frame (minus its side-by-side offset along X); null for an
   * unknown bone, before the scene loaded, or for `raw` while the raw figure is hidden.
   */
  sourceBoneWorldPosition(which: 'filtered' | 'raw', boneName: string): number[] | null;
  /** The last message's source pose (filtered) and raw source pose (version 2 only, else null). */
  sourcePose(which: 'filtered' | 'raw'): { rotations: number[]; translations: number[] } | null;
  /** True once the panel built the controls of a character. */
  panelReady: boolean;
  /** The panel's state (connection, character, values, errors). */
  panel: PanelState | null;
  /** Errors while loading (scene, models, stream). */
  errors: string[];
}

declare global {
  interface Window {
    kindViewer: KindViewerApi;
  }
}

const SPACING = 1.2;
const COLORS = [0xf2a541, 0x4aa3df, 0x7bc67b, 0xd96c9a, 0x9b8ae0, 0x5cc8c8];

let lastMessage: Float32Array | null = null;
let lastOffsets: PoseOffsets | null = null;
let scene: ViewerScene | null = null;
let panel: RemotePanel | null = null;

const api: KindViewerApi = {
  frames: 0,
  lastFrame: -1,
  last: null,
  sceneReady: false,
  showingRest: true,
  avatarBoneQuaternion: (a, name) => boneValues(a, name, 'rotations', 4),
  avatarBoneTranslation: (a, name) => boneValues(a, name, 'translations', 3),
  avatarScales: (a) => {
    const o = lastOffsets?.avatars[a];
    if (!o || !lastMessage) return null;
    return Array.from(lastMessage.subarray(o.scales, o.scales + o.scaleCount));
  },
  avatarBoneWorldPosition: (a, name) => {
    const fig = figures[a + 1];
    const b = fig ? fig.skeleton.boneNames.indexOf(name) : -1;
    if (b < 0) return null;
    const v = fig.boneWorldPosition(b, new THREE.Vector3());
    return v ? v.sub(fig.root.position).toArray() : null;
  },
  avatarPose: (a) => {
    const o = lastOffsets?.avatars[a];
    const m = lastMessage;
    if (!o || !m) return null;
    return {
      rotations: Array.from(m.subarray(o.rotations, o.rotations + 4 * o.bones)),
      translations: Array.from(m.subarray(o.translations, o.translations + 3 * o.bones)),
      scales: Array.from(m.subarray(o.scales, o.scales + o.scaleCount)),
    };
  },
  rawShown: new URLSearchParams(location.search).get('raw') === '1',
  setShowRaw: (on) => setShowRaw(on),
  sourceBoneWorldPosition: (which, name) => {
    const fig = which === 'raw' ? rawFigure : figures[0];
    if (!fig?.root.visible) return null;
    const b = fig.skeleton.boneNames.indexOf(name);
    if (b < 0) return null;
    const v = fig.boneWorldPosition(b, new THREE.Vector3());
    return v ? v.sub(fig.root.position).toArray() : null;
  },
  sourcePose: (which) => {
    const o = lastOffsets;
    const m = lastMessage;
    const S = scene?.source.boneNames.length ?? 0;
    if (!o || !m) return null;
    const r = which === 'raw' ? o.rawRotations : o.sourceRotations;
    const t = which === 'raw' ? o.rawTranslations : o.sourceTranslations;
    if (r < 0) return null;
    return {
      rotations: Array.from(m.subarray(r, r + 4 * S)),
      translations: Array.from(m.subarray(t, t + 3 * S)),
    };
  },
  get panelReady() {
    return panel?.state.ready ?? false;
  },
  get panel() {
    return panel?.state ?? null;
  },
  errors: [],
};
window.kindViewer = api;

function boneValues(a: number, name: string, part: 'rotations' | 'translations', k: number): number[] | null {
  const o = lastOffsets?.avatars[a];
  const skel = scene?.avatars[a];
  if (!o || !lastMessage || !skel) return null;
  const b = skel.boneNames.indexOf(name);
  if (b < 0 || b >= o.bones) return null;
  return Array.from(lastMessage.subarray(o[part] + k * b, o[part] + k * b + k));
}

function reportError(text: string): void {
  api.errors.push(text);
  const el = document.getElementById('errors');
  if (el) el.textContent = api.errors.slice(-5).join('\n');
  console.error(text);
}

// --- three.js scene
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
document.body.appendChild(renderer.domElement);
const world = new THREE.Scene();
world.background = new THREE.Color(0x22262b);
world.add(new THREE.HemisphereLight(0xffffff, 0x444455, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(3, 6, 5);
world.add(sun);
const grid = new THREE.GridHelper(40, 40, 0x666a70, 0x3a3e44);
world.add(grid);
const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 0.05, 200);
camera.position.set(0, 1.6, 5.5);
const controls = new OrbitControls(camera, renderer.domElement);
controls.target.set(0, 0.9, 0);
controls.update();
window.addEventListener('resize', () => {
  camera.aspect = window.innerWidth / window.innerHeight;
  camera.updateProjectionMatrix();
  renderer.setSize(window.innerWidth, window.innerHeight);
});

const figures: Figure[] = [];

function label(text: string): THREE.Sprite {
  const canvas = document.createElement('canvas');
  canvas.width = 256;
  canvas.height = 48;
  const g = canvas.getContext('2d');
  if (g) {
    g.font = '28px sans-serif';
    g.fillStyle = '#e8e8e8';
    g.textAlign = 'center';
    g.fillText(text, 128, 34);
  }
  const sprite = new THREE.Sprite(new THREE.SpriteMaterial({ map: new THREE.CanvasTexture(canvas) }));
  sprite.scale.set(0.8, 0.15, 1);
  return sprite;
}

async function loadFigures(s: ViewerScene): Promise<void> {
  const loader = new GLTFLoader();
  const all = [s.source, ...s.avatars];
  const count = all.length;
  for (let i = 0; i < count; i++) {
    const skel = all[i];
    let fig: Figure;
    if (skel.modelUrl) {
      try {
        const gltf: GLTF = await loader.loadAsync(skel.modelUrl);
        fig = new GltfFigure(skel, gltf);
        if (fig.missing.length > 0) reportError(`${skel.name}: no model node for ${fig.missing.join(', ')}`);
      } catch (e) {
        reportError(`${skel.name}: cannot load ${skel.modelUrl}: ${(e as Error).message}`);
        fig = new StickFigure(skel, COLORS[i % COLORS.length]);
      }
    } else {
      fig = new StickFigure(skel, COLORS[i % COLORS.length]);
    }
    fig.root.position.x = (i - (count - 1) / 2) * SPACING;
    const tag = label(i === 0 ? `${skel.name} (source)` : skel.name);
    tag.position.set(0, 2.05, 0);
    fig.root.add(tag);
    tagOf.set(fig, tag);
    world.add(fig.root);
    figures.push(fig);
  }
  // the raw source, beside the source figure (on its left), shown on demand
  const raw = new StickFigure(s.source, RAW_COLOR);
  raw.root.position.x = figures[0].root.position.x - SPACING;
  const tag = label(`${s.source.name} (raw)`);
  tag.position.set(0, 2.05, 0);
  raw.root.add(tag);
  tagOf.set(raw, tag);
  raw.root.visible = api.rawShown;
  world.add(raw.root);
  rawFigure = raw;
}
let rawFigure: Figure | null = null;
const RAW_COLOR = 0xe05050;
const tagOf = new Map<Figure, THREE.Sprite>();

// --- pose stream
const overlay = {
  frame: document.getElementById('frame'),
  fps: document.getElementById('fps'),
  latency: document.getElementById('latency'),
  dropped: document.getElementById('dropped'),
  received: document.getElementById('received'),
  stream: document.getElementById('stream'),
};
let receivedTimes: number[] = [];

/**
 * Put every figure in its skeleton's rest pose (scene.json `restRotations` / `restTranslations`, scales 1):
 * shown until the stream starts. One message-like array per figure: rotations 4n, translations 3n, scales 2.
 */
function showRest(): void {
  api.showingRest = true;
  for (const f of rawFigure ? [...figures, rawFigure] : figures) {
    const s = f.skeleton;
    const n = s.boneNames.length;
    const rest = new Float32Array(7 * n + 2);
    rest.set(s.restRotations, 0);
    rest.set(s.restTranslations, 4 * n);
    rest[7 * n] = 1;
    rest[7 * n + 1] = 1;
    f.apply(rest, 0, 4 * n, 7 * n);
  }
}

function applyMessage(data: Float32Array): void {
  let off: PoseOffsets;
  try {
    off = poseOffsets(data);
  } catch (e) {
    reportError((e as Error).message);
    return;
  }
  lastMessage = data;
  lastOffsets = off;
  api.showingRest = false;
  api.frames++;
  api.lastFrame = data[1];
  api.last = { frameNumber: data[1], timestamp: data[2], latencyMs: data[3], dropped: data[4], fps: data[5] };
  const now = performance.now();
  receivedTimes.push(now);
  if (receivedTimes.length > 240) receivedTimes = receivedTimes.slice(-120);
  if (figures.length === 0) return;
  figures[0].apply(data, off.sourceRotations, off.sourceTranslations, -1);
  if (rawFigure && off.rawRotations >= 0) rawFigure.apply(data, off.rawRotations, off.rawTranslations, -1);
  for (let a = 0; a < off.avatars.length && a + 1 < figures.length; a++) {
    const o = off.avatars[a];
    if (o.bones !== figures[a + 1].skeleton.boneNames.length) continue;
    figures[a + 1].apply(data, o.rotations, o.translations, o.scaleCount >= 2 ? o.scales : -1);
  }
}

let poseSocket: WebSocket | null = null;
/** Shows a raw-source choice made outside the panel in its "View > raw source" checkbox. */
let showRawToggle: ((on: boolean) => void) | null = null;

function setShowRaw(on: boolean): void {
  if (api.rawShown === on) return;
  api.rawShown = on;
  if (rawFigure) rawFigure.root.visible = on;
  showRawToggle?.(on);
  // the stream in the other layout: reconnect (onclose reconnects at once with the new choice)
  poseSocket?.close();
}

function connectPose(): void {
  const query = api.rawShown ? '?raw=1' : '';
  const ws = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/pose${query}`,
  );
  poseSocket = ws;
  ws.binaryType = 'arraybuffer';
  ws.onopen = () => {
    if (overlay.stream) overlay.stream.textContent = 'connected';
  };
  ws.onmessage = (ev) => {
    if (ev.data instanceof ArrayBuffer && ev.data.byteLength % 4 === 0)
      applyMessage(new Float32Array(ev.data));
  };
  ws.onclose = () => {
    if (overlay.stream) overlay.stream.textContent = 'reconnecting…';
    // the stream ended (the server stopped): back to the rest pose until the next one starts
    lastMessage = null;
    lastOffsets = null;
    showRest();
    setTimeout(connectPose, api.rawShown === (query !== '') ? 1000 : 0);
  };
}

function updateOverlay(): void {
  const l = api.last;
  if (!l) return;
  const now = performance.now();
  const recent = receivedTimes.filter((t) => now - t < 1000).length;
  if (overlay.frame) overlay.frame.textContent = String(l.frameNumber);
  if (overlay.fps) overlay.fps.textContent = l.fps.toFixed(1);
  if (overlay.latency) overlay.latency.textContent = l.latencyMs.toFixed(2);
  if (overlay.dropped) overlay.dropped.textContent = String(l.dropped);
  if (overlay.received) overlay.received.textContent = String(recent);
}

// --- render loop: the camera follows the figures' mean hips position
const hips = new THREE.Vector3();
const mean = new THREE.Vector3();
const delta = new THREE.Vector3();
let overlayTick = 0;

function frame(): void {
  requestAnimationFrame(frame);
  world.updateMatrixWorld();
  if (figures.length > 0 && lastMessage) {
    mean.set(0, 0, 0);
    let k = 0;
    for (const f of figures) {
      const h = f.skeleton.humanoid?.[0] ?? 0;
      if (f.boneWorldPosition(h, hips)) {
        mean.add(hips);
        k++;
        const tag = tagOf.get(f);
        if (tag) tag.position.set(hips.x - f.root.position.x, 2.05, hips.z - f.root.position.z);
      }
    }
    // the raw source's label follows its hips too (the camera follows the other figures only)
    const rawTag = rawFigure?.root.visible ? tagOf.get(rawFigure) : undefined;
    if (rawFigure && rawTag && rawFigure.boneWorldPosition(rawFigure.skeleton.humanoid?.[0] ?? 0, hips))
      rawTag.position.set(hips.x - rawFigure.root.position.x, 2.05, hips.z - rawFigure.root.position.z);
    if (k > 0) {
      mean.divideScalar(k);
      delta.set(mean.x, 0.9, mean.z).sub(controls.target).multiplyScalar(0.1);
      delta.y = 0;
      controls.target.add(delta);
      camera.position.add(delta);
    }
  }
  controls.update();
  if (++overlayTick % 10 === 0) updateOverlay();
  renderer.render(world, camera);
}

async function start(): Promise<void> {
  let s: ViewerScene & { layout?: PoseLayoutInfo };
  try {
    const res = await fetch('/scene.json');
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    s = (await res.json()) as ViewerScene & { layout?: PoseLayoutInfo };
  } catch (e) {
    reportError(`cannot load /scene.json: ${(e as Error).message}`);
    return;
  }
  scene = s;
  const title = document.getElementById('title');
  if (title) title.textContent = `${s.source.name} -> ${s.avatars.map((a) => a.name).join(', ')}`;
  panel = new RemotePanel(
    s.remote.url,
    s.remote.token,
    s.avatars.map((a) => a.name),
  );
  showRawToggle = panel.addViewToggle('raw source', api.rawShown, (on) => setShowRaw(on));
  connectPose();
  requestAnimationFrame(frame);
  await loadFigures(s);
  if (lastMessage) applyMessage(lastMessage);
  else showRest();
  api.sceneReady = true;
}

void start();
