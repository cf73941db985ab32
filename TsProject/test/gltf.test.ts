import * as fs from 'node:fs';
import { Document, WebIO } from '@gltf-transform/core';
import fc from 'fast-check';
import { quat } from 'gl-matrix';
import {
  angleBetween,
  type Clip,
  createClip,
  createSkeleton,
  forwardKinematics,
  HUMAN_BONE_NAMES,
  HumanBodyBones,
  type HumanBoneName,
  restWorld,
  type Skeleton,
} from '../src/core';
import {
  type Avatar,
  GltfError,
  normalizeSkinWeights,
  readAvatar,
  readGltfClip,
  vrmBoneToHumanBone,
  writeRetargetedGlb,
} from '../src/io/gltf';
import type { HumanoidOverride } from '../src/io/humanoidMap';
import { AVATARS, dataPath, describeWithData } from './helpers/data';

// ---------------------------------------------------------------------------------------------
// Helpers.

const validator = require('gltf-validator') as {
  validateBytes(
    b: Uint8Array,
    o?: { maxIssues?: number },
  ): Promise<{
    issues: {
      numErrors: number;
      messages: { code: string; severity: number; message: string; pointer?: string }[];
    };
  }>;
};

const q = (x: number, y: number, z: number, w: number) => Float64Array.of(x, y, z, w);
const axisAngle = (ax: [number, number, number], deg: number) => {
  const out = new Float64Array(4);
  quat.setAxisAngle(out, ax, (deg * Math.PI) / 180);
  return out;
};

/** GLB JSON chunk as an object, and a GLB with the JSON replaced (BIN chunk kept). */
function glbJson(bytes: Uint8Array): Record<string, unknown> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len)));
}

function withGlbJson(bytes: Uint8Array, edit: (json: Record<string, unknown>) => void): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLen = view.getUint32(12, true);
  const json = glbJson(bytes);
  edit(json);
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const jsonBytes = new TextEncoder().encode(text);
  const rest = bytes.subarray(20 + jsonLen);
  const out = new Uint8Array(20 + jsonBytes.length + rest.length);
  const ov = new DataView(out.buffer);
  ov.setUint32(0, 0x46546c67, true);
  ov.setUint32(4, 2, true);
  ov.setUint32(8, out.length, true);
  ov.setUint32(12, jsonBytes.length, true);
  ov.setUint32(16, 0x4e4f534a, true);
  out.set(jsonBytes, 20);
  out.set(rest, 20 + jsonBytes.length);
  return out;
}

/** Override naming every humanoid bone of a skeleton (null where unmapped): re-reading a written file. */
function overrideFrom(skeleton: Skeleton): HumanoidOverride {
  const o: HumanoidOverride = {};
  HUMAN_BONE_NAMES.forEach((h, i) => {
    o[h] = skeleton.humanoid[i] >= 0 ? skeleton.names[skeleton.humanoid[i]] : null;
  });
  return o;
}

function maxRotationError(a: Clip, b: Clip): number {
  let worst = 0;
  for (let k = 0; k < a.rotations.length / 4; k++) {
    worst = Math.max(
      worst,
      angleBetween(a.rotations.subarray(4 * k, 4 * k + 4), b.rotations.subarray(4 * k, 4 * k + 4)),
    );
  }
  return worst;
}

function maxTranslationError(a: Clip, b: Clip): number {
  let worst = 0;
  for (let k = 0; k < a.translations.length; k++)
    worst = Math.max(worst, Math.abs(a.translations[k] - b.translations[k]));
  return worst;
}

// ---------------------------------------------------------------------------------------------
// A synthetic avatar built with glTF Transform: known rest pose and animations.
//
// Armature (scale 0.01, 180 degrees about Y, at x = 0.5 m) > Hips (0, 100, 0) cm > Spine > [non-joint
// node also named "Spine"] > Chest (unnamed) > Head, arms; Hips > legs. Units in the file: cm.

const SYN_MAP: HumanoidOverride = {
  Hips: 'Hips',
  Spine: 'Spine',
  Head: 'Head',
  LeftUpperArm: 'LeftArm',
  LeftLowerArm: 'LeftForeArm',
  LeftHand: 'LeftHand',
  RightUpperArm: 'RightArm',
  RightLowerArm: 'RightForeArm',
  RightHand: 'RightHand',
  LeftUpperLeg: 'LeftUpLeg',
  LeftLowerLeg: 'LeftLeg',
  LeftFoot: 'LeftFoot',
  RightUpperLeg: 'RightUpLeg',
  RightLowerLeg: 'RightLeg',
  RightFoot: 'RightFoot',
};

interface SynOptions {
  armatureScale?: [number, number, number];
  skin?: boolean;
  edit?: (doc: Document, nodes: Record<string, import('@gltf-transform/core').Node>) => void;
}

const Q45Z = axisAngle([0, 0, 1], 45);
const Q90Z = axisAngle([0, 0, 1], 90);
const STEP_KEYS = [axisAngle([1, 0, 0], 10), axisAngle([1, 0, 0], 20), axisAngle([0, 1, 0], 30)];
// CUBICSPLINE keys on Spine translation (cm): times 0, 0.25, 1 (uneven), [in-tangent, value, out-tangent].
const CUBIC_TIMES = [0, 0.25, 1];
const CUBIC_VALUES = [
  [0, 0, 0],
  [0, 10, 0],
  [4, 0, 0],
  [2, 0, 0],
  [0, 12, 0],
  [-8, 0, 0],
  [0, 0, 0],
  [0, 10, 0],
  [0, 0, 0],
];

