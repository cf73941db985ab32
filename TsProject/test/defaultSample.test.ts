/**
 * The embedded default sample (assets/default, made by tools/make-default-sample.mjs): it regenerates
 * byte for byte, the avatar is valid glTF with an A-pose and a correct skin, and the walk is a BVH whose
 * feet stay planted during stance (checked by forward kinematics through core, not by the generator).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mat4, vec3 } from 'gl-matrix';
import { DEG2RAD, forwardKinematics, quat64, readQuat, restWorld, vec64 } from '../src/core';
import { parseBvh } from '../src/io/bvh';

const ASSETS = path.resolve(__dirname, '../assets/default');
const SCRIPT = path.resolve(__dirname, '../../tools/make-default-sample.mjs');
const FILES = ['default-walk.bvh', 'default-avatar.glb', 'README.md'];
const MOTIVE_BONES = [
  'Hip',
  'Ab',
  'Chest',
  'Neck',
  'Head',
  'LShoulder',
  'LUArm',
  'LFArm',
  'LHand',
  'RShoulder',
  'RUArm',
  'RFArm',
  'RHand',
  'LThigh',
  'LShin',
  'LFoot',
  'LToe',
  'RThigh',
  'RShin',
  'RFoot',
  'RToe',
];

const WALK_TEXT = fs.readFileSync(path.join(ASSETS, 'default-walk.bvh'), 'utf8');
const WALK = parseBvh(WALK_TEXT, { fileName: 'default-walk.bvh' });

/**
 * World positions (metres) of every joint and End Site at every frame, by core's FK on the parsed clip.
 * Keys: joint names, and `<joint>_end` for End Sites.
 */
function worldPositions(): Map<string, number[]>[] {
  const { clip, layout, unitScale } = WALK;
  const sk = clip.skeleton;
  const n = sk.boneCount;
  const outRot = new Float64Array(4 * n);
  const outPos = new Float64Array(3 * n);
  const q = quat64();
  const v = vec64();
  const frames: Map<string, number[]>[] = [];
  for (let f = 0; f < clip.frameCount; f++) {
    const rot = clip.rotations.subarray(4 * n * f, 4 * n * (f + 1));
    const pos = clip.translations.subarray(3 * n * f, 3 * n * (f + 1));
    forwardKinematics(sk, rot, pos, outRot, outPos);
    const m = new Map<string, number[]>();
    for (let b = 0; b < n; b++) {
      const p = Array.from(outPos.subarray(3 * b, 3 * b + 3));
      m.set(sk.names[b], p);
      const end = layout.joints[b].endSite;
      if (end) {
        readQuat(q, outRot, b);
        vec3.transformQuat(v, vec3.scale(v, end, unitScale), q);
        m.set(`${sk.names[b]}_end`, [p[0] + v[0], p[1] + v[1], p[2] + v[2]]);
      }
    }
    frames.push(m);
  }
  return frames;
}

interface GltfJson {
  nodes: { name: string; children?: number[]; translation?: number[]; rotation?: number[] }[];
  skins: { joints: number[]; inverseBindMatrices: number }[];
  meshes: { primitives: { attributes: Record<string, number> }[] }[];
  accessors: {
    bufferView: number;
    byteOffset?: number;
    count: number;
    type: string;
    min: number[];
    max: number[];
  }[];
  bufferViews: { byteOffset?: number; byteLength: number }[];
  animations?: unknown[];
}

/**
 * The JSON and float accessors of a GLB (glTF 2.0 spec, "Binary glTF Layout": 12-byte header, then
 * chunks of length + type + data; JSON first, then BIN). Read here directly: enough for the checks.
 */
