/**
 * VRM Animation (`.vrma`) known answers, without the shared data: a hand-made T-pose take with single
 * known rotations comes out as exactly those rotations in the `.vrma` channels (the rest rotations are
 * the identity, so a channel is the bone's rotation relative to the VRM T-pose); the file's extension
 * and node hierarchy follow VRMC_vrm_animation-1.0; our reader takes the humanoid map from the
 * extension, not from the node names; the command line's refusals.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebIO } from '@gltf-transform/core';
import { runRetargetVrma } from '../src/cli/retargetVrma';
import { createSkeleton, forwardKinematics, HumanBodyBones as H, withHumanoid } from '../src/core';
import { readAvatar, readGltfClip } from '../src/io/gltf';
import { loadSource } from '../src/io/node';
import { vrmaRestSkeleton } from '../src/io/vrma';
import { estimateContactHeight, retargetClip } from '../src/retarget';
import { runKind } from './helpers/runCli';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const validator = require('gltf-validator') as {
  validateBytes(data: Uint8Array): Promise<{ issues: { numErrors: number; messages: { code: string }[] } }>;
};

/** Centimetres, T-pose facing +Z, left at +X; toes level forward. Channels ZXY. */
function handMadeBvh(frames: string[]): string {
  const j = (name: string, off: string, body: string) =>
    `JOINT ${name}\n{\nOFFSET ${off}\nCHANNELS 3 Zrotation Xrotation Yrotation\n${body}}\n`;
  const end = (off: string) => `End Site\n{\nOFFSET ${off}\n}\n`;
  const arm = (s: 'Left' | 'Right', x: number) =>
    j(
      `${s}Shoulder`,
      `${3 * x} 20 0`,
      j(
        `${s}Arm`,
        `${15 * x} 0 0`,
        j(`${s}ForeArm`, `${28 * x} 0 0`, j(`${s}Hand`, `${25 * x} 0 0`, end(`${8 * x} 0 0`))),
      ),
    );
  const leg = (s: 'Left' | 'Right', x: number) =>
    j(
      `${s}UpLeg`,
      `${9 * x} -5 0`,
      j(`${s}Leg`, '0 -42 0', j(`${s}Foot`, '0 -40 0', j(`${s}ToeBase`, '0 0 12', end('0 0 5')))),
    );
  const head = j('Neck', '0 25 0', j('Head', '0 10 0', end('0 15 0')));
  const spine = j('Spine', '0 10 0', j('Chest', '0 15 0', head + arm('Left', 1) + arm('Right', -1)));
  return [
    'HIERARCHY',
    'ROOT Hips',
    '{',
    'OFFSET 0 0 0',
    'CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
    spine + leg('Left', 1) + leg('Right', -1),
    '}',
    'MOTION',
    `Frames: ${frames.length}`,
    'Frame Time: 0.0333333',
    ...frames,
    '',
  ].join('\n');
}

/** Joint order of {@link handMadeBvh} (channel blocks in file order). */
const JOINTS = [
  'Hips',
  'Spine',
  'Chest',
  'Neck',
  'Head',
  'LeftShoulder',
  'LeftArm',
  'LeftForeArm',
  'LeftHand',
  'RightShoulder',
  'RightArm',
  'RightForeArm',
  'RightHand',
  'LeftUpLeg',
  'LeftLeg',
  'LeftFoot',
  'LeftToeBase',
  'RightUpLeg',
  'RightLeg',
  'RightFoot',
  'RightToeBase',
];

/** A frame line: hips position (cm) and per-joint ZXY degrees (zero where not given). */
function frame(hips: [number, number, number], rot: Record<string, [number, number, number]> = {}): string {
  return [...hips, ...JOINTS.flatMap((name) => rot[name] ?? [0, 0, 0])].join(' ');
}

/** The parts of a glTF JSON these tests read. */
interface GltfJson {
  extensionsUsed: string[];
  extensions: {
    VRMC_vrm_animation: {
      specVersion: string;
      humanoid: { humanBones: Record<string, { node: number }> };
      expressions?: unknown;
      lookAt?: unknown;
    };
  };
  nodes: { name: string; translation?: number[]; rotation?: number[]; scale?: number[] }[];
  animations: { channels: { target: { node: number; path: string } }[] }[];
}

