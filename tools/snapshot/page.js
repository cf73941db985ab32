// Page of tools/snapshot.mjs (runs in headless Chromium, served on 127.0.0.1).
// Loads the GLB (and optionally a BVH), poses both at each requested frame time, renders one tile
// per frame with three.js and composes the tiles into one PNG, which it POSTs back to /result.
// Failures go to /fail as one line of text; warnings to /warn.
//
// Scene conventions: right-handed, Y up, metres; the character is expected to face +Z with its
// left at +X (glTF 2.0 / VRM 1.0). The camera looks from +Z and a little from +X (the front-left
// of such a character), so its face is visible. Bones on the character's left are drawn orange,
// right cyan, centre yellow: if the avatar faces +Z, the orange limbs are on the side the red
// X axis points to.
import * as THREE from 'three';
import { BVHLoader } from 'three/addons/loaders/BVHLoader.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

const COLOR_LEFT = new THREE.Color(0xff7a1a);
const COLOR_RIGHT = new THREE.Color(0x22c4ff);
const COLOR_CENTRE = new THREE.Color(0xffe14d);
const BACKGROUND = 0x3a3f47;

let failed = false;

async function post(path, body, type) {
  await fetch(path, { method: 'POST', body, headers: { 'content-type': type } });
}

function fail(message) {
  if (failed) return;
  failed = true;
  post('/fail', String(message).replace(/\s+/g, ' ').trim(), 'text/plain');
}

function warn(message) {
  return post('/warn', String(message), 'text/plain');
}

window.addEventListener('error', (e) => fail(`page error: ${e.message} (${e.filename}:${e.lineno})`));
window.addEventListener('unhandledrejection', (e) => fail(`page error: ${e.reason?.message ?? e.reason}`));

/** Which side of the body a joint name denotes: 'L', 'R' or '' (unknown). */
function sideOfName(fullName) {
  const n = fullName.split(/[:|]/).pop();
  if (/left/i.test(n) || /(^|[_.\s-])l($|[_.\s\d-])/i.test(n) || /^[lL](?=[A-Z])/.test(n)) return 'L';
  if (/right/i.test(n) || /(^|[_.\s-])r($|[_.\s\d-])/i.test(n) || /^[rR](?=[A-Z])/.test(n)) return 'R';
  return '';
}

/** Lines parent->child and points at the joints, coloured by body side, drawn over everything. */
class SkeletonOverlay {
  constructor(bones, pointSize) {
    this.bones = bones;
    const inSet = new Set(bones);
    const side = new Map();
    const sideOf = (b) => {
      if (side.has(b)) return side.get(b);
      let s = sideOfName(b.name);
      if (!s && b.parent && inSet.has(b.parent)) s = sideOf(b.parent);
      side.set(b, s);
      return s;
    };
    const colorOf = (b) => {
      const s = sideOf(b);
      return s === 'L' ? COLOR_LEFT : s === 'R' ? COLOR_RIGHT : COLOR_CENTRE;
    };
    this.pairs = bones.filter((b) => b.parent && inSet.has(b.parent)).map((b) => [b.parent, b]);
    const linePos = new Float32Array(this.pairs.length * 6);
    const lineCol = new Float32Array(this.pairs.length * 6);
    this.pairs.forEach(([, child], i) => {
      const c = colorOf(child);
      c.toArray(lineCol, i * 6);
      c.toArray(lineCol, i * 6 + 3);
    });
    const pointPos = new Float32Array(bones.length * 3);
    const pointCol = new Float32Array(bones.length * 3);
    bones.forEach((b, i) => {
      colorOf(b).toArray(pointCol, i * 3);
    });
    const lg = new THREE.BufferGeometry();
    lg.setAttribute('position', new THREE.BufferAttribute(linePos, 3));
    lg.setAttribute('color', new THREE.BufferAttribute(lineCol, 3));
    const pg = new THREE.BufferGeometry();
    pg.setAttribute('position', new THREE.BufferAttribute(pointPos, 3));
    pg.setAttribute('color', new THREE.BufferAttribute(pointCol, 3));
    const over = { depthTest: false, depthWrite: false, transparent: true, vertexColors: true };
    this.lines = new THREE.LineSegments(lg, new THREE.LineBasicMaterial(over));
    this.points = new THREE.Points(
      pg,
      new THREE.PointsMaterial({ ...over, size: pointSize, sizeAttenuation: false }),
    );
    for (const o of [this.lines, this.points]) {
      o.renderOrder = 1000;
      o.frustumCulled = false;
    }
    this.group = new THREE.Group();
    this.group.add(this.lines, this.points);
  }