function readGlb(bytes: Uint8Array) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(dv.getUint32(0, true)).toBe(0x46546c67); // 'glTF'
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLen))) as GltfJson;
  const bin = 20 + jsonLen + 8;
  const size: Record<string, number> = { SCALAR: 1, VEC3: 3, VEC4: 4, MAT4: 16 };
  const accessor = (k: number): Float32Array => {
    const a = json.accessors[k];
    const offset = bin + (json.bufferViews[a.bufferView].byteOffset ?? 0) + (a.byteOffset ?? 0);
    return new Float32Array(bytes.slice(offset, offset + 4 * a.count * size[a.type]).buffer);
  };
  return { json, accessor };
}

describe('default sample: regeneration', () => {
  it('regenerates byte-identical files with --out', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-default-'));
    try {
      execFileSync(process.execPath, [SCRIPT, '--out', dir], { stdio: 'pipe' });
      for (const f of FILES) {
        const fresh = fs.readFileSync(path.join(dir, f));
        const committed = fs.readFileSync(path.join(ASSETS, f));
        expect({ file: f, same: fresh.equals(committed) }).toEqual({ file: f, same: true });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('default sample: avatar', () => {
  const bytes = new Uint8Array(fs.readFileSync(path.join(ASSETS, 'default-avatar.glb')));

  it('passes the Khronos glTF validator with no errors or warnings', async () => {
    const validator = require('gltf-validator') as {
      validateBytes(b: Uint8Array): Promise<{ issues: { numErrors: number; numWarnings: number } }>;
    };
    const report = await validator.validateBytes(bytes);
    expect(report.issues.numErrors).toBe(0);
    expect(report.issues.numWarnings).toBe(0);
  });

  it('is a ~1.6 m A-posed humanoid whose skin binds at the rest pose', () => {
    const gltf = readGlb(bytes);
    const names = gltf.json.nodes.map((nd) => nd.name);
    const node = (name: string) => {
      const k = names.indexOf(name);
      if (k < 0) throw new Error(`no node ${name}`);
      return k;
    };
    const worldM = (k: number): mat4 => {
      const nd = gltf.json.nodes[k];
      const local = mat4.fromRotationTranslation(
        mat4.create(),
        nd.rotation ?? [0, 0, 0, 1],
        nd.translation ?? [0, 0, 0],
      );
      const parent = gltf.json.nodes.findIndex((p) => p.children?.includes(k));
      return parent < 0 ? local : mat4.multiply(mat4.create(), worldM(parent), local);
    };
    const wpos = (name: string) => mat4.getTranslation(vec3.create(), worldM(node(name)));
    expect(gltf.json.skins.length).toBe(1);
    const skin = gltf.json.skins[0];
    const sideBones = ['Shoulder', 'Arm', 'ForeArm', 'Hand', 'UpLeg', 'Leg', 'Foot', 'ToeBase'];
    const fingers = ['Thumb1', 'Thumb2', 'Thumb3', 'Index1', 'Index2', 'Index3'].map((f) => `Hand${f}`);
    const want = ['Hips', 'Spine', 'Chest', 'UpperChest', 'Neck', 'Head'];
    for (const side of ['Left', 'Right']) for (const b of [...sideBones, ...fingers]) want.push(side + b);
    expect(skin.joints.map((j) => names[j]).sort()).toEqual(want.map((n) => `kind:${n}`).sort());
    expect(names[gltf.json.nodes.findIndex((p) => p.children?.includes(node('kind:Hips')))]).toBe('Armature');
    expect(gltf.json.animations ?? []).toEqual([]);
    // inverse bind matrix x rest world matrix = identity, for every joint
    const ibm = gltf.accessor(skin.inverseBindMatrices);
    skin.joints.forEach((j, k) => {
      const prod = mat4.multiply(mat4.create(), ibm.slice(16 * k, 16 * k + 16) as mat4, worldM(j));
      expect(mat4.equals(prod, mat4.create())).toBe(true);
    });
    // height from the mesh bounds (the skinned mesh's node has no transform)
    const posAccessor = gltf.json.accessors[gltf.json.meshes[0].primitives[0].attributes.POSITION];
    const hi = posAccessor.max;
    expect(Math.abs(hi[1] - 1.6)).toBeLessThan(0.02);
    expect(Math.abs(posAccessor.min[1])).toBeLessThan(1e-6);
    // A-pose: the upper arms point 40 degrees below horizontal, out to the side (+X left, -X right)
    for (const [side, s] of [
      ['Left', 1],
      ['Right', -1],
    ] as const) {
      const d = vec3.subtract(vec3.create(), wpos(`kind:${side}ForeArm`), wpos(`kind:${side}Arm`));
      expect(Math.sign(d[0])).toBe(s);
      const below = Math.atan2(-d[1], Math.hypot(d[0], d[2])) / DEG2RAD;
      expect(Math.abs(below - 40)).toBeLessThan(0.5);
    }
    // proportions differ from the walk's skeleton: longer legs, shorter arms (fractions of height)
    const height = hi[1];
    const leg = wpos('kind:LeftUpLeg')[1] - wpos('kind:LeftFoot')[1];
    const arm =
      vec3.distance(wpos('kind:LeftArm'), wpos('kind:LeftForeArm')) +
      vec3.distance(wpos('kind:LeftForeArm'), wpos('kind:LeftHand'));
    const off = (name: string) => {
      const b = WALK.clip.skeleton.names.indexOf(name);
      return Math.hypot(...WALK.clip.skeleton.restTranslations.slice(3 * b, 3 * b + 3));
    };
    const srcHeight = 1.75;
    expect(leg / height).toBeGreaterThan((off('LShin') + off('LFoot')) / srcHeight + 0.02);
    expect(arm / height).toBeLessThan((off('LFArm') + off('LHand')) / srcHeight - 0.02);
  });
});

describe('default sample: walk', () => {
  const world = worldPositions();
  const sk = WALK.clip.skeleton;
  const at = (f: number, name: string) => {
    const p = world[f].get(name);
    if (!p) throw new Error(`no joint ${name}`);
    return p;
  };
  const fps = 30;

  it('is 121 frames at Frame Time 0.0333333 in centimetres on the Motive skeleton, ZXY joints', () => {
    expect(WALK.clip.frameCount).toBe(121);
    expect(WALK.clip.frameTime).toBe(0.0333333);
    expect(WALK_TEXT).toMatch(/\nFrame Time: 0\.0333333\n/);
    expect(WALK.unitScale).toBe(0.01);
    expect(sk.names).toEqual(MOTIVE_BONES);
    const joints = WALK.layout.joints;
    expect(joints[0].channels).toEqual([
      'Xposition',
      'Yposition',
      'Zposition',
      'Zrotation',
      'Xrotation',
      'Yrotation',
    ]);
    for (const j of joints.slice(1)) expect(j.channels).toEqual(['Zrotation', 'Xrotation', 'Yrotation']);
    expect(joints.filter((j) => j.endSite).map((j) => j.name)).toEqual([
      'Head',
      'LHand',
      'RHand',
      'LToe',
      'RToe',
    ]);
    // T-pose rest: arms along +-X, about 1.75 m from the toe joints (on the floor) to the head top
    const rest = restWorld(sk).positions;
    const head = joints[sk.names.indexOf('Head')];
    const y = (name: string) => rest[3 * sk.names.indexOf(name) + 1];
    expect(y('Head') + head.endSite![1] * WALK.unitScale - y('LToe')).toBeCloseTo(1.75, 2);
    expect(rest[3 * sk.names.indexOf('LHand')]).toBeGreaterThan(0.6);
    expect(rest[3 * sk.names.indexOf('RHand')]).toBeLessThan(-0.6);
  });

  it('walks forward along +Z at about 1.2 m/s and loops after 4 strides', () => {
    const hip0 = at(0, 'Hip');
    const hip1 = at(120, 'Hip');
    expect(Math.abs((hip1[2] - hip0[2]) / 4 - 1.2)).toBeLessThan(0.02);
    // every joint of the last frame is the first frame moved 4.8 m forward
    for (const name of world[0].keys()) {
      const a = at(0, name);
      const b = at(120, name);
      expect(Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2] - 4.8)).toBeLessThan(1e-3);
    }
    // forward speed is always positive and near 1.2 m/s (a small ripple, no stops)
    for (let f = 1; f <= 120; f++) {
      const v = (at(f, 'Hip')[2] - at(f - 1, 'Hip')[2]) * fps;
      expect(v).toBeGreaterThan(0.9);
      expect(v).toBeLessThan(1.5);
    }
  });

  // Gait schedule (README): 1 s strides, left heel strike at t = 0, 1, 2, 3 s, right half a cycle later.
  // From foot flat (10% of the cycle) to toe off (60%) the ball of the foot (toe joint) is planted, and
  // from foot flat to heel rise (31%) the ankle is too.
  const legs = [
    ['L', 0],
    ['R', 0.5],
  ] as const;
  const framesIn = (t0: number, t1: number) => {
    const out: number[] = [];
    for (let f = Math.ceil(t0 * fps - 1e-9); f <= Math.floor(t1 * fps + 1e-9); f++)
      if (f >= 0 && f <= 120) out.push(f);
    return out;
  };
  const planted = (name: string, frames: number[]) => {
    const first = at(frames[0], name);
    let drift = 0;
    let height = 0;
    for (const f of frames) {
      const p = at(f, name);
      drift = Math.max(drift, Math.hypot(p[0] - first[0], p[2] - first[2]));
      height = Math.max(height, Math.abs(p[1]));
    }
    return { drift, height };
  };

  it('keeps the stance foot planted: under 1 cm drift and within 1 cm of the floor', () => {
    let windows = 0;
    for (const [side, lag] of legs) {
      for (let k = -1; k < 4; k++) {
        const ball = framesIn(k + lag + 0.1, k + lag + 0.6);
        if (ball.length < 3) continue;
        windows++;
        const toe = planted(`${side}Toe`, ball);
        expect({ side, k, ...toe, ok: toe.drift < 0.01 && toe.height < 0.01 }).toMatchObject({ ok: true });
        const flat = framesIn(k + lag + 0.1, k + lag + 0.31);
        if (flat.length < 2) continue;
        const ankle = planted(`${side}Foot`, flat);
        expect(ankle.drift).toBeLessThan(0.01);
      }
    }
    expect(windows).toBeGreaterThanOrEqual(8);
  });

  it('swings the foot one stride forward above the floor between stances', () => {
    for (const [side, lag] of legs) {
      for (let k = 0; k + lag + 1.6 <= 4; k++) {
        const a = at(Math.round((k + lag + 0.6) * fps), `${side}Toe`);
        const b = at(Math.round((k + lag + 1.6) * fps), `${side}Toe`);
        expect(Math.abs(b[2] - a[2] - 1.2)).toBeLessThan(0.01);
        const mid = at(Math.round((k + lag + 0.8) * fps), `${side}Toe`);
        expect(mid[1]).toBeGreaterThan(0.03);
      }
    }
    // nothing of the feet goes through the floor
    for (let f = 0; f <= 120; f++) {
      for (const name of ['LToe', 'LToe_end', 'RToe', 'RToe_end', 'LFoot', 'RFoot']) {
        expect(at(f, name)[1]).toBeGreaterThan(-0.005);
      }
    }
  });

  it('swings the arms opposite to the legs and keeps the head level', () => {
    // at left heel strike (t = 1 s) the left foot is ahead and the left hand behind the right hand
    const f = 30;
    expect(at(f, 'LToe')[2]).toBeGreaterThan(at(f, 'RToe')[2] + 0.4);
    expect(at(f, 'LHand')[2]).toBeLessThan(at(f, 'RHand')[2] - 0.1);
    for (let g = 0; g <= 120; g++) {
      const h = at(g, 'Head');
      const top = at(g, 'Head_end');
      expect(Math.hypot(top[0] - h[0], top[2] - h[2])).toBeLessThan(0.005); // head upright
    }
  });
});
