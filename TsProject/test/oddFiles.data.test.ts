/**
 * Odd but valid files (issue 15; ../shared/data/odd-files, its README gives the avatar geometry and the
 * expected values): each read through the library API and through `kind inspect` / `kind retarget`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WebIO } from '@gltf-transform/core';
import { type Clip, forwardKinematics, HUMAN_BONE_NAMES, readFrame } from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar, readGltfClip } from '../src/io/gltf';
import { NODE_GLTF_DECODERS } from '../src/io/node/gltfDecoders';
import { dataPath, describeWithData } from './helpers/data';
import { runKind } from './helpers/runCli';

const odd = (f: string) => dataPath('odd-files', f);
const read = (f: string) => readAvatar(new Uint8Array(fs.readFileSync(odd(f))), { fileName: f });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const validator = require('gltf-validator') as {
  validateBytes(data: Uint8Array): Promise<{ issues: { numErrors: number; messages: { code: string }[] } }>;
};

/** World position (metres) of bone `name` at frame `f` of `clip`. */
function worldPos(clip: Clip, f: number, name: string): number[] {
  const n = clip.skeleton.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  readFrame(clip, f, lr, lp);
  forwardKinematics(clip.skeleton, lr, lp, wr, wp);
  const b = clip.skeleton.names.indexOf(name);
  if (b < 0) throw new Error(`no bone ${name}`);
  return [wp[3 * b], wp[3 * b + 1], wp[3 * b + 2]];
}

/** The README's LeftHand for the `wave` clip: (0.15, 1.4, 0) + Rz(theta) (0.53, 0, 0). */
function waveHand(deg: number): number[] {
  const t = (deg * Math.PI) / 180;
  return [0.15 + 0.53 * Math.cos(t), 1.4 + 0.53 * Math.sin(t), 0];
}

function expectClose(a: number[], b: number[], tol = 1e-4): void {
  expect(Math.max(...a.map((x, i) => Math.abs(x - b[i])))).toBeLessThan(tol);
}