  /** Refreshes the buffers from the bones' world matrices (call after updateMatrixWorld). */
  update() {
    const v = new THREE.Vector3();
    const lp = this.lines.geometry.attributes.position;
    this.pairs.forEach(([a, b], i) => {
      v.setFromMatrixPosition(a.matrixWorld).toArray(lp.array, i * 6);
      v.setFromMatrixPosition(b.matrixWorld).toArray(lp.array, i * 6 + 3);
    });
    lp.needsUpdate = true;
    const pp = this.points.geometry.attributes.position;
    this.bones.forEach((b, i) => {
      v.setFromMatrixPosition(b.matrixWorld).toArray(pp.array, i * 3);
    });
    pp.needsUpdate = true;
  }

  /** World box of the joints, and the lowest joint height (m). */
  box(target) {
    target.makeEmpty();
    const v = new THREE.Vector3();
    for (const b of this.bones) target.expandByPoint(v.setFromMatrixPosition(b.matrixWorld));
    return target;
  }
}

/** Bones of a glTF scene: the skins' joints, else Bone nodes, else the animated nodes. */
function gltfBones(root, clip) {
  const set = new Set();
  root.traverse((o) => {
    if (o.isSkinnedMesh) for (const b of o.skeleton.bones) set.add(b);
  });
  if (set.size === 0) root.traverse((o) => o.isBone && set.add(o));
  if (set.size === 0 && clip) {
    for (const t of clip.tracks) {
      const node = THREE.PropertyBinding.findNode(
        root,
        THREE.PropertyBinding.parseTrackName(t.name).nodeName,
      );
      if (node) set.add(node);
    }
  }
  return [...set];
}

/** Frames per second of a clip: 1 / the median key interval of its longest track. */
function clipFps(clip) {
  let times = null;
  for (const t of clip.tracks) if (!times || t.times.length > times.length) times = t.times;
  if (!times || times.length < 2) return 30;
  const d = [];
  for (let i = 1; i < times.length; i++) d.push(times[i] - times[i - 1]);
  d.sort((a, b) => a - b);
  const fps = 1 / d[d.length >> 1];
  const r = Math.round(fps);
  return Math.abs(fps - r) < 0.01 * fps ? r : fps;
}

/** Channel names per ROOT/JOINT, in file order (the BVHLoader names joints the same way). */
function bvhChannels(text) {
  const out = [];
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim().split(/\s+/);
    if (t[0] === 'ROOT' || t[0] === 'JOINT') out.push({ name: t[1], channels: [] });
    else if (t[0] === 'CHANNELS' && out.length) out[out.length - 1].channels = t.slice(2);
  }
  return out;
}

async function loadBvh(cfg) {
  const res = await fetch(cfg.bvhUrl);
  const text = await res.text();
  const errors = [];
  const origError = console.error;
  console.error = (...a) => errors.push(a.join(' '));
  let result;
  try {
    result = new BVHLoader().parse(text);
  } catch (e) {
    throw new Error(`${cfg.bvhName}: not a readable BVH (${e.message})`);
  } finally {
    console.error = origError;
  }
  if (errors.length) throw new Error(`${cfg.bvhName}: ${errors[0]}`);
  // BVHLoader adds the OFFSET to the position channels; the project's reader (src/io/bvh.ts) takes
  // position channels as the joint's local translation, REPLACING the OFFSET (e.g. the Bandai Namco
  // files, whose non-root position channels equal the OFFSETs). Undo the addition for those axes.
  const byName = new Map(result.skeleton.bones.map((b) => [b.name, b]));
  for (const j of bvhChannels(text)) {
    const bone = byName.get(j.name);
    const track = result.clip.tracks.find((t) => t.name === `${j.name}.position`);
    if (!bone || !track) continue;
    const axes = ['Xposition', 'Yposition', 'Zposition'].map((c) => j.channels.includes(c));
    const off = bone.position.toArray();
    for (let i = 0; i < track.values.length; i += 3)
      for (let a = 0; a < 3; a++) if (axes[a]) track.values[i + a] -= off[a];
  }
  const root = new THREE.Group();
  root.name = 'bvh-root';
  root.skeleton = result.skeleton;
  root.add(result.skeleton.bones[0]);
  const holder = new THREE.Group();
  holder.scale.setScalar(cfg.bvhScale);
  holder.position.fromArray(cfg.bvhOffset);
  holder.add(root);
  return { holder, root, clip: result.clip, bones: result.skeleton.bones };
}