/** The GLB's JSON chunk. */
function glbJson(bytes: Uint8Array): GltfJson {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + len)));
}

/** The GLB with its JSON chunk replaced (padded with spaces to 4 bytes, as the GLB spec asks). */
function withJson(bytes: Uint8Array, json: unknown): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const oldLen = dv.getUint32(12, true);
  const rest = bytes.subarray(20 + oldLen);
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const js = new TextEncoder().encode(text);
  const out = new Uint8Array(20 + js.length + rest.length);
  const o = new DataView(out.buffer);
  out.set(bytes.subarray(0, 12));
  o.setUint32(8, out.length, true);
  o.setUint32(12, js.length, true);
  o.setUint32(16, 0x4e4f534a, true);
  out.set(js, 20);
  out.set(rest, 20 + js.length);
  return out;
}

const deg = Math.PI / 180;

describe('kind retarget <take> --vrma on a hand-made take (known answers)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-vrma-'));
  const take = path.join(dir, 'known.bvh');
  const out = path.join(dir, 'known.vrma');
  let bytes: Uint8Array;
  let json: GltfJson;
  const channel = new Map<string, { rotation?: Float32Array; translation?: Float32Array }>();
  beforeAll(async () => {
    fs.writeFileSync(
      take,
      handMadeBvh([
        frame([0, 95, 0]),
        frame([10, 95, 0], { LeftForeArm: [40, 0, 0] }),
        frame([0, 95, 0], { RightUpLeg: [0, -30, 0], Spine: [0, 0, 20] }),
      ]),
    );
    await runRetargetVrma({ source: take, vrma: out, outDir: dir, sourceUnit: 0.01 });
    bytes = new Uint8Array(fs.readFileSync(out));
    json = glbJson(bytes);
    const doc = await new WebIO().readBinary(bytes);
    for (const ch of doc.getRoot().listAnimations()[0].listChannels()) {
      const name = ch.getTargetNode()!.getName();
      const entry = channel.get(name) ?? {};
      entry[ch.getTargetPath() as 'rotation' | 'translation'] = ch
        .getSampler()!
        .getOutput()!
        .getArray() as Float32Array;
      channel.set(name, entry);
    }
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const quatAt = (bone: string, f: number) => [...channel.get(bone)!.rotation!.subarray(4 * f, 4 * f + 4)];

  it('a single known rotation of the take is that rotation in the channel (40 deg about Z on the left elbow)', () => {
    const q = quatAt('leftLowerArm', 1);
    const want = [0, 0, Math.sin(20 * deg), Math.cos(20 * deg)];
    for (let k = 0; k < 4; k++) expect(q[k]).toBeCloseTo(want[k], 5);
    // every other bone stays at its T-pose rest (identity) in that frame
    for (const [name, c] of channel) {
      if (name === 'leftLowerArm' || name === 'hips') continue;
      const r = c.rotation!.subarray(4, 8);
      expect(Math.abs(r[3])).toBeCloseTo(1, 5);
    }
  });

  it("the hips translation moves by the take's 10 cm (the rest has the take's leg length: scale 1)", () => {
    const t = channel.get('hips')!.translation!;
    expect(t[3] - t[0]).toBeCloseTo(0.1, 4);
    expect(t[4] - t[1]).toBeCloseTo(0, 4);
    expect(t[5] - t[2]).toBeCloseTo(0, 4);
  });

  it('a thigh raised 30 deg about X and a spine turned 20 deg about Y come out as those rotations', () => {
    const leg = quatAt('rightUpperLeg', 2);
    const legWant = [-Math.sin(15 * deg), 0, 0, Math.cos(15 * deg)];
    for (let k = 0; k < 4; k++) expect(leg[k]).toBeCloseTo(legWant[k], 5);
    const spine = quatAt('spine', 2);
    const spineWant = [0, Math.sin(10 * deg), 0, Math.cos(10 * deg)];
    for (let k = 0; k < 4; k++) expect(spine[k]).toBeCloseTo(spineWant[k], 5);
    const chest = quatAt('chest', 2);
    expect(Math.abs(chest[3])).toBeCloseTo(1, 5);
  });

  it('follows VRMC_vrm_animation-1.0: specVersion, humanBones, T-pose nodes, rotations plus hips translation only', async () => {
    expect(json.extensionsUsed).toContain('VRMC_vrm_animation');
    const ext = json.extensions.VRMC_vrm_animation;
    expect(ext.specVersion).toBe('1.0');
    expect(ext.expressions).toBeUndefined();
    expect(ext.lookAt).toBeUndefined();
    const bones = ext.humanoid.humanBones as Record<string, { node: number }>;
    expect(Object.keys(bones).sort()).toEqual(
      [
        'hips',
        'spine',
        'chest',
        'neck',
        'head',
        'leftShoulder',
        'leftUpperArm',
        'leftLowerArm',
        'leftHand',
        'rightShoulder',
        'rightUpperArm',
        'rightLowerArm',
        'rightHand',
        'leftUpperLeg',
        'leftLowerLeg',
        'leftFoot',
        'leftToes',
        'rightUpperLeg',
        'rightLowerLeg',
        'rightFoot',
        'rightToes',
      ].sort(),
    );
    for (const [name, { node }] of Object.entries(bones)) {
      expect(json.nodes[node].name).toBe(name);
      expect(json.nodes[node].rotation ?? [0, 0, 0, 1]).toEqual([0, 0, 0, 1]);
      expect(json.nodes[node].scale).toBeUndefined();
    }
    // feet on y = 0: the hips at the take's legs (87 cm) plus its ankle on the floor (8 cm)
    expect(json.nodes[bones.hips.node].translation?.[1]).toBeCloseTo(0.95, 5);
    const paths = json.animations[0].channels.map(
      (c) => `${json.nodes[c.target.node].name}.${c.target.path}`,
    );
    expect(paths.filter((p) => p.endsWith('.translation'))).toEqual(['hips.translation']);
    expect(paths.filter((p) => p.endsWith('.rotation'))).toHaveLength(21);
    expect(paths.some((p) => p.endsWith('.scale'))).toBe(false);
    const report = await validator.validateBytes(bytes);
    expect(report.issues.numErrors).toBe(0);
  });

  it("the rest is the VRM T-pose with the take's lengths: arms along +-X, legs down, toes forward, ankles 8 cm up", async () => {
    const source = await loadSource(take, { unitScale: 0.01 });
    // the ankle on the floor: 8 cm in the take (hips at 95 cm, legs 87 cm)
    const ankle = estimateContactHeight(source.clip);
    expect(ankle).toBeCloseTo(0.08, 6);
    const sk = vrmaRestSkeleton(source.clip.skeleton, { ankleHeight: ankle });
    const n = sk.boneCount;
    const wr = new Float64Array(4 * n);
    const wp = new Float64Array(3 * n);
    forwardKinematics(sk, sk.restRotations, sk.restTranslations, wr, wp);
    const p = (h: number) => [...wp.subarray(3 * sk.humanoid[h], 3 * sk.humanoid[h] + 3)];
    const seg = (a: number, b: number) => p(b).map((v, k) => v - p(a)[k]);
    const close = (v: number[], want: number[]) => {
      for (let k = 0; k < 3; k++) expect(v[k]).toBeCloseTo(want[k], 6);
    };
    close(seg(H.LeftUpperArm, H.LeftLowerArm), [0.28, 0, 0]);
    close(seg(H.LeftLowerArm, H.LeftHand), [0.25, 0, 0]);
    close(seg(H.RightUpperArm, H.RightLowerArm), [-0.28, 0, 0]);
    close(seg(H.LeftUpperLeg, H.LeftLowerLeg), [0, -0.42, 0]);
    close(seg(H.RightLowerLeg, H.RightFoot), [0, -0.4, 0]);
    close(seg(H.LeftFoot, H.LeftToes), [0, 0, 0.12]);
    close(seg(H.Hips, H.Spine), [0, 0.1, 0]);
    expect(p(H.LeftFoot)[1]).toBeCloseTo(0.08, 6);
    expect(p(H.Hips)[1]).toBeCloseTo(0.95, 6);
    // the take's flat foot pitched down 0.3 rad: the rest's toes take that pitch (tpose.md: feet flat)
    const pitched = vrmaRestSkeleton(source.clip.skeleton, { ankleHeight: ankle, footDrop: 0.3 });
    const t = 3 * pitched.humanoid[H.LeftToes];
    const toes = [...pitched.restTranslations.subarray(t, t + 3)];
    close(toes, [0, -0.12 * Math.sin(0.3), 0.12 * Math.cos(0.3)]);
    for (let i = 0; i < n; i++)
      expect([...sk.restRotations.subarray(4 * i, 4 * i + 4)]).toEqual([0, 0, 0, 1]);
  });

  it('a take with one shoulder: the other upper arm hangs from the chest, out to its side', async () => {
    const source = await loadSource(take, { unitScale: 0.01 });
    const map = Int32Array.from(source.clip.skeleton.humanoid);
    map[H.RightShoulder] = -1;
    const sk = vrmaRestSkeleton(withHumanoid(source.clip.skeleton, map));
    expect([...sk.restTranslations].every(Number.isFinite)).toBe(true);
    expect(sk.names).not.toContain('rightShoulder');
    const r = sk.humanoid[H.RightUpperArm];
    expect(sk.names[sk.parents[r]]).toBe('chest');
    expect(sk.restTranslations[3 * r]).toBeLessThan(-0.1); // out to the right (-X)
  });

  it('our reader takes the humanoid map from the extension, not from the node names', async () => {
    const renamed = structuredClone(json);
    for (const [i, n] of renamed.nodes.entries()) n.name = `n${i}`;
    const avatar = await readAvatar(withJson(bytes, renamed), { fileName: 'renamed.vrma' });
    expect(avatar.format).toBe('vrma');
    const bones = json.extensions.VRMC_vrm_animation.humanoid.humanBones;
    expect(avatar.skeleton.names[avatar.skeleton.humanoid[H.LeftLowerArm]]).toBe(
      `n${bones.leftLowerArm.node}`,
    );
    expect(avatar.skeleton.names[avatar.skeleton.humanoid[H.RightToes]]).toBe(`n${bones.rightToes.node}`);
    expect(avatar.mapping.source?.[H.LeftLowerArm] ?? 'vrm').toBe('vrm');
    const clip = readGltfClip(avatar, avatar.clipNames[0]);
    expect(clip.frameCount).toBe(3);
    const loaded = await loadSource(out);
    expect(loaded.format).toBe('vrma');
  });

  it('refuses a .vrma whose node tree does not hang as the humanoid (the head cut off the neck), naming both', async () => {
    const broken = structuredClone(json);
    const bones = json.extensions.VRMC_vrm_animation.humanoid.humanBones;
    const neck = broken.nodes[bones.neck.node] as { children?: number[] };
    neck.children = (neck.children ?? []).filter((c) => c !== bones.head.node);
    await expect(readAvatar(withJson(bytes, broken), { fileName: 'cut.vrma' })).rejects.toThrow(
      `cut.vrma: VRMC_vrm_animation humanoid: Head (nodes[${bones.head.node}] 'head') is not under Neck (nodes[${bones.neck.node}] 'neck')`,
    );
    // the intact file still reads
    expect((await readAvatar(withJson(bytes, json), { fileName: 'ok.vrma' })).format).toBe('vrma');
  });
});