/** Retarget with the CLI, check the GLB with the Khronos validator, read it back (clip on its avatar). */
async function retargetCli(source: string, avatar: string, clipName: string) {
  const dir = tmpDir();
  const r = await runKind(['retarget', '-o', dir, source, avatar]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  const bytes = new Uint8Array(fs.readFileSync(path.join(dir, `${clipName}.glb`)));
  const report = await validator.validateBytes(bytes);
  expect(report.issues.messages.filter((m) => (m as { severity?: number }).severity === 0)).toEqual([]);
  expect(report.issues.numErrors).toBe(0);
  const back = await readAvatar(bytes, { fileName: `${clipName}.glb` });
  return { out: r.out, dir, bytes, back, clip: readGltfClip(back) };
}

const tmpDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kind-odd-'));

describeWithData('odd files: BVH `End site` in lower case (endsite_lower.bvh)', () => {
  it('reads like base.bvh: 21 joints, same layout and frames', () => {
    const lower = parseBvh(fs.readFileSync(odd('endsite_lower.bvh')), { fileName: 'endsite_lower.bvh' });
    const base = parseBvh(fs.readFileSync(odd('base.bvh')), { fileName: 'base.bvh' });
    expect(lower.clip.skeleton.boneCount).toBe(21);
    expect(lower.layout.joints.map((j) => j.endSite)).toEqual(base.layout.joints.map((j) => j.endSite));
    expect(lower.layout.joints.filter((j) => j.endSite).length).toBeGreaterThan(0);
    expect(lower.clip.skeleton.names).toEqual(base.clip.skeleton.names);
    expect(Array.from(lower.clip.rotations)).toEqual(Array.from(base.clip.rotations));
    expect(Array.from(lower.clip.translations)).toEqual(Array.from(base.clip.translations));
  });

  it('kind inspect prints 21 joints; kind retarget writes a BVH that reads back with 21 joints', async () => {
    const ins = await runKind(['inspect', odd('endsite_lower.bvh')]);
    expect(ins.err).toBe('');
    expect(ins.code).toBe(0);
    expect(ins.out).toMatch(/endsite_lower\.bvh: BVH, 21 joints, 2 frames/);
    const dir = tmpDir();
    const ret = await runKind(['retarget', '-q', '-o', dir, odd('endsite_lower.bvh'), odd('base.glb')]);
    expect(ret.err).toBe('');
    expect(ret.code).toBe(0);
    const back = parseBvh(fs.readFileSync(path.join(dir, 'endsite_lower.bvh')), { fileName: 'out.bvh' });
    expect(back.clip.skeleton.boneCount).toBe(21);
    expect(back.clip.frameCount).toBe(2);
  });
});

describeWithData(
  'odd files: VRM 0.x humanoid entries with "node": -1 (vrm0_node_minus1.vrm; control vrm0_ok.vrm)',
  () => {
    it('reads as VRM 0.x with the same skeleton and map as the control, the -1 bones absent with a note each', async () => {
      const a = await read('vrm0_node_minus1.vrm');
      const ok = await read('vrm0_ok.vrm');
      expect(a.format).toBe('vrm0');
      expect(ok.format).toBe('vrm0');
      expect(a.skeleton.boneCount).toBe(21);
      expect(a.skeleton.names).toEqual(ok.skeleton.names);
      expect(Array.from(a.skeleton.humanoid)).toEqual(Array.from(ok.skeleton.humanoid));
      expect(a.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('LeftEye')]).toBe(-1);
      expect(a.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('RightEye')]).toBe(-1);
      expect(Array.from(a.skeleton.restTranslations)).toEqual(Array.from(ok.skeleton.restTranslations));
      expect(a.warnings).toEqual([
        ...ok.warnings,
        "extensions.VRM.humanoid.humanBones[21].node: -1 (bone 'leftEye' not assigned): treated as absent",
        "extensions.VRM.humanoid.humanBones[22].node: -1 (bone 'rightEye' not assigned): treated as absent",
      ]);
    });

    it('kind inspect prints the note; kind retarget onto it writes the same clip as onto the control', async () => {
      const ins = await runKind(['inspect', odd('vrm0_node_minus1.vrm')]);
      expect(ins.err).toBe('');
      expect(ins.code).toBe(0);
      expect(ins.out).toMatch(/vrm0_node_minus1\.vrm: VRM 0\.x, 21 bones, clips: wave/);
      expect(ins.out).toMatch(
        /note: extensions\.VRM\.humanoid\.humanBones\[21\]\.node: -1 \(bone 'leftEye' not assigned\)/,
      );
      const d1 = tmpDir();
      const d2 = tmpDir();
      const r1 = await runKind(['retarget', '-q', '-o', d1, odd('base.bvh'), odd('vrm0_node_minus1.vrm')]);
      const r2 = await runKind(['retarget', '-q', '-o', d2, odd('base.bvh'), odd('vrm0_ok.vrm')]);
      expect([r1.code, r1.err, r2.code, r2.err]).toEqual([0, '', 0, '']);
      const b1 = parseBvh(fs.readFileSync(path.join(d1, 'base.bvh')), { fileName: '1.bvh' });
      const b2 = parseBvh(fs.readFileSync(path.join(d2, 'base.bvh')), { fileName: '2.bvh' });
      expect(Array.from(b1.clip.rotations)).toEqual(Array.from(b2.clip.rotations));
      expect(b1.clip.skeleton.boneCount).toBe(21);
    });
  },
);

