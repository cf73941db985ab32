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

/** Loads a BVH as a three.js skeleton: `{ url, name, scale (file units to metres), offset [x,y,z] }`. */
async function loadBvh(cfg) {
  const res = await fetch(cfg.url);
  if (!res.ok) throw new Error(`${cfg.name}: could not be fetched (${res.status})`);
  const text = await res.text();
  const errors = [];
  const origError = console.error;
  console.error = (...a) => errors.push(a.join(' '));
  let result;
  try {
    result = new BVHLoader().parse(text);
  } catch (e) {
    throw new Error(`${cfg.name}: not a readable BVH (${e.message})`);
  } finally {
    console.error = origError;
  }
  if (errors.length) throw new Error(`${cfg.name}: ${errors[0]}`);
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
  holder.scale.setScalar(cfg.scale);
  holder.position.fromArray(cfg.offset);
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
  if (cfg.mode === 'cleanup') return mainCleanup(cfg);

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
    bvh = await loadBvh({ url: cfg.bvhUrl, name: cfg.bvhName, scale: cfg.bvhScale, offset: cfg.bvhOffset });
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

// ---------------------------------------------------------------------------------------------------
// --cleanup: the original and the cleaned take of a `kind cleanup` run, side by side, feet marked.
//
// Both takes are placed exactly as the project's BVH reader places them (file units x unitScale, the
// clip's own world frame), then turned so the floor of cleanup.json (n.p + d = 0) is the grid at y = 0;
// so the anchors of cleanup.json (world metres) are drawn where the reader put them. Every tile has two
// halves, the original (left) and the cleaned take (right), seen by the same camera at the same frame.
// Per foot: a big dot at the ankle (green: in contact at this frame per cleanup.json; grey: free), the
// active segment's anchor as a ring on its ground level with a line up to the ankle target, and the
// ankle's horizontal path from the segment's first frame to this one (white: the slide). The labels
// give the ankle's horizontal distance from the anchor and the path length, measured on the drawn
// skeletons; the header repeats cleanup.json's figures beside the same figures measured here.

const COLOR_CONTACT = new THREE.Color(0x4cff6a);
const COLOR_FREE = new THREE.Color(0x8a8f98);

/** Lines of `items` ({font, text}) wrapped to `width` pixels. */
function wrapLines(g, items, width) {
  return items.flatMap(({ font, text }) => {
    g.font = font;
    const out = [];
    let line = '';
    for (const word of text.split(' ')) {
      const next = line ? `${line} ${word}` : word;
      if (line && g.measureText(next).width > width - 16) {
        out.push({ font, text: line });
        line = word;
      } else line = next;
    }
    out.push({ font, text: line });
    return out;
  });
}

/** Rest leg length (hip-to-ankle, file units) of the named leg: |OFFSET(knee)| + |OFFSET(ankle)|. */
function restLegUnits(bones, leg) {
  const byName = new Map(bones.map((b) => [b.name, b]));
  const k = byName.get(leg.lowerLeg);
  const a = byName.get(leg.foot);
  return k && a ? k.position.length() + a.position.length() : Number.NaN;
}

async function mainCleanup(cfg) {
  const cc = cfg.cleanup;
  const data = await (await fetch(cc.jsonUrl)).json();
  const F = data.frames;
  const ft = data.frameTime;
  const feet = ['left', 'right'];
  if (!data.legs) throw new Error(`${cc.jsonName}: no "legs" (bone names): rerun kind cleanup with this version`);
  const takes = [
    { key: 'before', title: 'original', url: cc.beforeUrl, name: cc.beforeName },
    { key: 'after', title: 'cleaned', url: cc.afterUrl, name: cc.afterName },
  ];
  // file units -> metres: cleanup.json's unitScale (the reader's), else from the rest leg length
  let scale = data.unitScale;
  for (const t of takes) {
    t.bvh = await loadBvh({ url: t.url, name: t.name, scale: 1, offset: [0, 0, 0] });
    if (!(scale > 0)) scale = data.legLength / restLegUnits(t.bvh.bones, data.legs.left);
  }
  if (!(scale > 0)) throw new Error(`${cc.jsonName}: no unitScale and the leg bones were not found`);

  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  // the clip world turned so the floor normal is +Y, moved so the floor is at y = 0
  const world = new THREE.Group();
  const n = new THREE.Vector3().fromArray(data.floor.normal).normalize();
  world.quaternion.setFromUnitVectors(n, new THREE.Vector3(0, 1, 0));
  world.position.set(0, data.floor.d, 0); // a point p with n.p + d = 0 lands at y = 0
  scene.add(world);
  for (const t of takes) {
    t.bvh.holder.scale.setScalar(scale);
    world.add(t.bvh.holder);
    t.mixer = new THREE.AnimationMixer(t.bvh.root);
    t.action = playOnce(t.mixer, t.bvh.clip);
    t.overlay = new SkeletonOverlay(t.bvh.bones, 6);
    scene.add(t.overlay.group);
    const byName = new Map(t.bvh.bones.map((b) => [b.name, b]));
    t.feet = {};
    // the legs' joints (thighs down, toes' children included) for --focus legs
    t.legBones = new Set();
    const addDown = (b) => {
      if (!b || t.legBones.has(b)) return;
      t.legBones.add(b);
      for (const c of b.children) if (c.isBone) addDown(c);
    };
    for (const foot of feet) addDown(byName.get(data.legs[foot].upperLeg));
    for (const foot of feet) {
      const leg = data.legs[foot];
      const ankle = byName.get(leg.foot);
      if (!ankle) throw new Error(`${t.name}: no joint '${leg.foot}' (the ${foot} foot in ${cc.jsonName})`);
      t.feet[foot] = { ankle, toe: leg.toes ? (byName.get(leg.toes) ?? null) : null, path: new Float32Array(3 * F) };
    }
    if (Math.abs(t.bvh.clip.duration - (F - 1) * ft) > 0.5 * ft)
      await warn(`${t.name}: ${fmt(t.bvh.clip.duration, 3)} s long, cleanup.json says ${F} frames of ${ft} s`);
  }
  const v = new THREE.Vector3();
  // every frame's ankle positions (scene coordinates) of both takes
  for (const t of takes) {
    for (let f = 0; f < F; f++) {
      poseAt(t.mixer, t.action, f * ft);
      scene.updateMatrixWorld(true);
      for (const foot of feet) v.setFromMatrixPosition(t.feet[foot].ankle.matrixWorld).toArray(t.feet[foot].path, 3 * f);
    }
  }
  const hdist = (p, i, q, j) => Math.hypot(p[i] - q[j], p[i + 2] - q[j + 2]);
  // slide in contact measured on the drawn skeletons (same definition as cleanup.json's slideTotal)
  const measured = {};
  for (const t of takes) {
    measured[t.key] = {};
    for (const foot of feet) {
      const c = data.feet[foot].contact;
      const p = t.feet[foot].path;
      let s = 0;
      for (let f = 1; f < F; f++) if (c[f] && c[f - 1]) s += hdist(p, 3 * f, p, 3 * f - 3);
      measured[t.key][foot] = s;
    }
  }
  // anchors in scene coordinates: the ankle target and its spot on the segment's ground level
  for (const foot of feet)
    for (const s of data.feet[foot].segments) {
      const a = new THREE.Vector3().fromArray(s.anchor);
      s.top = world.localToWorld(a.clone());
      s.spot = world.localToWorld(a.clone().addScaledVector(n, -(s.ankleHeight - s.ground)));
    }

  // frames: given, else the last frame of contact segments spread over the take
  let frames = cfg.frames;
  if (!frames) {
    const ends = feet
      .flatMap((foot) => data.feet[foot].segments.map((s) => s.end - 1))
      .sort((a, b) => a - b);
    if (ends.length === 0) frames = [0, Math.floor((F - 1) / 2), F - 1];
    else {
      const k = Math.min(cfg.count, ends.length);
      frames = Array.from({ length: k }, (_, i) => ends[k <= 1 ? 0 : Math.round((i * (ends.length - 1)) / (k - 1))]);
    }
    frames = [...new Set(frames)];
  }
  const past = frames.filter((f) => f >= F);
  if (past.length) await warn(`frames ${past.join(',')} are past the last frame ${F - 1}: showing the last pose`);

  // marks, rebuilt per tile and half
  const marks = new THREE.Group();
  marks.renderOrder = 1001;
  scene.add(marks);
  const over = { depthTest: false, depthWrite: false, transparent: true };
  const clearMarks = () => {
    for (const o of [...marks.children]) {
      marks.remove(o);
      o.geometry.dispose();
      o.material.dispose();
    }
  };
  const addPoints = (positions, color, size) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
    const o = new THREE.Points(g, new THREE.PointsMaterial({ ...over, color, size, sizeAttenuation: false }));
    o.renderOrder = 1002;
    o.frustumCulled = false;
    marks.add(o);
  };
  const addLine = (positions, color, strip = true) => {
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
    const m = new THREE.LineBasicMaterial({ ...over, color });
    const o = strip ? new THREE.Line(g, m) : new THREE.LineSegments(g, m);
    o.renderOrder = 1002;
    o.frustumCulled = false;
    marks.add(o);
  };
  const segmentAt = (foot, f) => data.feet[foot].segments.find((s) => s.start <= f && f < s.end) ?? null;
  const sideColor = { left: COLOR_LEFT, right: COLOR_RIGHT };

  /** Marks of one take at frame f; returns the label lines of its feet. */
  const drawMarks = (t, f) => {
    clearMarks();
    const lines = [];
    for (const foot of feet) {
      const p = t.feet[foot].path;
      const contact = data.feet[foot].contact[f] === 1;
      const s = segmentAt(foot, f);
      const tag = foot === 'left' ? 'L' : 'R';
      if (s) {
        // ring on the ground level, line up to the ankle target
        const ring = [];
        const r = 0.05 * data.scale;
        for (let i = 0; i < 32; i++) {
          const a0 = (i / 32) * 2 * Math.PI;
          const a1 = ((i + 1) / 32) * 2 * Math.PI;
          ring.push(s.spot.x + r * Math.cos(a0), s.spot.y + 0.002, s.spot.z + r * Math.sin(a0));
          ring.push(s.spot.x + r * Math.cos(a1), s.spot.y + 0.002, s.spot.z + r * Math.sin(a1));
        }
        ring.push(s.spot.x, s.spot.y, s.spot.z, s.top.x, s.top.y, s.top.z);
        addLine(ring, sideColor[foot], false);
        // the ankle's path since the segment's start, dropped onto the ring's level
        const trail = [];
        for (let k = s.start; k <= f; k++) trail.push(p[3 * k], s.spot.y + 0.002, p[3 * k + 2]);
        if (trail.length >= 6) addLine(trail, 0xffffff);
        addPoints(trail, 0xffffff, 3);
        let len = 0;
        for (let k = s.start + 1; k <= f; k++) len += hdist(p, 3 * k, p, 3 * k - 3);
        const off = Math.hypot(p[3 * f] - s.top.x, p[3 * f + 2] - s.top.z);
        lines.push(
          `${tag} contact ${s.start}-${s.end - 1}: ankle ${fmt(100 * off, 1)} cm from anchor, path ${fmt(100 * len, 1)} cm`,
        );
      } else {
        const prob = data.feet[foot].probability[f];
        lines.push(`${tag} free (P ${fmt(prob, 2)})`);
      }
      addPoints([p[3 * f], p[3 * f + 1], p[3 * f + 2]], contact ? COLOR_CONTACT : COLOR_FREE, 12);
    }
    return lines;
  };

  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (e) {
    throw new Error(`WebGL is not available in this Chromium (${e.message})`);
  }
  renderer.setPixelRatio(1);
  renderer.setSize(cfg.width, cfg.height);
  const camera = new THREE.PerspectiveCamera(35, cfg.width / cfg.height, 0.01, 500);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x555555, 2.2));

  const poseBoth = (f) => {
    for (const t of takes) poseAt(t.mixer, t.action, Math.min(f, F - 1) * ft);
    scene.updateMatrixWorld(true);
    for (const t of takes) t.overlay.update();
  };
  // pass 1: boxes (both figures and the active anchors)
  const samples = [];
  const union = new THREE.Box3();
  for (const frame of frames) {
    poseBoth(frame);
    const box = new THREE.Box3();
    for (const t of takes) {
      if (cc.focus === 'legs')
        for (const b of t.legBones) box.expandByPoint(v.setFromMatrixPosition(b.matrixWorld));
      else box.union(t.overlay.box(new THREE.Box3()));
    }
    for (const foot of feet) {
      const s = segmentAt(foot, Math.min(frame, F - 1));
      if (s) box.expandByPoint(s.spot);
    }
    box.expandByScalar(0.05);
    union.union(box);
    samples.push({ frame, box });
  }
  const ext = Math.ceil(
    Math.max(Math.abs(union.min.x), Math.abs(union.max.x), Math.abs(union.min.z), Math.abs(union.max.z)) + 1,
  );
  // 10 cm cells when framing the legs, 50 cm for the whole body
  scene.add(new THREE.GridHelper(2 * ext, (cc.focus === 'legs' ? 20 : 4) * ext, 0x9aa3ad, 0x59606a));
  const floor = new THREE.Mesh(
    new THREE.PlaneGeometry(2 * ext, 2 * ext).rotateX(-Math.PI / 2),
    new THREE.MeshBasicMaterial({ color: 0x20242a, transparent: true, opacity: 0.45, depthWrite: false }),
  );
  floor.renderOrder = 10;
  scene.add(floor);

  const az = THREE.MathUtils.degToRad(cfg.azimuth);
  const el = THREE.MathUtils.degToRad(cfg.elevation);
  const dir = new THREE.Vector3(Math.sin(az) * Math.cos(el), Math.sin(el), Math.cos(az) * Math.cos(el));
  const unionCentre = union.getCenter(new THREE.Vector3());
  let dist = 0;
  for (const s of samples) {
    const c = cfg.camera === 'fixed' ? unionCentre.clone() : s.box.getCenter(new THREE.Vector3());
    c.y = unionCentre.y;
    s.centre = c;
    const b = (cfg.camera === 'fixed' ? union : s.box).clone().union(new THREE.Box3(c, c));
    b.min.y = Math.min(b.min.y, union.min.y);
    b.max.y = Math.max(b.max.y, union.max.y);
    dist = Math.max(dist, fitDistance(b, c, dir, camera));
  }

  // pass 2: the sheet; a tile is two halves (original | cleaned)
  const tileW = 2 * cfg.width;
  const cols =
    cfg.cols ?? Math.max(1, Math.min(samples.length, Math.round(Math.sqrt((samples.length * cfg.height) / tileW))));
  const rows = Math.ceil(samples.length / cols);
  const sheet = document.createElement('canvas');
  const g = sheet.getContext('2d');
  sheet.width = cols * tileW;
  const m = data.metrics;
  const figures = feet
    .map(
      (foot) =>
        `${foot}: slide in contact ${fmt(100 * m.before[foot].slideTotal, 1)} -> ${fmt(100 * m.after[foot].slideTotal, 1)} cm ` +
        `(measured on the drawn skeletons ${fmt(100 * measured.before[foot], 1)} -> ${fmt(100 * measured.after[foot], 1)}), ` +
        `skating ${fmt(m.before[foot].skatingRatio, 3)} -> ${fmt(m.after[foot].skatingRatio, 3)}, knee pops ${data.ik[foot].kneePops}`,
    )
    .join('; ');
  const head = wrapLines(
    g,
    [
      {
        font: 'bold 13px "DejaVu Sans", sans-serif',
        text: `${cc.beforeName} (left half) vs ${cc.afterName} (right half): ${F} frames @ ${fmt(1 / ft, 3)} fps, contacts: ${data.model}, ${data.framesChanged} frames changed, ${data.limits.length} IK-limit ranges`,
      },
      { font: '11px "DejaVu Sans", sans-serif', text: `${figures}.` },
      {
        font: '11px "DejaVu Sans", sans-serif',
        text: `Feet: dot at each ankle, green = in contact at this frame (cleanup.json), grey = free; ring = the segment's anchor on its ground level, line up to the ankle target; white = the ankle's path since the segment's first frame, on the ground (the slide). Bones: left orange, right cyan. File units x ${scale}. Floor = grid (y = 0, ${cc.focus === 'legs' ? '10' : '50'} cm cells). Camera ${cfg.camera}, ${cfg.azimuth}° from +Z toward +X, ${cfg.elevation}° up.`,
      },
    ],
    sheet.width,
  );
  const header = 10 + head.length * 17;
  sheet.height = header + rows * cfg.height;
  g.fillStyle = '#15181c';
  g.fillRect(0, 0, sheet.width, sheet.height);
  g.fillStyle = '#e8e8e8';
  head.forEach(({ font, text }, i) => {
    g.font = font;
    g.fillText(text, 8, 18 + i * 17);
  });
  const label = (text, x, y) => {
    const w = g.measureText(text).width;
    g.fillStyle = 'rgba(0,0,0,0.6)';
    g.fillRect(x - 3, y - 12, w + 6, 16);
    g.fillStyle = '#ffffff';
    g.fillText(text, x, y);
  };

  samples.forEach((s, i) => {
    const f = Math.min(s.frame, F - 1);
    poseBoth(f);
    camera.position.copy(s.centre).addScaledVector(dir, dist);
    camera.up.set(0, 1, 0);
    camera.lookAt(s.centre);
    camera.updateMatrixWorld(true);
    takes.forEach((t, h) => {
      for (const o of takes) {
        o.bvh.holder.visible = o === t;
        o.overlay.group.visible = o === t;
      }
      const lines = drawMarks(t, f);
      renderer.render(scene, camera);
      const x0 = (i % cols) * tileW + h * cfg.width;
      const y0 = header + Math.floor(i / cols) * cfg.height;
      g.drawImage(renderer.domElement, x0, y0);
      g.strokeStyle = h === 0 ? '#15181c' : '#5a6270';
      g.strokeRect(x0 + 0.5, y0 + 0.5, cfg.width - 1, cfg.height - 1);
      g.font = 'bold 13px "DejaVu Sans", sans-serif';
      label(`${t.title}  frame ${s.frame}  t=${fmt(f * ft, 3)} s`, x0 + 6, y0 + 17);
      g.font = '11px "DejaVu Sans", sans-serif';
      lines.forEach((l, k) => label(l, x0 + 6, y0 + 34 + 16 * k));
    });
  });
  clearMarks();
  await post(
    '/measured',
    JSON.stringify(
      Object.fromEntries(
        feet.map((foot) => [
          foot,
          {
            json: [m.before[foot].slideTotal, m.after[foot].slideTotal],
            drawn: [measured.before[foot], measured.after[foot]],
          },
        ]),
      ),
    ),
    'application/json',
  );
  const blob = await new Promise((resolve) => sheet.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('could not encode the PNG');
  await post('/result', await blob.arrayBuffer(), 'image/png');
}