function playOnce(mixer, clip) {
  const action = mixer.clipAction(clip);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  return action;
}

function poseAt(mixer, action, t) {
  action.reset();
  mixer.setTime(Math.min(Math.max(t, 0), action.getClip().duration));
}

/** Camera distance that fits `box` seen along unit `dir` around `centre`. */
function fitDistance(box, centre, dir, camera) {
  const up = new THREE.Vector3(0, 1, 0);
  const right = new THREE.Vector3().crossVectors(up, dir).normalize();
  const camUp = new THREE.Vector3().crossVectors(dir, right);
  const tanV = Math.tan(THREE.MathUtils.degToRad(camera.fov / 2));
  const tanH = tanV * camera.aspect;
  let d = 0;
  const p = new THREE.Vector3();
  for (let i = 0; i < 8; i++) {
    p.set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z);
    p.sub(centre);
    const need = p.dot(dir) + Math.max(Math.abs(p.dot(right)) / tanH, Math.abs(p.dot(camUp)) / tanV);
    d = Math.max(d, need);
  }
  return d * 1.08;
}

function fmt(v, n = 2) {
  if (!Number.isFinite(v)) return '-';
  const s = v.toFixed(n);
  return Number(s) === 0 ? (0).toFixed(n) : s; // no "-0.00"
}