describeWithData('odd files: non-uniform scale on a non-humanoid bone (nonuniform_secondary.glb)', () => {
  it('reads: 21 humanoid bones plus Bust_L, the node below it not a bone, with a note', async () => {
    const a = await read('nonuniform_secondary.glb');
    expect(a.skeleton.boneCount).toBe(22);
    expect(a.skeleton.names).toContain('Bust_L');
    expect(a.skeleton.names).not.toContain('Bust_L_end');
    expect(a.mapping.humanoid.filter((b) => b >= 0).length).toBe(21);
    expect(a.warnings).toContain(
      "nodes[21] 'Bust_L': non-uniform scale [1.2, 1, 1]: no humanoid bone below it; the 1 node(s) below it (Bust_L_end) are not skeleton bones and keep their transforms",
    );
    const clip = readGltfClip(a, 'wave');
    for (const [f, deg] of [0, 45, 90].entries()) expectClose(worldPos(clip, f, 'LeftHand'), waveHand(deg));
  });

  it('kind inspect reads it; kind retarget carries Bust_L and Bust_L_end to the output unchanged', async () => {
    const ins = await runKind(['inspect', odd('nonuniform_secondary.glb')]);
    expect(ins.err).toBe('');
    expect(ins.code).toBe(0);
    expect(ins.out).toMatch(/nonuniform_secondary\.glb: glTF, 22 bones, clips: wave/);
    const { bytes, clip, out } = await retargetCli(odd('base.glb'), odd('nonuniform_secondary.glb'), 'wave');
    expect(out).toMatch(/note: nodes\[21\] 'Bust_L': non-uniform scale \[1\.2, 1, 1\]/);
    const doc = await new WebIO().readBinary(bytes);
    const node = (name: string) =>
      doc
        .getRoot()
        .listNodes()
        .find((x) => x.getName() === name)!;
    expect([
      node('Bust_L').getTranslation(),
      node('Bust_L').getRotation(),
      node('Bust_L').getScale(),
    ]).toEqual([
      [0.08, 0.05, 0.1],
      [0, 0, 0, 1],
      [1.2, 1, 1],
    ]);
    expect([node('Bust_L_end').getTranslation(), node('Bust_L_end').getScale()]).toEqual([
      [0, 0, 0.05],
      [1, 1, 1],
    ]);
    // animated: Bust_L keeps its rest rotation in every key, Bust_L_end has no channel
    const channels = doc.getRoot().listAnimations()[0].listChannels();
    expect(channels.some((c) => c.getTargetNode() === node('Bust_L_end'))).toBe(false);
    for (const c of channels.filter((c) => c.getTargetNode() === node('Bust_L'))) {
      expect(c.getTargetPath()).toBe('rotation');
      const v = Array.from(c.getSampler()!.getOutput()!.getArray() as Float32Array);
      expect(Math.max(...v.map((x, i) => Math.abs(x - (i % 4 === 3 ? 1 : 0))))).toBeLessThan(1e-6);
    }
    for (const [f, deg] of [0, 45, 90].entries()) expectClose(worldPos(clip, f, 'LeftHand'), waveHand(deg));
  });

  it('still refuses a non-uniform scale with humanoid bones below it, naming node and bone', async () => {
    const io = new WebIO();
    const doc = await io.readBinary(new Uint8Array(fs.readFileSync(odd('base.glb'))));
    doc
      .getRoot()
      .listNodes()
      .find((x) => x.getName() === 'LeftShoulder')!
      .setScale([1.2, 1, 1]);
    const bytes = await io.writeBinary(doc);
    await expect(readAvatar(bytes, { fileName: 'sheared.glb' })).rejects.toThrow(
      /^sheared\.glb: nodes\[\d+\] 'LeftShoulder': non-uniform scale \[1\.2, 1, 1\] above humanoid bone LeftUpperArm \('LeftUpperArm'\) is not supported/,
    );
  });
});

describeWithData('odd files: root motion on the non-bone Armature node (armature_root_motion.glb)', () => {
  it('the Armature translation is folded into the hips path: hips at z = 0, 1, 2 m at t = 0, 1, 2 s', async () => {
    const a = await read('armature_root_motion.glb');
    const clip = readGltfClip(a, 'walkfwd');
    expect(clip.frameCount).toBe(3);
    expect(clip.frameTime).toBeCloseTo(1, 6);
    for (let f = 0; f < 3; f++) {
      expectClose(worldPos(clip, f, 'Hips'), [0, 1, f]);
      const hand = waveHand(45 * f);
      expectClose(worldPos(clip, f, 'LeftHand'), [hand[0], hand[1], f]);
    }
    expect(clip.warnings).toEqual([
      'root motion: the animated transform of Armature (not skeleton bones) folded into Hips',
    ]);
  });

  it.each([
    ['base.glb', 'an avatar without an Armature'],
    ['armature_root_motion.glb', 'the source avatar itself'],
  ])('kind retarget onto %s (%s): the output GLB and BVH travel, hips z = 0, 1, 2 m', async (target) => {
    const { clip, dir, out } = await retargetCli(odd('armature_root_motion.glb'), odd(target), 'walkfwd');
    expect(out).toMatch(
      /note: root motion: the animated transform of Armature \(not skeleton bones\) folded into Hips/,
    );
    expect(clip.frameCount).toBe(3);
    for (let f = 0; f < 3; f++) expectClose(worldPos(clip, f, 'Hips'), [0, 1, f]);
    const bvh = parseBvh(fs.readFileSync(path.join(dir, 'walkfwd.bvh')), {
      fileName: 'walkfwd.bvh',
      unitScale: 0.01,
    });
    for (let f = 0; f < 3; f++) expectClose(worldPos(bvh.clip, f, 'Hips'), [0, 1, f], 1e-3);
    const ins = await runKind(['inspect', odd('armature_root_motion.glb')]);
    expect([ins.code, ins.err]).toEqual([0, '']);
    expect(ins.out).toMatch(/armature_root_motion\.glb: glTF, 21 bones, clips: walkfwd/);
  });
});