async function syntheticGlb(options: SynOptions = {}): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const scene = doc.createScene('Scene');
  const nodes: Record<string, import('@gltf-transform/core').Node> = {};
  const armature = doc
    .createNode('Armature')
    .setScale(options.armatureScale ?? [0.01, 0.01, 0.01])
    .setRotation([0, 1, 0, 0])
    .setTranslation([0.5, 0, 0]);
  scene.addChild(armature);
  const add = (name: string, parent: import('@gltf-transform/core').Node, t: [number, number, number]) => {
    const node = doc.createNode(name).setTranslation(t);
    parent.addChild(node);
    nodes[name] = node;
    return node;
  };
  const hips = add('Hips', armature, [0, 100, 0]);
  const spine = add('Spine', hips, [0, 10, 0]);
  const between = doc.createNode('Spine').setTranslation([0, 5, 0]); // non-joint, duplicate name
  spine.addChild(between);
  nodes.between = between;
  const chest = add('', between, [0, 5, 0]);
  nodes.chest = chest;
  add('Head', chest, [0, 30, 0]);
  for (const [side, x] of [
    ['Left', 1],
    ['Right', -1],
  ] as const) {
    const arm = add(`${side}Arm`, chest, [15 * x, 25, 0]);
    const fore = add(`${side}ForeArm`, arm, [25 * x, 0, 0]);
    add(`${side}Hand`, fore, [25 * x, 0, 0]);
    const up = add(`${side}UpLeg`, hips, [10 * x, -5, 0]);
    const leg = add(`${side}Leg`, up, [0, -45, 0]);
    add(`${side}Foot`, leg, [0, -45, 0]);
  }
  if (options.skin !== false) {
    const skin = doc.createSkin('skin');
    for (const [name, node] of Object.entries(nodes)) if (name !== 'between') skin.addJoint(node);
    const mesh = doc.createNode('Body');
    mesh.setSkin(skin);
    scene.addChild(mesh);
  }
  const acc = (name: string, type: 'SCALAR' | 'VEC3' | 'VEC4', values: number[]) =>
    doc.createAccessor(name).setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const channel = (
    anim: import('@gltf-transform/core').Animation,
    node: import('@gltf-transform/core').Node,
    path: 'translation' | 'rotation' | 'scale',
    times: number[],
    values: number[],
    interp: 'LINEAR' | 'STEP' | 'CUBICSPLINE' = 'LINEAR',
  ) => {
    const s = doc
      .createAnimationSampler()
      .setInput(acc('t', 'SCALAR', times))
      .setOutput(acc('v', path === 'rotation' ? 'VEC4' : 'VEC3', values))
      .setInterpolation(interp);
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(s));
  };
  const wave = doc.createAnimation('wave');
  channel(wave, nodes.LeftArm, 'rotation', [0, 0.5, 1], [0, 0, 0, 1, ...Q45Z, ...Q90Z]);
  channel(wave, nodes.Hips, 'translation', [0, 1], [0, 100, 0, 0, 100, 10]);
  channel(wave, nodes.Spine, 'scale', [0, 1], [1, 1, 1, 1, 2, 1]);
  const step = doc.createAnimation('step');
  channel(
    step,
    nodes.Head,
    'rotation',
    [0, 1, 2],
    STEP_KEYS.flatMap((k) => [...k]),
    'STEP',
  );
  const cubic = doc.createAnimation('cubic');
  channel(cubic, nodes.Spine, 'translation', CUBIC_TIMES, CUBIC_VALUES.flat(), 'CUBICSPLINE');
  const un1 = doc.createAnimation('');
  channel(un1, nodes.LeftLeg, 'rotation', [0, 1], [0, 0, 0, 1, ...axisAngle([1, 0, 0], 40)]);
  const un2 = doc.createAnimation('');
  channel(un2, nodes.RightLeg, 'rotation', [0, 1], [0, 0, 0, 1, ...axisAngle([1, 0, 0], -40)]);
  options.edit?.(doc, nodes);
  return new WebIO().writeBinary(doc);
}

async function syntheticAvatar(options: SynOptions = {}): Promise<Avatar> {
  return readAvatar(await syntheticGlb(options), { fileName: 'dir/synthetic.glb', mapOverride: SYN_MAP });
}

function bone(avatar: Avatar, name: string): number {
  const i = avatar.skeleton.names.indexOf(name);
  if (i < 0) throw new Error(`no bone ${name} in ${avatar.skeleton.names.join(', ')}`);
  return i;
}

function expectQuat(actual: ArrayLike<number>, want: ArrayLike<number>, tol = 1e-6) {
  expect(angleBetween(actual, want)).toBeLessThan(tol);
}

function expectVec(actual: ArrayLike<number>, want: number[], tol = 1e-6) {
  for (let k = 0; k < 3; k++) expect(Math.abs(actual[k] - want[k])).toBeLessThan(tol);
}

const rotAt = (c: Clip, f: number, b: number) =>
  c.rotations.subarray(4 * (f * c.skeleton.boneCount + b), 4 * (f * c.skeleton.boneCount + b) + 4);
const posAt = (c: Clip, f: number, b: number) =>
  c.translations.subarray(3 * (f * c.skeleton.boneCount + b), 3 * (f * c.skeleton.boneCount + b) + 3);

// ---------------------------------------------------------------------------------------------