describe("RetargetOptions.targetReference 'rest': the target's rest taken as its T-pose, as VRM players do", () => {
  it('a target whose left upper arm rests 5 deg below the T-pose keeps it there on the T-pose frame; canonical straightens it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-vrma-'));
    try {
      const take = path.join(dir, 't.bvh');
      fs.writeFileSync(take, handMadeBvh([frame([0, 95, 0])]));
      const source = await loadSource(take, { unitScale: 0.01 });
      const t = vrmaRestSkeleton(source.clip.skeleton, { ankleHeight: 0.08 });
      const rot = Float64Array.from(t.restRotations);
      const b = t.humanoid[H.LeftUpperArm];
      rot.set([0, 0, -Math.sin(2.5 * deg), Math.cos(2.5 * deg)], 4 * b); // 5 deg down about Z
      const target = createSkeleton({ ...t, restRotations: rot });
      const opts = { hipsMode: 'scaled', referencePose: 'T' } as const;
      const atRest = retargetClip(source.clip, target, { ...opts, targetReference: 'rest' }).clip;
      const straight = retargetClip(source.clip, target, opts).clip;
      const n = target.boneCount;
      const q = (c: typeof atRest) => [...c.rotations.subarray(4 * b, 4 * b + 4)];
      const want = [0, 0, -Math.sin(2.5 * deg), Math.cos(2.5 * deg)];
      for (let k = 0; k < 4; k++) expect(q(atRest)[k]).toBeCloseTo(want[k], 6);
      expect(Math.abs(q(straight)[3])).toBeCloseTo(1, 6); // identity: the arm along +X
      expect(atRest.rotations.length).toBe(4 * n);
      expect(() => retargetClip(source.clip, target, { ...opts, targetReference: 'bent' as never })).toThrow(
        /targetReference: bent is not 'canonical' or 'rest'/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kind retarget --avatar-pose rest', () => {
  it('a T-pose take onto the embedded A-pose avatar leaves it in its A-pose (its rest is its reference), summary says so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-vrma-'));
    try {
      const take = path.join(dir, 't.bvh');
      fs.writeFileSync(take, handMadeBvh([frame([0, 95, 0]), frame([0, 95, 0])]));
      const avatarFile = path.resolve(__dirname, '../assets/default/default-avatar.glb');
      const out = path.join(dir, 'out');
      const r = await runKind([
        'retarget',
        take,
        avatarFile,
        '--avatar-pose',
        'rest',
        '-o',
        out,
        '--source-unit',
        '0.01',
      ]);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/T-pose \(the avatar at its rest\)/);
      expect(JSON.parse(fs.readFileSync(path.join(out, 'summary.json'), 'utf8')).calibration.avatarPose).toBe(
        'rest',
      );
      const back = await loadSource(path.join(out, 't.glb'));
      const sk = back.clip.skeleton;
      for (const h of [H.LeftUpperArm, H.RightUpperArm, H.LeftLowerArm, H.LeftUpperLeg]) {
        const b = sk.humanoid[h];
        const got = [...back.clip.rotations.subarray(4 * b, 4 * b + 4)];
        const rest = [...sk.restRotations.subarray(4 * b, 4 * b + 4)];
        const dot = Math.abs(got.reduce((a, v, k) => a + v * rest[k], 0));
        expect(dot).toBeGreaterThan(Math.cos(0.01 * deg)); // within 0.02 deg of the rest
      }
      const ik = await runKind(['retarget', take, avatarFile, '--avatar-pose', 'rest', '--ik', '-o', out]);
      expect(ik.code).toBe(1);
      expect(ik.err).toMatch(/--avatar-pose rest: not with --ik yet/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('kind retarget --vrma: refusals', () => {
  it('refuses an avatar with --vrma, options that act on an avatar, and a .vrma given as the avatar', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-vrma-'));
    const take = path.join(dir, 't.bvh');
    fs.writeFileSync(take, handMadeBvh([frame([0, 95, 0])]));
    try {
      let r = await runKind(['retarget', take, path.join(dir, 'a.glb'), '--vrma']);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--vrma writes a VRM Animation, which needs no avatar/);
      r = await runKind(['retarget', take, '--vrma', '--scale', '2']);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--scale: not with --vrma/);
      r = await runKind(['retarget', '--vrma', take]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/is not a \.vrma file name/);
      r = await runKind(['retarget', take, '--vrma', '-o', dir, '--source-unit', '0.01']);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/left out: expressions and lookAt/);
      expect(fs.existsSync(path.join(dir, 't.vrma'))).toBe(true);
      expect(fs.readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
      r = await runKind(['retarget', take, path.join(dir, 't.vrma')]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/a VRM Animation is motion without a body; give it as the source/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