type ByteRange = { byteOffset?: number; byteLength: number; extensions?: Record<string, ByteRange> };

/**
 * The bytes of `file` with part of its GLB BIN chunk overwritten: the range `range(json)` gives
 * (`{byteOffset, byteLength}` in the chunk, e.g. a buffer view).
 */
function withBinBytes(
  file: string,
  range: (json: { bufferViews: ByteRange[] }) => ByteRange,
  value: (i: number) => number,
): Uint8Array {
  const b = new Uint8Array(fs.readFileSync(odd(file)));
  const jsonLength = new DataView(b.buffer, b.byteOffset).getUint32(12, true);
  const { byteOffset = 0, byteLength } = range(
    JSON.parse(new TextDecoder().decode(b.subarray(20, 20 + jsonLength))),
  );
  const bin = 20 + jsonLength + 8;
  for (let i = byteOffset; i < byteOffset + byteLength; i++) b[bin + i] = value(i);
  return b;
}

/** POSITION, JOINTS_0 and WEIGHTS_0 of the first primitive of a GLB, as plain arrays. */
async function geometry(bytes: Uint8Array): Promise<number[][]> {
  const doc = await new WebIO().readBinary(bytes);
  const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
  const attrs = ['POSITION', 'JOINTS_0', 'WEIGHTS_0'].map((k) =>
    Array.from(prim.getAttribute(k)!.getArray()!),
  );
  return attrs as number[][];
}

describe.each([
  ['draco.glb', 'KHR_draco_mesh_compression', 'draco'],
  ['meshopt.glb', 'EXT_meshopt_compression', 'meshopt'],
] as const)('odd files: compressed avatar %s (%s)', (file, ext, key) => {
  if (!fs.existsSync(odd(file))) {
    it.skip(`${file}: shared data not found`, () => {});
    return;
  }

  it('reads with the Node decoders: the skeleton and map of base.glb, its wave clip, a note that it was decoded', async () => {
    const a = await readAvatar(new Uint8Array(fs.readFileSync(odd(file))), {
      fileName: file,
      decoders: NODE_GLTF_DECODERS,
    });
    const base = await read('base.glb');
    expect(a.skeleton.boneCount).toBe(21);
    expect(a.skeleton.names).toEqual(base.skeleton.names);
    expect(Array.from(a.skeleton.humanoid)).toEqual(Array.from(base.skeleton.humanoid));
    expect(a.warnings).toEqual([
      `${ext}: compressed geometry decoded (a GLB written from this avatar is not compressed)`,
    ]);
    const clip = readGltfClip(a, 'wave');
    for (const [f, deg] of [0, 45, 90].entries()) expectClose(worldPos(clip, f, 'LeftHand'), waveHand(deg));
    // the decoded mesh is base.glb's (vertex order may differ: compare as sorted sets of vertices)
    const prim = a.document.getRoot().listMeshes()[0].listPrimitives()[0];
    const pos = Array.from(prim.getAttribute('POSITION')!.getArray() as Float32Array);
    const [basePos] = await geometry(new Uint8Array(fs.readFileSync(odd('base.glb'))));
    expect(pos.length).toBe(basePos.length);
    const sorted = (v: number[]) =>
      Array.from({ length: v.length / 3 }, (_, i) => v.slice(3 * i, 3 * i + 3)).sort(
        (p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2],
      );
    const [sp, sb] = [sorted(pos), sorted(basePos)];
    expect(Math.max(...sp.map((p, i) => Math.max(...p.map((x, c) => Math.abs(x - sb[i][c])))))).toBeLessThan(
      2e-3,
    );
  });

  it(`without a ${key} decoder: one error naming ${ext}`, async () => {
    await expect(readAvatar(new Uint8Array(fs.readFileSync(odd(file))), { fileName: file })).rejects.toThrow(
      new RegExp(
        `^${file.replace('.', '\\.')}: ${ext}: the file's geometry is ${key === 'draco' ? 'Draco' : key}-compressed and no decoder was given`,
      ),
    );
  });

  it('kind inspect reads it; kind retarget onto it writes a decoded GLB (validator clean, base.glb geometry)', async () => {
    const ins = await runKind(['inspect', odd(file)]);
    expect([ins.code, ins.err]).toEqual([0, '']);
    expect(ins.out).toMatch(new RegExp(`${file.replace('.', '\\.')}: glTF, 21 bones, clips: wave`));
    expect(ins.out).toContain(
      `note: ${ext}: compressed geometry decoded (a GLB written from this avatar is not compressed)`,
    );
    const { bytes, clip } = await retargetCli(odd('base.glb'), odd(file), 'wave');
    for (const [f, deg] of [0, 45, 90].entries()) expectClose(worldPos(clip, f, 'LeftHand'), waveHand(deg));
    const doc = await new WebIO().readBinary(bytes);
    expect(
      doc
        .getRoot()
        .listExtensionsUsed()
        .map((e) => e.extensionName),
    ).toEqual([]);
    expect(doc.getRoot().listBuffers().length).toBe(1);
    const [pos, joints, weights] = await geometry(bytes);
    expect(pos.length).toBe(63 * 3);
    expect(joints.length).toBe(63 * 4);
    expect(weights.length).toBe(63 * 4);
    // and as a source clip
    const src = await retargetCli(odd(file), odd('base.glb'), 'wave');
    for (const [f, deg] of [0, 45, 90].entries())
      expectClose(worldPos(src.clip, f, 'LeftHand'), waveHand(deg));
  });
});