async function main() {
  const cfg = await (await fetch('/config.json')).json();

  let gltf;
  try {
    gltf = await new GLTFLoader().loadAsync(cfg.glbUrl);
  } catch (e) {
    throw new Error(`${cfg.glbName}: not a loadable glTF (${e.message ?? e})`);
  }
  const avatar = gltf.scene ?? gltf.scenes?.[0];
  if (!avatar) throw new Error(`${cfg.glbName}: has no scene`);

  let clip = null;
  if (gltf.animations.length) {
    if (cfg.clip == null) clip = gltf.animations[0];
    else {
      clip =
        gltf.animations.find((c) => c.name === cfg.clip) ??
        (/^\d+$/.test(cfg.clip) ? gltf.animations[Number(cfg.clip)] : undefined);
      if (!clip)
        throw new Error(
          `${cfg.glbName}: no animation '${cfg.clip}' (has: ${gltf.animations.map((c) => c.name || '(unnamed)').join(', ')})`,
        );
    }
  } else await warn(`${cfg.glbName} has no animation: drawing the rest pose`);

  const fps = cfg.fps ?? (clip ? clipFps(clip) : 30);
  const lastFrame = clip ? Math.round(clip.duration * fps) : 0;
  let frames = cfg.frames;
  if (!frames) {
    const n = clip ? Math.min(cfg.count, lastFrame + 1) : 1;
    frames = n <= 1 ? [0] : Array.from({ length: n }, (_, i) => Math.round((i * lastFrame) / (n - 1)));
    frames = [...new Set(frames)];
  }
  const past = frames.filter((f) => f > lastFrame);
  if (past.length)
    await warn(`frames ${past.join(',')} are past the last frame ${lastFrame}: showing the last pose`);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x555555, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2.2);
  sun.position.set(2, 5, 4);
  scene.add(sun);
  // skinned meshes keep their bind-pose bounds; an animated avatar can leave them and be culled
  avatar.traverse((o) => {
    if (o.isMesh) o.frustumCulled = false;
  });
  scene.add(avatar);

  const avatarMixer = new THREE.AnimationMixer(avatar);
  const avatarAction = clip ? playOnce(avatarMixer, clip) : null;
  const avatarBones = gltfBones(avatar, clip);
  const avatarOverlay = new SkeletonOverlay(avatarBones, 5);
  scene.add(avatarOverlay.group);

  let bvh = null;
  if (cfg.bvhUrl) {
    bvh = await loadBvh(cfg);
    scene.add(bvh.holder);
    bvh.mixer = new THREE.AnimationMixer(bvh.root);
    bvh.action = playOnce(bvh.mixer, bvh.clip);
    bvh.overlay = new SkeletonOverlay(bvh.bones, 6);
    scene.add(bvh.overlay.group);
  }

  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (e) {
    throw new Error(`WebGL is not available in this Chromium (${e.message})`);
  }
  renderer.setPixelRatio(1);
  renderer.setSize(cfg.width, cfg.height);
  const camera = new THREE.PerspectiveCamera(35, cfg.width / cfg.height, 0.01, 500);

  // Pass 1: pose every frame, measure the boxes.
  const samples = [];
  const union = new THREE.Box3();
  for (const frame of frames) {
    const t = frame / fps;
    if (avatarAction) poseAt(avatarMixer, avatarAction, t);
    if (bvh) poseAt(bvh.mixer, bvh.action, t);
    scene.updateMatrixWorld(true);
    const s = { frame, t };
    const bonesBox = avatarOverlay.box(new THREE.Box3());
    const meshBox = new THREE.Box3().setFromObject(avatar, true);
    s.avatarBox = bonesBox.clone().union(meshBox);
    s.meshMinY = meshBox.isEmpty() ? Number.NaN : meshBox.min.y;
    s.boneMinY = bonesBox.min.y;
    s.box = s.avatarBox.clone();
    if (bvh) {
      s.bvhBox = bvh.overlay.box(new THREE.Box3());
      s.bvhMinY = s.bvhBox.min.y;
      s.box.union(s.bvhBox.clone().expandByScalar(0.1));
      s.bvhPast = t > bvh.clip.duration + 0.5 / fps; // half a frame: BVH time is (n-1) x Frame Time
    }
    if (s.box.isEmpty()) throw new Error(`${cfg.glbName}: nothing to draw (no mesh and no bones)`);
    union.union(s.box);
    samples.push(s);
  }
  if (bvh && samples.some((s) => s.bvhPast))
    await warn(
      `${cfg.bvhName} is shorter (${fmt(bvh.clip.duration, 3)} s) than some frame times: showing its last pose`,
    );

  // Floor grid (0.5 m cells) covering everything, translucent floor, axes at the origin.
  const ext = Math.ceil(
    Math.max(Math.abs(union.min.x), Math.abs(union.max.x), Math.abs(union.min.z), Math.abs(union.max.z)) + 1,
  );
  const grid = new THREE.GridHelper(2 * ext, 4 * ext, 0x9aa3ad, 0x59606a);
  scene.add(grid);
  const floor = new THREE.Mesh(
    new THREE.PlaneGeometry(2 * ext, 2 * ext).rotateX(-Math.PI / 2),
    new THREE.MeshBasicMaterial({ color: 0x20242a, transparent: true, opacity: 0.45, depthWrite: false }),
  );
  floor.renderOrder = 10;
  scene.add(floor);
  const axes = new THREE.AxesHelper(0.6);
  axes.position.y = 0.003;
  axes.renderOrder = 11;
  scene.add(axes);

  // Camera: from +Z, turned toward +X by the azimuth, raised by the elevation.
  const az = THREE.MathUtils.degToRad(cfg.azimuth);
  const el = THREE.MathUtils.degToRad(cfg.elevation);
  const dir = new THREE.Vector3(Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el));
  const unionCentre = union.getCenter(new THREE.Vector3());
  let dist;
  if (cfg.camera === 'fixed') dist = fitDistance(union, unionCentre, dir, camera);
  else {
    dist = 0;
    for (const s of samples) {
      const c = s.box.getCenter(new THREE.Vector3());
      c.y = unionCentre.y;
      const b = s.box.clone().union(new THREE.Box3(c, c)); // keep the shared height in view
      b.min.y = Math.min(b.min.y, union.min.y);
      b.max.y = Math.max(b.max.y, union.max.y);
      dist = Math.max(dist, fitDistance(b, c, dir, camera));
    }
  }

  // Pass 2: render the tiles into the sheet.
  const cols =
    cfg.cols ??
    Math.max(1, Math.min(samples.length, Math.round(Math.sqrt((samples.length * cfg.height) / cfg.width))));
  const rows = Math.ceil(samples.length / cols);
  const sheet = document.createElement('canvas');
  const g = sheet.getContext('2d');
  const sheetWidth = cols * cfg.width;
  const clipText = clip
    ? `clip '${clip.name || '(unnamed)'}' ${lastFrame + 1} frames @ ${fmt(fps, fps % 1 ? 3 : 0)} fps, ${fmt(clip.duration, 3)} s`
    : 'no animation (rest pose)';
  const src = bvh ? `Source ${cfg.bvhName} x${cfg.bvhScale}, moved by (${cfg.bvhOffset.join(', ')}) m. ` : '';
  const headLines = [
    { font: 'bold 13px "DejaVu Sans", sans-serif', text: `${cfg.glbName}: ${clipText}` },
    {
      font: '11px "DejaVu Sans", sans-serif',
      text: `${src}Bones: left orange, right cyan, centre yellow. Axes: X red, Y green, Z blue. Camera ${cfg.camera}, from +Z ${cfg.azimuth}° toward +X, ${cfg.elevation}° up.`,
    },
  ].flatMap(({ font, text }) => {
    g.font = font;
    const out = [];
    let line = '';
    for (const word of text.split(' ')) {
      const next = line ? `${line} ${word}` : word;
      if (line && g.measureText(next).width > sheetWidth - 16) {
        out.push({ font, text: line });
        line = word;
      } else line = next;
    }
    out.push({ font, text: line });
    return out;
  });
  const header = 10 + headLines.length * 17;
  sheet.width = sheetWidth;
  sheet.height = header + rows * cfg.height;
  g.fillStyle = '#15181c';
  g.fillRect(0, 0, sheet.width, sheet.height);
  g.fillStyle = '#e8e8e8';
  headLines.forEach(({ font, text }, i) => {
    g.font = font;
    g.fillText(text, 8, 18 + i * 17);
  });

  const label = (text, x, y) => {
    const w = g.measureText(text).width;
    g.fillStyle = 'rgba(0,0,0,0.55)';
    g.fillRect(x - 3, y - 12, w + 6, 16);
    g.fillStyle = '#ffffff';
    g.fillText(text, x, y);
  };
  const tagAbove = (box, text, x0, y0) => {
    const top = new THREE.Vector3((box.min.x + box.max.x) / 2, box.max.y, (box.min.z + box.max.z) / 2);
    top.project(camera);
    if (top.z > 1) return;
    g.font = '11px "DejaVu Sans", sans-serif';
    const w = g.measureText(text).width;
    const x = x0 + ((top.x + 1) / 2) * cfg.width - w / 2;
    const y = y0 + ((1 - top.y) / 2) * cfg.height - 6;
    label(text, Math.max(x0 + 4, Math.min(x, x0 + cfg.width - w - 4)), Math.max(y0 + 50, y));
  };

  samples.forEach((s, i) => {
    if (avatarAction) poseAt(avatarMixer, avatarAction, s.t);
    if (bvh) poseAt(bvh.mixer, bvh.action, s.t);
    scene.updateMatrixWorld(true);
    avatarOverlay.update();
    if (bvh) bvh.overlay.update();
    const c = cfg.camera === 'fixed' ? unionCentre.clone() : s.box.getCenter(new THREE.Vector3());
    c.y = unionCentre.y;
    camera.position.copy(c).addScaledVector(dir, dist);
    camera.up.set(0, 1, 0);
    camera.lookAt(c);
    camera.updateMatrixWorld(true);
    renderer.render(scene, camera);
    const x0 = (i % cols) * cfg.width;
    const y0 = header + Math.floor(i / cols) * cfg.height;
    g.drawImage(renderer.domElement, x0, y0);
    g.strokeStyle = '#15181c';
    g.strokeRect(x0 + 0.5, y0 + 0.5, cfg.width - 1, cfg.height - 1);
    g.font = 'bold 13px "DejaVu Sans", sans-serif';
    label(`frame ${s.frame}  t=${fmt(s.t, 3)} s${s.frame > lastFrame ? ' (past end)' : ''}`, x0 + 6, y0 + 17);
    g.font = '11px "DejaVu Sans", sans-serif';
    label(`target min y: mesh ${fmt(s.meshMinY)} joints ${fmt(s.boneMinY)} m`, x0 + 6, y0 + 34);
    if (bvh)
      label(`source min y: joints ${fmt(s.bvhMinY)} m${s.bvhPast ? ' (past end)' : ''}`, x0 + 6, y0 + 50);
    if (bvh) {
      tagAbove(s.avatarBox, 'target', x0, y0);
      tagAbove(s.bvhBox, 'source', x0, y0);
    }
  });

  const blob = await new Promise((resolve) => sheet.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('could not encode the PNG');
  await post('/result', await blob.arrayBuffer(), 'image/png');
}

main().catch((e) => fail(e?.message ?? e));