describe('readAvatar on a synthetic glTF (known answers)', () => {
  let avatar: Avatar;
  beforeAll(async () => {
    avatar = await syntheticAvatar();
  });

  it('takes the skin joints plus the non-joint node between them, parents first, unique names', () => {
    const sk = avatar.skeleton;
    expect(avatar.name).toBe('synthetic');
    expect(avatar.format).toBe('gltf');
    expect(sk.boneCount).toBe(17); // 16 joints + the non-joint "Spine" between Spine and Chest
    for (let i = 0; i < sk.boneCount; i++) expect(sk.parents[i]).toBeLessThan(i);
    expect(new Set(sk.names).size).toBe(sk.boneCount);
    const nodes = avatar.document.getRoot().listNodes();
    const betweenNode = nodes.findIndex(
      (n, i) => n.getName() === 'Spine' && i !== avatar.nodeOfBone[bone(avatar, 'Spine')],
    );
    expect(sk.names).toContain(`Spine#${betweenNode}`);
    const chestNode = nodes.findIndex((n) => n.getName() === '');
    expect(sk.names).toContain(`node${chestNode}`);
    expect(sk.parents[bone(avatar, 'Head')]).toBe(bone(avatar, `node${chestNode}`));
    expect(sk.parents[bone(avatar, `node${chestNode}`)]).toBe(bone(avatar, `Spine#${betweenNode}`));
    expect(sk.names[0]).toBe('Hips');
    expect(sk.parents[0]).toBe(-1);
    for (let b = 0; b < sk.boneCount; b++) expect(avatar.boneOfNode[avatar.nodeOfBone[b]]).toBe(b);
  });

  it('folds the armature scale and rotation into the root and scales translations to metres', () => {
    const sk = avatar.skeleton;
    // Hips world = armature T + R180y (0.01 * (0, 100, 0))
    expectVec(sk.restTranslations.subarray(0, 3), [0.5, 1, 0]);
    expectQuat(sk.restRotations.subarray(0, 4), q(0, 1, 0, 0));
    expectVec(sk.restTranslations.subarray(3 * bone(avatar, 'Spine')), [0, 0.1, 0]);
    expectVec(sk.restTranslations.subarray(3 * bone(avatar, 'LeftArm')), [0.15, 0.25, 0]);
    const w = restWorld(sk);
    // Facing -Z after the 180-degree turn: the left hand is at world x = 0.5 - 0.65.
    expectVec(w.positions.subarray(3 * bone(avatar, 'LeftHand')), [0.5 - 0.65, 1 + 0.1 + 0.1 + 0.25, 0]);
    expectVec(w.positions.subarray(3 * bone(avatar, 'LeftFoot')), [0.5 - 0.1, 0.05, 0]);
    expect(avatar.parentScale[0]).toBeCloseTo(0.01, 12);
    expect(avatar.parentScale[bone(avatar, 'LeftHand')]).toBeCloseTo(0.01, 12);
  });

  it('fills the humanoid map (override applied) and lists the clips, unnamed animations as one', () => {
    expect(avatar.skeleton.humanoid[HumanBodyBones.LeftHand]).toBe(bone(avatar, 'LeftHand'));
    expect(avatar.mapping.humanoid[HumanBodyBones.Hips]).toBe(0);
    expect(avatar.clipNames).toEqual(['wave', 'step', 'cubic', 'animation']);
  });

  it('samples LINEAR keys (slerp) at the key times, in the skeleton frame', () => {
    const clip = readGltfClip(avatar, 'wave');
    expect(clip.name).toBe('wave');
    expect(clip.frameCount).toBe(3);
    expect(clip.frameTime).toBeCloseTo(0.5, 7);
    const arm = bone(avatar, 'LeftArm');
    expectQuat(rotAt(clip, 1, arm), Q45Z);
    expectQuat(rotAt(clip, 2, arm), Q90Z);
    // Hips translation (0, 100, 10) cm in the armature -> (0.5, 1, -0.1) m in the world.
    expectVec(posAt(clip, 2, 0), [0.5, 1, -0.1]);
    expectVec(posAt(clip, 1, 0), [0.5, 1, -0.05]);
    // frame 0 equals the rest pose exactly (float32)
    const sk = avatar.skeleton;
    for (let b = 0; b < sk.boneCount; b++) {
      expectQuat(rotAt(clip, 0, b), sk.restRotations.subarray(4 * b, 4 * b + 4), 1e-6);
      expectVec(posAt(clip, 0, b), Array.from(sk.restTranslations.subarray(3 * b, 3 * b + 3)), 1e-7);
    }
    expect(clip.warnings.some((w) => w.includes('scale') && w.includes('Spine'))).toBe(true);
  });

  it('holds STEP keys, also when resampled at another rate', () => {
    const head = bone(avatar, 'Head');
    const clip = readGltfClip(avatar, 'step');
    expect(clip.frameCount).toBe(3);
    for (let k = 0; k < 3; k++) expectQuat(rotAt(clip, k, head), STEP_KEYS[k]);
    const fast = readGltfClip(avatar, 'step', { fps: 4 });
    expect(fast.frameCount).toBe(9);
    expect(fast.frameTime).toBeCloseTo(0.25, 12);
    expectQuat(rotAt(fast, 3, head), STEP_KEYS[0]); // t = 0.75
    expectQuat(rotAt(fast, 4, head), STEP_KEYS[1]); // t = 1
    expectQuat(rotAt(fast, 7, head), STEP_KEYS[1]); // t = 1.75
  });

  it('evaluates CUBICSPLINE as the spec Hermite spline; uneven keys resample at 30 fps', () => {
    const clip = readGltfClip(avatar, 'cubic');
    expect(clip.frameCount).toBe(31);
    expect(clip.frameTime).toBeCloseTo(1 / 30, 12);
    const spine = bone(avatar, 'Spine');
    // t = 0.5 lies in [0.25, 1]: dt = 0.75, s = 1/3.
    const s = 1 / 3;
    const dt = 0.75;
    const h = [
      2 * s ** 3 - 3 * s ** 2 + 1,
      dt * (s ** 3 - 2 * s ** 2 + s),
      -2 * s ** 3 + 3 * s ** 2,
      dt * (s ** 3 - s ** 2),
    ];
    const v1 = CUBIC_VALUES[4];
    const b1 = CUBIC_VALUES[5];
    const a2 = CUBIC_VALUES[6];
    const v2 = CUBIC_VALUES[7];
    const cm = [0, 1, 2].map((c) => h[0] * v1[c] + h[1] * b1[c] + h[2] * v2[c] + h[3] * a2[c]);
    expectVec(
      posAt(clip, 15, spine),
      cm.map((x) => x * 0.01),
    );
    // at a key: the key value
    expectVec(posAt(clip, 0, spine), [0, 0.1, 0]);
    expectVec(posAt(clip, 30, spine), [0, 0.1, 0]);
    expect(clip.warnings.some((w) => w.includes('not evenly spaced'))).toBe(true);
  });

  it('merges the unnamed animations into one clip', () => {
    const clip = readGltfClip(avatar, 'animation');
    expect(clip.frameCount).toBe(2);
    expectQuat(rotAt(clip, 1, bone(avatar, 'LeftLeg')), axisAngle([1, 0, 0], 40));
    expectQuat(rotAt(clip, 1, bone(avatar, 'RightLeg')), axisAngle([1, 0, 0], -40));
    // bones without a channel keep their rest
    expectQuat(
      rotAt(clip, 1, bone(avatar, 'LeftArm')),
      avatar.skeleton.restRotations.subarray(4 * bone(avatar, 'LeftArm')),
    );
  });

  it('rejects an unknown clip, listing the names, and a bad fps', () => {
    expect(() => readGltfClip(avatar, 'dance')).toThrow(GltfError);
    expect(() => readGltfClip(avatar, 'dance')).toThrow(
      /dir\/synthetic\.glb: no clip named 'dance'; available: 'wave', 'step', 'cubic', 'animation'/,
    );
    expect(() => readGltfClip(avatar, 'wave', { fps: 0 })).toThrow(/fps 0/);
  });

  it('round-trips random clips through writeRetargetedGlb (property)', async () => {
    const sk = avatar.skeleton;
    const n = sk.boneCount;
    const unit = fc
      .tuple(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
      )
      .filter((v) => Math.hypot(...v) > 0.1);
    await fc.assert(
      fc.asyncProperty(
        fc.array(unit, { minLength: 3 * n, maxLength: 3 * n }),
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 9, maxLength: 9 }),
        async (rots, moves) => {
          const clip = createClip(sk, 3, 1 / 24, 'random');
          rots.forEach((v, k) => {
            const l = Math.hypot(...v);
            for (let c = 0; c < 4; c++) clip.rotations[4 * k + c] = v[c] / l;
          });
          for (let f = 0; f < 3; f++)
            for (let c = 0; c < 3; c++) clip.translations[3 * f * n + c] += moves[3 * f + c];
          const glb = await writeRetargetedGlb(avatar, clip, { animationName: 'take' });
          const back = await readAvatar(glb, { fileName: 'back.glb', mapOverride: SYN_MAP });
          expect(back.clipNames).toEqual(['take']);
          const got = readGltfClip(back);
          expect(got.frameCount).toBe(3);
          expect(Math.abs(got.frameTime - 1 / 24)).toBeLessThan(1e-7);
          expect(maxRotationError(clip, got)).toBeLessThan(1e-5);
          expect(maxTranslationError(clip, got)).toBeLessThan(1e-5);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('writes a rotation channel per bone and a translation channel only for moving bones', async () => {
    const clip = readGltfClip(avatar, 'wave');
    const json = glbJson(await writeRetargetedGlb(avatar, clip)) as {
      animations: {
        name: string;
        channels: { target: { node: number; path: string } }[];
        samplers: { interpolation?: string }[];
      }[];
    };
    expect(json.animations.length).toBe(1);
    const anim = json.animations[0];
    expect(anim.name).toBe('wave');
    const rot = anim.channels.filter((c) => c.target.path === 'rotation').map((c) => c.target.node);
    const tra = anim.channels.filter((c) => c.target.path === 'translation').map((c) => c.target.node);
    expect(rot.sort((a, b) => a - b)).toEqual(Array.from(avatar.nodeOfBone).sort((a, b) => a - b));
    expect(tra).toEqual([avatar.nodeOfBone[0]]);
    expect(anim.samplers.every((s) => (s.interpolation ?? 'LINEAR') === 'LINEAR')).toBe(true);
  });

  it('rejects a clip on another skeleton and a clip holding NaN', async () => {
    const two = createSkeleton({
      names: ['a', 'b'],
      parents: [-1, 0],
      restTranslations: [0, 0, 0, 0, 1, 0],
      restRotations: [0, 0, 0, 1, 0, 0, 0, 1],
    });
    const other = createClip(two, 2, 0.1);
    await expect(writeRetargetedGlb(avatar, other)).rejects.toThrow(/another skeleton/);
    const bad = createClip(avatar.skeleton, 2, 0.1);
    bad.translations[3 * (avatar.skeleton.boneCount + 2)] = Number.NaN;
    await expect(writeRetargetedGlb(avatar, bad)).rejects.toThrow(
      new RegExp(`frame 1 bone '${avatar.skeleton.names[2]}'`),
    );
  });
});

describe('readAvatar: structure rules', () => {
  it('throws naming the node on a non-uniform scale on the chain', async () => {
    const glb = await syntheticGlb({ armatureScale: [0.01, 0.02, 0.01] });
    await expect(readAvatar(glb, { fileName: 'ns.glb', mapOverride: SYN_MAP })).rejects.toThrow(
      /ns\.glb: nodes\[0\] 'Armature': non-uniform scale/,
    );
  });

  it('joins several skins and fills in non-joint nodes between joints', async () => {
    const glb = await syntheticGlb({
      edit: (doc, nodes) => {
        // second skin with only the hands; first skin without the forearms
        const skin = doc.getRoot().listSkins()[0];
        skin.removeJoint(nodes.LeftForeArm);
        skin.removeJoint(nodes.RightForeArm);
        const s2 = doc.createSkin('hands').addJoint(nodes.LeftHand).addJoint(nodes.RightHand);
        doc.getRoot().listScenes()[0].addChild(doc.createNode('Gloves').setSkin(s2));
      },
    });
    const av = await readAvatar(glb, { fileName: 'two-skins.glb', mapOverride: SYN_MAP });
    expect(av.skeleton.boneCount).toBe(17);
    expect(av.skeleton.parents[bone(av, 'LeftHand')]).toBe(bone(av, 'LeftForeArm'));
  });

  it('uses the subtree under the VRM 1.0 hips when the file has no skin', async () => {
    const plain = await syntheticGlb({ skin: false });
    const names = (glbJson(plain).nodes as { name?: string }[]).map((n) => n.name);
    const nodeOf = (name: string) => names.indexOf(name);
    const vrmBones: Record<string, { node: number }> = {};
    for (const [h, name] of Object.entries(SYN_MAP))
      vrmBones[h[0].toLowerCase() + h.slice(1)] = { node: nodeOf(name as string) };
    const glb = withGlbJson(plain, (json) => {
      json.extensionsUsed = ['VRMC_vrm'];
      json.extensions = { VRMC_vrm: { specVersion: '1.0', humanoid: { humanBones: vrmBones } } };
    });
    const av = await readAvatar(glb, { fileName: 'rigid.vrm' });
    expect(av.format).toBe('vrm1');
    expect(av.skeleton.boneCount).toBe(17);
    expect(av.skeleton.names[av.skeleton.humanoid[HumanBodyBones.LeftHand]]).toBe('LeftHand');
    expect(av.skeleton.names[av.skeleton.humanoid[HumanBodyBones.RightUpperLeg]]).toBe('RightUpLeg');
    expect(av.mapping.source[HumanBodyBones.Hips]).toBe('vrm');
  });

  it('reads a VRM 0.x humanoid array and names bad entries by field', async () => {
    const plain = await syntheticGlb();
    const names = (glbJson(plain).nodes as { name?: string }[]).map((n) => n.name);
    const humanBones = Object.entries(SYN_MAP).map(([h, name]) => ({
      bone: h[0].toLowerCase() + h.slice(1),
      node: names.indexOf(name as string),
    }));
    const vrm0 = withGlbJson(plain, (json) => {
      json.extensions = { VRM: { humanoid: { humanBones } } };
    });
    const av = await readAvatar(vrm0, { fileName: 'zero.vrm' });
    expect(av.format).toBe('vrm0');
    expect(av.skeleton.names[av.skeleton.humanoid[HumanBodyBones.LeftLowerArm]]).toBe('LeftForeArm');
    const bad = withGlbJson(plain, (json) => {
      json.extensions = {
        VRM: { humanoid: { humanBones: [...humanBones.slice(0, 3), { bone: 'head', node: 999 }] } },
      };
    });
    await expect(readAvatar(bad, { fileName: 'bad.vrm' })).rejects.toThrow(
      /bad\.vrm: extensions\.VRM\.humanoid\.humanBones\[3\]\.node: 999 is not a node index/,
    );
  });

  it('maps VRM bone names to HumanBodyBones, VRM 1.0 thumbs shifted by one', () => {
    expect(vrmBoneToHumanBone('leftUpperArm', 0)).toBe(HumanBodyBones.LeftUpperArm);
    expect(vrmBoneToHumanBone('upperChest', 1)).toBe(HumanBodyBones.UpperChest);
    expect(vrmBoneToHumanBone('leftThumbProximal', 0)).toBe(HumanBodyBones.LeftThumbProximal);
    expect(vrmBoneToHumanBone('leftThumbIntermediate', 0)).toBe(HumanBodyBones.LeftThumbIntermediate);
    expect(vrmBoneToHumanBone('leftThumbMetacarpal', 1)).toBe(HumanBodyBones.LeftThumbProximal);
    expect(vrmBoneToHumanBone('rightThumbProximal', 1)).toBe(HumanBodyBones.RightThumbIntermediate);
    expect(vrmBoneToHumanBone('rightThumbDistal', 1)).toBe(HumanBodyBones.RightThumbDistal);
    expect(vrmBoneToHumanBone('leftThumbIntermediate', 1)).toBe(-1);
    expect(vrmBoneToHumanBone('tail', 0)).toBe(-1);
    // every VRM 0.x name is Unity's name in lowerCamelCase
    HUMAN_BONE_NAMES.forEach((h: HumanBoneName, i) => {
      expect(vrmBoneToHumanBone(h[0].toLowerCase() + h.slice(1), 0)).toBe(i);
    });
  });
});

describe('normalizeSkinWeights', () => {
  it('makes float and normalized-integer weights sum to 1; all-zero vertices go to the first joint', () => {
    const doc = new Document();
    const buffer = doc.createBuffer();
    const floats = doc.createAccessor().setType('VEC4').setBuffer(buffer);
    floats.setArray(new Float32Array([0.25, 0.25, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0.2, -0.1, 0.3, 0.1]));
    const bytes = doc.createAccessor().setType('VEC4').setBuffer(buffer).setNormalized(true);
    bytes.setArray(new Uint8Array([100, 100, 0, 0, 255, 0, 0, 0, 1, 1, 1, 0]));
    const prim = (w: import('@gltf-transform/core').Accessor) =>
      doc.createPrimitive().setAttribute('WEIGHTS_0', w);
    doc.createMesh().addPrimitive(prim(floats)).addPrimitive(prim(bytes)).addPrimitive(prim(floats));
    expect(normalizeSkinWeights(doc)).toBe(3 + 2); // float rows 0, 1, 3; byte rows 0 and 2
    expect(Array.from(floats.getArray()!)).toEqual(
      [0.5, 0.5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1 / 3, 0, 0.5, 1 / 6].map(Math.fround),
    );
    const b = Array.from(bytes.getArray() as Uint8Array);
    for (let v = 0; v < 3; v++) expect(b[4 * v] + b[4 * v + 1] + b[4 * v + 2] + b[4 * v + 3]).toBe(255);
    expect(b.slice(0, 2).sort()).toEqual([127, 128]);
    expect(normalizeSkinWeights(doc)).toBe(0); // idempotent
  });
});

describe('readAvatar: bad input', () => {
  let good: Uint8Array;
  beforeAll(async () => {
    good = await syntheticGlb();
  });

  it('rejects a truncated GLB, a wrong magic, a non-JSON chunk, a short file', async () => {
    await expect(readAvatar(good.subarray(0, good.length - 100), { fileName: 'cut.glb' })).rejects.toThrow(
      /cut\.glb: truncated GLB: the header says \d+ bytes, the file has \d+/,
    );
    const wrong = good.slice();
    wrong[0] = 0x47;
    wrong[1] = 0x49;
    await expect(readAvatar(wrong, { fileName: 'magic.glb' })).rejects.toThrow(
      /magic\.glb: not a GLB file: wrong magic/,
    );
    const notJson = good.slice();
    notJson.set(new TextEncoder().encode('}}}}'), 20);
    await expect(readAvatar(notJson, { fileName: 'chunk.glb' })).rejects.toThrow(
      /chunk\.glb: GLB JSON chunk is not valid JSON/,
    );
    await expect(readAvatar(good.subarray(0, 8), { fileName: 'tiny.glb' })).rejects.toThrow(
      /tiny\.glb: not a GLB file: 8 bytes/,
    );
    await expect(readAvatar(good, { fileName: '' })).rejects.toThrow(GltfError);
  });

  it('rejects a file with no skin and no VRM map (unless mapOverride names the hips), and broken references', async () => {
    const noSkin = await syntheticGlb({ skin: false });
    await expect(readAvatar(noSkin, { fileName: 'static.glb' })).rejects.toThrow(
      /static\.glb: no skin joints and no VRM humanoid map .* or mapOverride\.Hips/,
    );
    await expect(
      readAvatar(noSkin, { fileName: 'static.glb', mapOverride: { ...SYN_MAP, Hips: 'Pelvis' } }),
    ).rejects.toThrow(/static\.glb: mapOverride\.Hips: no node named 'Pelvis'/);
    const rigid = await readAvatar(noSkin, { fileName: 'static.glb', mapOverride: SYN_MAP });
    expect(rigid.skeleton.boneCount).toBe(17); // the subtree under Hips
    expect(rigid.skeleton.names[0]).toBe('Hips');
    const broken = withGlbJson(good, (json) => {
      (json.nodes as { children?: number[] }[])[0].children = [12345];
    });
    const err = await readAvatar(broken, { fileName: 'broken.glb' }).catch((e) => e);
    expect(err).toBeInstanceOf(GltfError);
    expect(err.message).toMatch(/^broken\.glb: /);
  });

  it('lists the missing required humanoid bones', async () => {
    const err = await readAvatar(good, {
      fileName: 'nohands.glb',
      mapOverride: { ...SYN_MAP, LeftHand: null, RightFoot: null },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(GltfError);
    expect(err.message).toMatch(/^nohands\.glb/);
    expect(err.message).toMatch(/LeftHand/);
    expect(err.message).toMatch(/RightFoot/);
  });

  it('reads a .gltf JSON with embedded buffers like the GLB', async () => {
    const doc = await new WebIO().readBinary(good);
    const { json, resources } = await new WebIO().writeJSON(doc);
    const uri = 'data:application/octet-stream;base64,';
    for (const b of json.buffers ?? []) {
      b.uri = uri + Buffer.from(resources[b.uri as string]).toString('base64');
    }
    const text = new TextEncoder().encode(JSON.stringify(json));
    const av = await readAvatar(text, { fileName: 'embedded.gltf', mapOverride: SYN_MAP });
    expect(av.name).toBe('embedded');
    expect(av.skeleton.boneCount).toBe(17);
    expect(av.clipNames).toEqual(['wave', 'step', 'cubic', 'animation']);
  });
});

// ---------------------------------------------------------------------------------------------
// The real avatars.

interface Expect {
  file: string;
  format: 'gltf' | 'vrm0' | 'vrm1';
  bones: number;
  /** highest rest joint height (m), and the height (m) of the bone named `hipsBone`, from SOURCES.md */
  top: number;
  hips: number;
  hipsBone?: string;
  clips: string[];
  /** sign of the left hand's world x (+1: faces +Z, -1: faces -Z) */
  leftX?: number;
  /** VRM: node names of hips, head, left/right hand from the VRM map */
  vrm?: [string, string, string, string];
}

const REAL: Expect[] = [
  {
    file: AVATARS[0],
    format: 'gltf',
    bones: 67,
    top: 1.78,
    hips: 1.04,
    hipsBone: 'mixamorig:Hips',
    clips: ['agree', 'headShake', 'idle', 'run', 'sad_pose', 'sneak_pose', 'walk'],
    leftX: 1,
  },
  {
    file: AVATARS[1],
    format: 'gltf',
    bones: 49,
    top: 1.57,
    hips: 1.06,
    hipsBone: 'mixamorig:Hips',
    clips: ['Idle', 'Run', 'TPose', 'Walk'],
    leftX: -1,
  },
  {
    file: AVATARS[2],
    format: 'gltf',
    bones: 43,
    top: 2.97,
    hips: 1.28,
    hipsBone: 'Hips',
    clips: [
      'Dance',
      'Death',
      'Idle',
      'Jump',
      'No',
      'Punch',
      'Running',
      'Sitting',
      'Standing',
      'ThumbsUp',
      'Walking',
      'WalkJump',
      'Wave',
      'Yes',
    ],
  },
  { file: AVATARS[3], format: 'gltf', bones: 19, top: 1.19, hips: Number.NaN, clips: ['animation'] },
  {
    file: AVATARS[4],
    format: 'vrm0',
    bones: 57,
    top: 1.39,
    hips: 0.79,
    hipsBone: 'Hips',
    clips: [],
    leftX: -1,
    vrm: ['Hips', 'Head', 'Left wrist', 'Right wrist'],
  },
  {
    file: AVATARS[5],
    format: 'vrm1',
    bones: 53,
    top: 1.59,
    hips: 0.85,
    hipsBone: 'hips',
    clips: [],
    leftX: 1,
    vrm: ['hips', 'head', 'hand.L', 'hand.R'],
  },
];

describeWithData('glTF/VRM real avatars', () => {
  const avatars = new Map<string, Avatar>();
  beforeAll(async () => {
    for (const e of REAL) {
      const bytes = new Uint8Array(fs.readFileSync(dataPath(e.file)));
      avatars.set(e.file, await readAvatar(bytes, { fileName: e.file }));
    }
  });

  it.each(REAL.map((e) => [e.file, e] as const))('%s: skeleton, heights, facing, humanoid', (_f, e) => {
    const av = avatars.get(e.file)!;
    const sk = av.skeleton;
    expect(av.format).toBe(e.format);
    expect(sk.boneCount).toBe(e.bones);
    for (let i = 0; i < sk.boneCount; i++) expect(sk.parents[i]).toBeLessThan(i);
    expect(new Set(sk.names).size).toBe(sk.boneCount);
    const w = restWorld(sk);
    let top = Number.NEGATIVE_INFINITY;
    let bottom = Number.POSITIVE_INFINITY;
    for (let i = 0; i < sk.boneCount; i++) {
      top = Math.max(top, w.positions[3 * i + 1]);
      bottom = Math.min(bottom, w.positions[3 * i + 1]);
    }
    expect(Math.abs(top - e.top)).toBeLessThan(0.02);
    expect(bottom).toBeGreaterThan(-0.05); // feet on the ground, Y up, metres
    expect(bottom).toBeLessThan(0.1);
    const h = HumanBodyBones;
    if (e.hipsBone) expect(Math.abs(w.positions[3 * bone(av, e.hipsBone) + 1] - e.hips)).toBeLessThan(0.02);
    if (e.leftX !== undefined) {
      const lh = w.positions[3 * sk.humanoid[h.LeftHand]];
      const rh = w.positions[3 * sk.humanoid[h.RightHand]];
      expect(Math.sign(lh - rh)).toBe(e.leftX);
    }
    if (e.vrm) {
      const nodes = av.document.getRoot().listNodes();
      const nodeName = (hb: number) => nodes[av.nodeOfBone[sk.humanoid[hb]]].getName();
      expect([nodeName(h.Hips), nodeName(h.Head), nodeName(h.LeftHand), nodeName(h.RightHand)]).toEqual(
        e.vrm,
      );
      expect(av.mapping.source[h.Hips]).toBe('vrm');
    }
    for (const r of [h.Hips, h.Spine, h.Head, h.LeftHand, h.RightHand, h.LeftFoot, h.RightFoot]) {
      expect(sk.humanoid[r]).toBeGreaterThanOrEqual(0);
    }
    expect(av.clipNames).toEqual(e.clips);
  });

  it('VRM 1.0 sample maps the thumb metacarpal to LeftThumbProximal (VRM map)', () => {
    const av = avatars.get(AVATARS[5])!;
    const sk = av.skeleton;
    const nodes = av.document.getRoot().listNodes();
    const name = (hb: number) => nodes[av.nodeOfBone[sk.humanoid[hb]]].getName();
    expect(name(HumanBodyBones.LeftThumbProximal)).toBe('thumb.proximal.L');
    expect(name(HumanBodyBones.LeftThumbIntermediate)).toBe('thumb.intermediate.L');
    expect(name(HumanBodyBones.RightThumbDistal)).toBe('thumb.distal.R');
    expect(sk.humanoid[HumanBodyBones.UpperChest]).toBe(-1);
  });

  it('samples every clip without NaN, frames matching the file key times', () => {
    for (const e of REAL) {
      const av = avatars.get(e.file)!;
      const json = glbJson(av.bytes) as {
        accessors: { count: number; min?: number[]; max?: number[] }[];
        animations?: { name?: string; samplers: { input: number }[] }[];
      };
      av.clipSources.forEach((src) => {
        const clip = readGltfClip(av, src.name);
        expect(clip.rotations.every(Number.isFinite) && clip.translations.every(Number.isFinite)).toBe(true);
        // independent of the sampler decoding: the input accessors' count, min and max in the JSON
        const inputs = src.animationIndices.flatMap((a) =>
          json.animations![a].samplers.map((s) => json.accessors[s.input]),
        );
        const t0 = Math.min(...inputs.map((a) => a.min![0]));
        const t1 = Math.max(...inputs.map((a) => a.max![0]));
        const keys = Math.max(...inputs.map((a) => a.count));
        expect(Math.abs((clip.frameCount - 1) * clip.frameTime - (t1 - t0))).toBeLessThan(1e-4);
        expect(clip.frameCount).toBe(keys);
        // rotations stay unit quaternions
        for (let k = 0; k < clip.rotations.length; k += 4) {
          const l = Math.hypot(
            clip.rotations[k],
            clip.rotations[k + 1],
            clip.rotations[k + 2],
            clip.rotations[k + 3],
          );
          expect(Math.abs(l - 1)).toBeLessThan(1e-5);
        }
      });
    }
    // known durations (SOURCES.md clip lists; CesiumMan's walk cycle is 2 s at 24 fps)
    const cesium = readGltfClip(avatars.get(AVATARS[3])!);
    expect(cesium.frameCount).toBe(49);
    expect(cesium.frameTime).toBeCloseTo(1 / 24, 6);
    expect(cesium.warnings.some((w) => w.startsWith('scale channels ignored'))).toBe(true);
  });

  it.each([
    [AVATARS[0], 'walk', 7],
    [AVATARS[1], 'Walk', 9],
    [AVATARS[2], 'Wave', 11],
    [AVATARS[3], 'animation', 20],
  ])(
    '%s %s frame %d: joint world positions match glTF Transform world matrices of the keyed nodes',
    async (file, name, f) => {
      // Independent check of the frame folding and scale baking: set every keyed node to its output value
      // at key f (no interpolation involved), let glTF Transform compose the node world matrices, and
      // compare with forward kinematics of the clip's frame f.
      const av = avatars.get(file)!;
      const clip = readGltfClip(av, name);
      const doc = await new WebIO().readBinary(av.bytes);
      const nodes = doc.getRoot().listNodes();
      const src = av.clipSources.find((s) => s.name === name)!;
      for (const a of src.animationIndices) {
        for (const ch of doc.getRoot().listAnimations()[a].listChannels()) {
          const path = ch.getTargetPath();
          const node = ch.getTargetNode()!;
          const out = ch.getSampler()!.getOutput()!;
          if (path === 'translation')
            node.setTranslation(out.getElement(f, [0, 0, 0]) as [number, number, number]);
          if (path === 'rotation')
            node.setRotation(out.getElement(f, [0, 0, 0, 0]) as [number, number, number, number]);
        }
      }
      const n = av.skeleton.boneCount;
      const rot = new Float64Array(4 * n);
      const pos = new Float64Array(3 * n);
      forwardKinematics(
        av.skeleton,
        clip.rotations.subarray(4 * f * n, 4 * (f + 1) * n),
        clip.translations.subarray(3 * f * n, 3 * (f + 1) * n),
        rot,
        pos,
      );
      let worst = 0;
      for (let b = 0; b < n; b++) {
        const m = nodes[av.nodeOfBone[b]].getWorldMatrix();
        for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(m[12 + c] - pos[3 * b + c]));
      }
      expect(worst).toBeLessThan(1e-4);
    },
  );

  it.each(REAL.map((e) => [e.file, e] as const))(
    '%s: written GLB passes the Khronos validator and round-trips the clip',
    async (_f, e) => {
      const av = avatars.get(e.file)!;
      const sk = av.skeleton;
      const n = sk.boneCount;
      let clip: Clip;
      if (av.clipNames.length > 0) {
        clip = readGltfClip(av, av.clipNames[av.clipNames.length - 1]);
      } else {
        // a synthetic clip: every bone turned by a frame-dependent rotation, the hips moving
        clip = createClip(sk, 12, 1 / 30, 'synthetic');
        const r = new Float64Array(4);
        for (let f = 0; f < 12; f++) {
          for (let b = 0; b < n; b++) {
            quat.setAxisAngle(r, [Math.sin(b), Math.cos(b), 0.5], 0.05 * f + 0.01 * b);
            quat.multiply(r, sk.restRotations.subarray(4 * b, 4 * b + 4), r);
            rotAt(clip, f, b).set(r);
          }
          posAt(clip, f, sk.humanoid[HumanBodyBones.Hips])[2] += 0.02 * f;
        }
      }
      const glb = await writeRetargetedGlb(av, clip);
      const report = await validator.validateBytes(glb, { maxIssues: 50 });
      const errors = report.issues.messages.filter((m) => m.severity === 0);
      expect(errors).toEqual([]);
      expect(report.issues.numErrors).toBe(0);
      const back = await readAvatar(glb, { fileName: `${av.name}-out.glb`, mapOverride: overrideFrom(sk) });
      expect(back.skeleton.names).toEqual(sk.names);
      expect(Array.from(back.skeleton.humanoid)).toEqual(Array.from(sk.humanoid));
      expect(back.clipNames).toEqual([clip.name]);
      const got = readGltfClip(back);
      expect(got.frameCount).toBe(clip.frameCount);
      expect(maxRotationError(clip, got)).toBeLessThan(1e-5);
      expect(maxTranslationError(clip, got)).toBeLessThan(1e-5);
      // the rest pose survives too
      for (let k = 0; k < 3 * n; k++)
        expect(Math.abs(back.skeleton.restTranslations[k] - sk.restTranslations[k])).toBeLessThan(1e-5);
    },
  );
});