describeWithData('odd files: damaged compressed data gives an error naming the extension', () => {
  it('draco.glb with its Draco bytes overwritten', async () => {
    // the Draco data: the buffer view the primitive's extension names (bufferViews[2])
    const bytes = withBinBytes(
      'draco.glb',
      (json) => json.bufferViews[2],
      (i) => (i * 7) & 255,
    );
    await expect(readAvatar(bytes, { fileName: 'bad.glb', decoders: NODE_GLTF_DECODERS })).rejects.toThrow(
      /^bad\.glb: KHR_draco_mesh_compression: could not decode the compressed geometry/,
    );
  });

  it('meshopt.glb with its compressed vertex bytes overwritten', async () => {
    // the compressed positions: where bufferViews[0].extensions.EXT_meshopt_compression points
    const bytes = withBinBytes(
      'meshopt.glb',
      (json) => json.bufferViews[0].extensions!.EXT_meshopt_compression,
      () => 0xff,
    );
    await expect(readAvatar(bytes, { fileName: 'bad.glb', decoders: NODE_GLTF_DECODERS })).rejects.toThrow(
      /^bad\.glb: EXT_meshopt_compression: could not decode the compressed geometry/,
    );
  });

  it('a view of the URI-less fallback buffer without the extension is named', async () => {
    const b = new Uint8Array(fs.readFileSync(odd('meshopt.glb')));
    const view = new DataView(b.buffer, b.byteOffset);
    const jsonLength = view.getUint32(12, true);
    const json = JSON.parse(new TextDecoder().decode(b.subarray(20, 20 + jsonLength)));
    delete json.bufferViews[1].extensions;
    const text = new TextEncoder().encode(JSON.stringify(json));
    const padded = new Uint8Array(Math.ceil(text.length / 4) * 4).fill(0x20);
    padded.set(text);
    const rest = b.subarray(20 + jsonLength);
    const out = new Uint8Array(20 + padded.length + rest.length);
    out.set(b.subarray(0, 20));
    out.set(padded, 20);
    out.set(rest, 20 + padded.length);
    const v = new DataView(out.buffer);
    v.setUint32(8, out.length, true);
    v.setUint32(12, padded.length, true);
    await expect(readAvatar(out, { fileName: 'bad.glb', decoders: NODE_GLTF_DECODERS })).rejects.toThrow(
      /^bad\.glb: \/bufferViews\/1: views buffer 1, an EXT_meshopt_compression fallback buffer without uri, but has no EXT_meshopt_compression extension/,
    );
  });
});
