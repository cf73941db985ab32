/**
 * glTF input robustness: `.gltf` with external files (`resources`), malformed-but-parsable JSON
 * (errors name the field as a JSON pointer, never a TypeError), non-finite node transforms and inverse
 * bind matrices, and short bone lists in warnings.
 */
import * as fs from 'node:fs';
import { Document, type Node as GltfNode, WebIO } from '@gltf-transform/core';
import fc from 'fast-check';
import { mat4 } from 'gl-matrix';
import { createClip } from '../src/core';
import {
  type Avatar,
  decodeDataUri,
  GltfError,
  nameList,
  readAvatar,
  readGltfClip,
  writeRetargetedGlb,
} from '../src/io/gltf';
import type { HumanoidOverride } from '../src/io/humanoidMap';
import { AVATARS, dataPath, describeWithData } from './helpers/data';

const validator = require('gltf-validator') as {
  validateBytes(
    b: Uint8Array,
    o?: { maxIssues?: number; externalResourceFunction?: (uri: string) => Promise<Uint8Array> },
  ): Promise<{
    issues: { numErrors: number; messages: { code: string; severity: number; message: string }[] };
  }>;
};

async function validatorErrors(glb: Uint8Array): Promise<string[]> {
  const report = await validator.validateBytes(glb, { maxIssues: 50 });
  return report.issues.messages.filter((m) => m.severity === 0).map((m) => `${m.code}: ${m.message}`);
}

// ---------------------------------------------------------------------------------------------
// GLB and .gltf helpers.

const encoder = new TextEncoder();

/** The JSON chunk text and the BIN chunk of a GLB. */
function glbParts(glb: Uint8Array): { text: string; bin: Uint8Array } {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const jsonLength = view.getUint32(12, true);
  const text = new TextDecoder().decode(glb.subarray(20, 20 + jsonLength));
  const binStart = 20 + jsonLength;
  const binLength = binStart + 8 <= glb.length ? view.getUint32(binStart, true) : 0;
  return { text, bin: glb.subarray(binStart + 8, binStart + 8 + binLength) };
}

/** A GLB from a JSON text and a BIN chunk (lengths consistent, chunks padded to 4 bytes). */
function makeGlb(text: string, bin: Uint8Array): Uint8Array {
  let padded = text;
  while (padded.length % 4 !== 0) padded += ' ';
  const json = encoder.encode(padded);
  const binPadded = (bin.length + 3) & ~3;
  const total = 20 + json.length + (bin.length > 0 ? 8 + binPadded : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x46546c67, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, json.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  out.set(json, 20);
  if (bin.length > 0) {
    view.setUint32(20 + json.length, binPadded, true);
    view.setUint32(24 + json.length, 0x004e4942, true);
    out.set(bin, 28 + json.length);
  }
  return out;
}

type Json = Record<string, unknown> & {
  nodes: {
    name?: string;
    children?: number[];
    translation?: number[];
    rotation?: number[];
    scale?: number[];
    matrix?: number[];
  }[];
  skins: { joints: number[]; inverseBindMatrices?: number }[];
  accessors: { bufferView?: number; byteOffset?: number; count: number }[];
  bufferViews: { buffer: number; byteOffset?: number; byteLength: number }[];
  animations: { channels: { sampler: number; target: { node?: number } }[]; samplers: { input: number }[] }[];
  buffers: { uri?: string; byteLength: number }[];
  images?: { uri?: string }[];
  scenes: { nodes: number[] }[];
};

/** A GLB with its JSON edited (as an object, then optionally as text), BIN chunk kept. */
function editGlb(glb: Uint8Array, edit: (json: Json) => void, text?: (t: string) => string): Uint8Array {
  const parts = glbParts(glb);
  const json = JSON.parse(parts.text) as Json;
  edit(json);
  const out = JSON.stringify(json);
  return makeGlb(text ? text(out) : out, parts.bin);
}

/** glTF Transform's split of a document into `.gltf` JSON bytes and external files (Blender's "glTF Separate"). */
async function separate(doc: Document, basename: string) {
  const { json, resources } = await new WebIO().writeJSON(doc, { basename });
  return { json: json as unknown as Json, text: encoder.encode(JSON.stringify(json)), files: resources };
}

// ---------------------------------------------------------------------------------------------
// A small skinned, textured, animated humanoid: Armature (0.01) > Hips > Spine > Chest > Neck > Head,
// arms off the chest, legs off the hips; one skinned triangle with a textured material.

const MAP: HumanoidOverride = {
  Hips: 'Hips',
  Spine: 'Spine',
  Chest: 'Chest',
  Neck: 'Neck',
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

/** A fake PNG (signature + bytes): glTF Transform and the validator's GLB checks never decode it. */
const IMAGE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4);

function smallDoc(options: { secondBuffer?: boolean; imageUri?: string } = {}): {
  doc: Document;
  nodes: Record<string, GltfNode>;
} {
  const doc = new Document();
  const buffer = doc.createBuffer('main');
  const animBuffer = options.secondBuffer ? doc.createBuffer('anim') : buffer;
  const scene = doc.createScene('Scene');
  const nodes: Record<string, GltfNode> = {};
  const armature = doc.createNode('Armature').setScale([0.01, 0.01, 0.01]);
  scene.addChild(armature);
  const add = (name: string, parent: GltfNode, t: [number, number, number]) => {
    const node = doc.createNode(name).setTranslation(t);
    parent.addChild(node);
    nodes[name] = node;
    return node;
  };
  const hips = add('Hips', armature, [0, 100, 0]);
  const chest = add('Chest', add('Spine', hips, [0, 10, 0]), [0, 15, 0]);
  add('Head', add('Neck', chest, [0, 25, 0]), [0, 10, 0]);
  for (const [side, x] of [
    ['Left', 1],
    ['Right', -1],
  ] as const) {
    add(`${side}Hand`, add(`${side}ForeArm`, add(`${side}Arm`, chest, [15 * x, 20, 0]), [25 * x, 0, 0]), [
      25 * x,
      0,
      0,
    ]);
    add(
      `${side}Foot`,
      add(`${side}Leg`, add(`${side}UpLeg`, hips, [10 * x, -5, 0]), [0, -45, 0]),
      [0, -45, 0],
    );
  }
  const joints = Object.values(nodes);
  const ibm = new Float32Array(16 * joints.length);
  const m = new Float64Array(16);
  joints.forEach((j, k) => {
    mat4.invert(m, j.getWorldMatrix() as unknown as mat4);
    ibm.set(m, 16 * k);
  });
  const skin = doc.createSkin('skin');
  for (const j of joints) skin.addJoint(j);
  skin.setInverseBindMatrices(doc.createAccessor('ibm').setType('MAT4').setArray(ibm).setBuffer(buffer));
  const acc = (type: 'SCALAR' | 'VEC3' | 'VEC4', array: Float32Array | Uint16Array, b = buffer) =>
    doc.createAccessor().setType(type).setArray(array).setBuffer(b);
  const texture = doc.createTexture('skin').setImage(IMAGE).setMimeType('image/png');
  if (options.imageUri) texture.setURI(options.imageUri);
  const material = doc.createMaterial('body').setBaseColorTexture(texture);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.of(0, 1, 0, 0.1, 1, 0, 0, 1.1, 0)))
    .setAttribute(
      'TEXCOORD_0',
      doc
        .createAccessor()
        .setType('VEC2')
        .setArray(Float32Array.of(0, 0, 1, 0, 0, 1))
        .setBuffer(buffer),
    )
    .setAttribute('JOINTS_0', acc('VEC4', Uint16Array.of(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0)))
    .setAttribute('WEIGHTS_0', acc('VEC4', Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)))
    .setIndices(acc('SCALAR', Uint16Array.of(0, 1, 2)))
    .setMaterial(material);
  const body = doc.createNode('Body').setMesh(doc.createMesh('body').addPrimitive(prim)).setSkin(skin);
  scene.addChild(body);
  const channel = (
    anim: import('@gltf-transform/core').Animation,
    node: GltfNode,
    path: 'translation' | 'rotation' | 'scale',
    values: number[],
  ) => {
    const s = doc
      .createAnimationSampler()
      .setInput(acc('SCALAR', Float32Array.of(0, 0.5, 1), animBuffer))
      .setOutput(acc(path === 'rotation' ? 'VEC4' : 'VEC3', Float32Array.from(values), animBuffer));
    anim.addSampler(s);
    anim.addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(s));
  };
  const wave = doc.createAnimation('wave');
  const h = Math.SQRT1_2;
  channel(wave, nodes.LeftArm, 'rotation', [0, 0, 0, 1, 0, 0, 0.3826834, 0.9238795, 0, 0, h, h]);
  channel(wave, nodes.Hips, 'translation', [0, 100, 0, 0, 100, 5, 0, 100, 10]);
  // scale channels on 8 bones (ignored by readGltfClip, listed in a warning)
  const scaled = ['Hips', 'Spine', 'Chest', 'Neck', 'Head', 'LeftArm', 'LeftForeArm', 'LeftHand'];
  for (const name of scaled) channel(wave, nodes[name], 'scale', [1, 1, 1, 1, 1.1, 1, 1, 1, 1]);
  return { doc, nodes };
}

const writeGlb = (doc: Document) => new WebIO().writeBinary(doc);

/** Every error readAvatar/readGltfClip/writeRetargetedGlb throws on `bytes`, or null when all work. */
async function pipelineError(
  bytes: Uint8Array,
  fileName: string,
  files?: Record<string, Uint8Array>,
): Promise<unknown> {
  try {
    const av = await readAvatar(bytes, {
      fileName,
      mapOverride: MAP,
      resources: files ? (uri) => files[uri] : undefined,
    });
    for (const name of av.clipNames) readGltfClip(av, name);
    await writeRetargetedGlb(av, createClip(av.skeleton, 2, 1 / 30, 'rest'));
    return null;
  } catch (e) {
    return e;
  }
}

// ---------------------------------------------------------------------------------------------

describe('glTF input: .gltf with external files', () => {
  it('reads a separate .gltf + .bin + image through resources, asking by percent-decoded path, and writes one GLB', async () => {
    const { doc } = smallDoc({ secondBuffer: true, imageUri: 'tex/skin a.png' });
    // the same avatar as a GLB (one buffer, embedded image) for comparison
    const glbAvatar = await readAvatar(await writeGlb(smallDoc().doc), {
      fileName: 'small.glb',
      mapOverride: MAP,
    });
    const sep = await separate(doc, 'small');
    // two buffers (main + animation) and the image as separate files, the image URI percent-encoded
    const bins = sep.json.buffers.map((b) => b.uri!);
    expect(bins).toHaveLength(2);
    const image = sep.json.images![0];
    const imageBytes = sep.files[image.uri!];
    image.uri = 'tex/skin%20a.png';
    const text = encoder.encode(JSON.stringify(sep.json));
    const files: Record<string, Uint8Array> = { 'tex/skin a.png': imageBytes };
    for (const b of bins) files[b] = sep.files[b];
    const asked: string[] = [];
    const av = await readAvatar(text, {
      fileName: 'dir/small.gltf',
      mapOverride: MAP,
      resources: (path) => {
        asked.push(path);
        return files[path];
      },
    });
    expect(asked.sort()).toEqual([...bins, 'tex/skin a.png'].sort());
    expect(Object.keys(av.resources).sort()).toEqual([...bins, 'tex/skin%20a.png'].sort());
    expect(av.skeleton.names).toEqual(glbAvatar.skeleton.names);
    expect(Array.from(av.skeleton.restTranslations)).toEqual(Array.from(glbAvatar.skeleton.restTranslations));
    const clip = readGltfClip(av, 'wave');
    expect(Array.from(clip.rotations)).toEqual(Array.from(readGltfClip(glbAvatar, 'wave').rotations));
    // the writer embeds both buffers and the image: one buffer, the image in a buffer view, valid
    const out = await writeRetargetedGlb(av, clip);
    expect(await validatorErrors(out)).toEqual([]);
    const outJson = JSON.parse(glbParts(out).text) as Json;
    expect(outJson.buffers).toHaveLength(1);
    expect(outJson.buffers[0].uri).toBeUndefined();
    expect(outJson.images).toHaveLength(1);
    expect(outJson.images![0].uri).toBeUndefined();
    const back = await readAvatar(out, { fileName: 'out.glb', mapOverride: MAP });
    const img = back.document.getRoot().listTextures()[0].getImage()!;
    expect(Array.from(img)).toEqual(Array.from(IMAGE));
    expect(Array.from(readGltfClip(back).rotations)).toEqual(Array.from(clip.rotations));
  });

  it('names the file and the URI of a missing buffer or image, and refuses URIs with a scheme', async () => {
    const sep = await separate(smallDoc().doc, 'small');
    const files = sep.files;
    const imageUri = sep.json.images![0].uri!;
    const read = (text: Uint8Array, resources?: (uri: string) => Uint8Array | undefined) =>
      readAvatar(text, { fileName: 'model.gltf', mapOverride: MAP, resources }).then(
        () => 'read',
        (e: Error) => (e instanceof GltfError ? e.message : `not a GltfError: ${e}`),
      );
    const needs = '(a .gltf with external files needs them next to it)';
    expect(await read(sep.text)).toBe(`model.gltf: buffer 0 'small.bin' not found ${needs}`);
    expect(await read(sep.text, () => undefined)).toBe(`model.gltf: buffer 0 'small.bin' not found ${needs}`);
    expect(await read(sep.text, (u) => (u === 'small.bin' ? files[u] : undefined))).toBe(
      `model.gltf: image 0 '${imageUri}' not found ${needs}`,
    );
    expect(await read(sep.text, (u) => files[u])).toBe('read');
    // a .bin shorter than the buffer's byteLength
    const length = sep.json.buffers[0].byteLength;
    expect(await read(sep.text, (u) => (u === 'small.bin' ? files[u].subarray(0, 100) : files[u]))).toBe(
      `model.gltf: /buffers/0/byteLength: ${length} bytes, but 'small.bin' holds 100`,
    );
    // the lookup failing is reported with the URI
    expect(
      await read(sep.text, () => {
        throw new Error('EACCES: permission denied');
      }),
    ).toBe("model.gltf: buffer 0 'small.bin' could not be read: EACCES: permission denied");
    const remote = encoder.encode(
      JSON.stringify({
        ...sep.json,
        buffers: [{ ...sep.json.buffers[0], uri: 'https://example.com/a.bin' }],
      }),
    );
    expect(await read(remote, (u) => files[u])).toBe(
      "model.gltf: buffer 0 'https://example.com/a.bin': only data: URIs and relative file paths are supported",
    );
  });

  it('decodes data: URIs (base64, URL-safe base64, percent-encoded) like Node does (property)', () => {
    expect(Array.from(decodeDataUri('data:,A%20b')!.bytes)).toEqual([65, 32, 98]);
    expect(decodeDataUri('data:image/png;base64,AAECAw==')).toEqual({
      mediaType: 'image/png',
      bytes: Uint8Array.of(0, 1, 2, 3),
    });
    expect(decodeDataUri('data:;base64,A')).toBeNull();
    expect(decodeDataUri('data:;base64,AA*A')).toBeNull();
    expect(decodeDataUri('data:no-comma')).toBeNull();
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, url) => {
        const text = Buffer.from(bytes).toString(url ? 'base64url' : 'base64');
        const got = decodeDataUri(`data:application/octet-stream;base64,${text}`);
        expect(got && Array.from(got.bytes)).toEqual(Array.from(bytes));
      }),
    );
  });
});

describeWithData('glTF input: Xbot as Blender-style glTF Separate', () => {
  let glb: Uint8Array;
  let glbAvatar: Avatar;
  let sep: { json: Json; text: Uint8Array; files: Record<string, Uint8Array> };
  beforeAll(async () => {
    glb = new Uint8Array(fs.readFileSync(dataPath(AVATARS[0])));
    glbAvatar = await readAvatar(glb, { fileName: 'Xbot.glb' });
    // What Blender's "glTF Separate" writes: the GLB's JSON with buffer 0 given a uri, the BIN chunk as
    // the .bin file (Xbot has no textures). Done by hand, so the JSON numbers stay exactly as in the GLB
    // (glTF Transform's writer would drop near-identity rotations and scales).
    const parts = glbParts(glb);
    const json = JSON.parse(parts.text) as Json;
    expect(json.buffers).toHaveLength(1);
    json.buffers[0].uri = 'Xbot.bin';
    sep = {
      json,
      text: encoder.encode(JSON.stringify(json)),
      files: { 'Xbot.bin': parts.bin.subarray(0, json.buffers[0].byteLength) },
    };
  });

  it('reads Xbot.gltf + Xbot.bin to the same skeleton, clips and written GLB as Xbot.glb', async () => {
    expect(Object.keys(sep.files)).toEqual(['Xbot.bin']);
    const av = await readAvatar(sep.text, { fileName: 'Xbot.gltf', resources: (u) => sep.files[u] });
    const a = av.skeleton;
    const b = glbAvatar.skeleton;
    expect(a.boneCount).toBe(67);
    expect(a.names).toEqual(b.names);
    expect(Array.from(a.parents)).toEqual(Array.from(b.parents));
    expect(Array.from(a.restTranslations)).toEqual(Array.from(b.restTranslations));
    expect(Array.from(a.restRotations)).toEqual(Array.from(b.restRotations));
    expect(Array.from(a.humanoid)).toEqual(Array.from(b.humanoid));
    expect(av.clipNames).toEqual(glbAvatar.clipNames);
    const clip = readGltfClip(av, 'walk');
    const clipGlb = readGltfClip(glbAvatar, 'walk');
    expect(Array.from(clip.rotations)).toEqual(Array.from(clipGlb.rotations));
    const out = await writeRetargetedGlb(av, clip);
    expect(await validatorErrors(out)).toEqual([]);
    expect(Array.from(out)).toEqual(Array.from(await writeRetargetedGlb(glbAvatar, clipGlb)));
  });

  it('without Xbot.bin: a clear error naming the file and the URI', async () => {
    const err = await readAvatar(sep.text, { fileName: 'Xbot.gltf' }).catch((e) => e);
    expect(err).toBeInstanceOf(GltfError);
    expect(err.message).toBe(
      "Xbot.gltf: buffer 0 'Xbot.bin' not found (a .gltf with external files needs them next to it)",
    );
  });

  it('a joint index out of range names the JSON pointer and the node count', async () => {
    const json = JSON.parse(JSON.stringify(sep.json)) as Json;
    json.skins[0].joints[3] = 999;
    const err = await readAvatar(encoder.encode(JSON.stringify(json)), {
      fileName: 'Xbot.gltf',
      resources: (u) => sep.files[u],
    }).catch((e) => e);
    expect(err).toBeInstanceOf(GltfError);
    expect(err.message).toBe(
      `Xbot.gltf: /skins/0/joints/3: node index 999 out of range (${json.nodes.length} nodes)`,
    );
  });

  it('warnings list at most 5 bone names (Xbot: scale channels on all 67 bones)', () => {
    const clip = readGltfClip(glbAvatar, 'walk');
    const names = glbAvatar.skeleton.names;
    expect(clip.warnings).toContain(
      `scale channels ignored (the skeleton is scale-free) on 67 bones: ${names.slice(0, 5).join(', ')} ... and 62 more`,
    );
    for (const w of clip.warnings)
      expect(names.filter((n) => w.includes(`${n},`)).length).toBeLessThanOrEqual(5);
  });
});

describe('glTF input: malformed JSON gives a GltfError naming the field', () => {
  let good: Uint8Array;
  let json: Json;
  beforeAll(async () => {
    good = await writeGlb(smallDoc().doc);
    json = JSON.parse(glbParts(good).text);
  });

  const cases: [string, (j: Json) => void, string | RegExp][] = [
    [
      'joint out of range',
      (j) => (j.skins[0].joints[3] = 999),
      '/skins/0/joints/3: node index 999 out of range (19 nodes)',
    ],
    [
      'child out of range',
      (j) => (j.nodes[0].children = [12345]),
      '/nodes/0/children/0: node index 12345 out of range (19 nodes)',
    ],
    [
      'child not an index',
      (j) => (j.nodes[0].children = [1.5]),
      '/nodes/0/children/0: 1.5 is not a node index',
    ],
    [
      'node with two parents',
      (j) => j.nodes[3].children!.push(2),
      /^\/nodes\/3\/children\/\d+: node 2 is already a child of node 1 \(a node has one parent\)$/,
    ],
    [
      'cycle',
      (j) => {
        j.nodes[2].children = [...(j.nodes[2].children ?? []), 0];
        j.scenes[0].nodes = j.scenes[0].nodes.filter((n) => n !== 0);
      },
      '/nodes/0: the node hierarchy has a cycle',
    ],
    [
      'scene node not a root',
      (j) => j.scenes[0].nodes.push(2),
      /^\/scenes\/0\/nodes\/2: node 2 is a child of node 1, not a root node$/,
    ],
    [
      'channel node',
      (j) => (j.animations[0].channels[0].target.node = 40),
      '/animations/0/channels/0/target/node: node index 40 out of range (19 nodes)',
    ],
    [
      'channel sampler',
      (j) => (j.animations[0].channels[1].sampler = 77),
      /^\/animations\/0\/channels\/1\/sampler: sampler index 77 out of range \(\d+ samplers in \/animations\/0\)$/,
    ],
    [
      'sampler input',
      (j) => (j.animations[0].samplers[0].input = -1),
      '/animations/0/samplers/0/input: -1 is not an accessor index',
    ],
    [
      'accessor bufferView',
      (j) => (j.accessors[0].bufferView = 500),
      /^\/accessors\/0\/bufferView: bufferView index 500 out of range \(\d+ bufferViews\)$/,
    ],
    [
      'bufferView buffer',
      (j) => (j.bufferViews[0].buffer = 1),
      '/bufferViews/0/buffer: buffer index 1 out of range (1 buffers)',
    ],
    [
      'accessor count past its bufferView',
      (j) => (j.accessors[0].count = 100000),
      /^\/accessors\/0: 100000 elements of \d+ bytes from byte \d+ need \d+ bytes, bufferView \d+ has \d+$/,
    ],
    [
      'bufferView past the buffer',
      (j) => (j.bufferViews[0].byteLength = 10 ** 8),
      /^\/bufferViews\/0: bytes \d+\.\.1000\d+ exceed buffer 0 \(\d+ bytes\)$/,
    ],
    [
      'IBM accessor not MAT4',
      (j) =>
        (j.skins[0].inverseBindMatrices = j.accessors.findIndex(
          (a) => (a as { type?: string }).type === 'VEC3',
        )),
      /^\/skins\/0\/inverseBindMatrices: accessor \d+ is VEC3 of type 5126, expected MAT4 float \(5126\)$/,
    ],
    [
      'mesh attribute',
      (j) =>
        ((
          j.meshes as { primitives: { attributes: Record<string, number> }[] }[]
        )[0].primitives[0].attributes.POSITION = 99),
      /^\/meshes\/0\/primitives\/0\/attributes\/POSITION: accessor index 99 out of range/,
    ],
    ['no asset', (j) => delete j.asset, '/asset: missing or not an object'],
    [
      'no joints',
      (j) => delete (j.skins[0] as Partial<Json['skins'][0]>).joints,
      '/skins/0/joints: missing (an array)',
    ],
    ['nodes not an array', (j) => (j.nodes = {} as never), '/nodes: expected an array'],
  ];

  it.each(cases)('%s', async (_name, edit, message) => {
    const err = await readAvatar(editGlb(good, edit), { fileName: 'bad.glb', mapOverride: MAP }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(GltfError);
    if (typeof message === 'string') expect(err.message).toBe(`bad.glb: ${message}`);
    else expect(err.message.slice('bad.glb: '.length)).toMatch(message);
  });

  it('the known 19 nodes (the case table relies on it)', () => {
    expect(json.nodes).toHaveLength(19);
    expect(json.nodes[1].name).toBe('Hips');
  });

  it('a truncated BIN chunk: shorter than buffer 0, or cut off in the file', async () => {
    const { text, bin } = glbParts(good);
    const short = makeGlb(text, bin.subarray(0, bin.length - 64));
    const err = await readAvatar(short, { fileName: 'short.glb' }).catch((e) => e);
    expect(err).toBeInstanceOf(GltfError);
    expect(err.message).toBe(
      `short.glb: /buffers/0/byteLength: ${json.buffers[0].byteLength} bytes, but the GLB BIN chunk holds ${bin.length - 64}`,
    );
    // file cut inside the BIN chunk, header length fixed up: the chunk header overruns the file
    const cut = good.slice(0, good.length - 64);
    new DataView(cut.buffer).setUint32(8, cut.length, true);
    const err2 = await readAvatar(cut, { fileName: 'cut.glb' }).catch((e) => e);
    expect(err2.message).toMatch(/^cut\.glb: truncated GLB: the BIN chunk is \d+ bytes but only \d+ remain$/);
  });

  it('random corruptions (delete a key, an index out of range, a truncated BIN) only ever throw GltfError (property)', async () => {
    const paths = (value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []) => {
      if (value !== null && typeof value === 'object') {
        for (const [k, v] of Object.entries(value)) {
          const key = Array.isArray(value) ? Number(k) : k;
          out.push([...prefix, key]);
          paths(v, [...prefix, key], out);
        }
      }
      return out;
    };
    const sep = await separate(smallDoc().doc, 'small');
    const pathsOf = (root: Json) => {
      const all = paths(root);
      const numbers = all.filter(
        (p) => typeof p.reduce<unknown>((o, k) => (o as never)[k], root) === 'number',
      );
      return { all, numbers };
    };
    const glbPaths = pathsOf(json);
    const gltfPaths = pathsOf(sep.json);
    const corruption = fc.oneof(
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({
        kind: fc.constant('set' as const),
        at: fc.nat(),
        value: fc.oneof(
          fc.constantFrom<unknown>(-1, 0.5, 1e9, 2 ** 32, 'x', null, [], {}, true),
          fc.integer({ min: 1, max: 300 }).map((k) => ({ add: k })),
        ),
      }),
      fc.record({
        kind: fc.constant('truncate' as const),
        bytes: fc.integer({ min: 1, max: 4000 }),
        fix: fc.boolean(),
      }),
    );
    const stats = { ok: 0, pointer: 0, other: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(corruption, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (list, asGltf) => {
          const j = JSON.parse(JSON.stringify(asGltf ? sep.json : json));
          let bin = asGltf ? sep.files['small.bin'] : glbParts(good).bin;
          let cutFile = 0;
          for (const c of list) {
            if (c.kind === 'truncate') {
              if (c.fix || asGltf) bin = bin.subarray(0, Math.max(0, bin.length - c.bytes));
              else cutFile = c.bytes;
              continue;
            }
            const { all, numbers } = asGltf ? gltfPaths : glbPaths;
            const pool = c.kind === 'delete' ? all : numbers;
            const path = pool[c.at % pool.length];
            const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as never)?.[k], j) as
              | Record<string | number, unknown>
              | undefined;
            if (!parent || typeof parent !== 'object') continue;
            const key = path[path.length - 1];
            if (c.kind === 'delete') {
              if (Array.isArray(parent)) parent.splice(Number(key), 1);
              else delete parent[key];
            } else if (typeof parent[key] === 'number') {
              const v = c.value as { add?: number };
              parent[key] =
                v !== null && typeof v === 'object' && 'add' in v
                  ? (parent[key] as number) + v.add!
                  : c.value;
            }
          }
          const text = JSON.stringify(j);
          let error: unknown;
          if (asGltf) {
            error = await pipelineError(encoder.encode(text), 'small.gltf', {
              ...sep.files,
              'small.bin': bin,
            });
          } else {
            let bytes = makeGlb(text, bin);
            if (cutFile > 0) bytes = bytes.subarray(0, Math.max(0, bytes.length - cutFile));
            error = await pipelineError(bytes, 'small.glb');
          }
          if (error === null) {
            stats.ok++;
            return;
          }
          expect(error).toBeInstanceOf(GltfError);
          expect((error as Error).message).toMatch(/^small\.(glb|gltf): /);
          if (/^small\.\w+: \/\w/.test((error as Error).message)) stats.pointer++;
          else stats.other++;
        },
      ),
      { numRuns: 400 },
    );
    // the corruptions exercise both outcomes, and most rejections name a JSON pointer
    expect(stats.ok).toBeGreaterThan(0);
    expect(stats.pointer).toBeGreaterThan(stats.other);
  });
});

describe('glTF input: non-finite numbers and zero rotations', () => {
  let good: Uint8Array;
  beforeAll(async () => {
    good = await writeGlb(smallDoc().doc);
  });
  const read = (bytes: Uint8Array) =>
    readAvatar(bytes, { fileName: 'nan.glb', mapOverride: MAP }).then(
      () => 'read',
      (e: Error) => (e instanceof GltfError ? e.message : `not a GltfError: ${e}`),
    );
  // JSON has no NaN/Infinity literals, but 1e999 parses to Infinity.
  const MARK = 123456.5;
  const withMark = (edit: (j: Json) => void, literal: string) =>
    editGlb(good, edit, (t) => t.split(String(MARK)).join(literal));

  it('rejects a node translation, rotation, scale or matrix holding Infinity, naming node and field', async () => {
    expect(await read(withMark((j) => (j.nodes[1].translation = [0, MARK, 0]), '1e999'))).toBe(
      "nan.glb: /nodes/1/translation: [0, Infinity, 0] is not finite (node 'Hips')",
    );
    expect(await read(withMark((j) => (j.nodes[3].rotation = [0, 0, MARK, 1]), '-1e999'))).toBe(
      "nan.glb: /nodes/3/rotation: [0, 0, -Infinity, 1] is not finite (node 'Chest')",
    );
    expect(await read(withMark((j) => (j.nodes[0].scale = [MARK, 1, 1]), '1e999'))).toBe(
      "nan.glb: /nodes/0/scale: [Infinity, 1, 1] is not finite (node 'Armature')",
    );
    // also on a node that is not a bone (the mesh node): the written GLB would be invalid
    expect(await read(withMark((j) => (j.nodes[18].translation = [MARK, 0, 0]), '1e999'))).toBe(
      "nan.glb: /nodes/18/translation: [Infinity, 0, 0] is not finite (node 'Body')",
    );
    const m = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, MARK, 0, 0, 1];
    expect(
      await read(
        withMark((j) => {
          delete j.nodes[2].translation;
          j.nodes[2].matrix = m;
        }, '1e999'),
      ),
    ).toBe(
      `nan.glb: /nodes/2/matrix: [${m.join(', ').replace(String(MARK), 'Infinity')}] is not finite (node 'Spine')`,
    );
  });

  it('rejects a zero-length rotation and a matrix that does not decompose', async () => {
    expect(await read(editGlb(good, (j) => (j.nodes[5].rotation = [0, 0, 0, 0])))).toBe(
      "nan.glb: /nodes/5/rotation: [0, 0, 0, 0] has zero length: not a rotation (node 'Head')",
    );
    expect(
      await read(
        editGlb(good, (j) => {
          delete j.nodes[2].translation;
          j.nodes[2].matrix = new Array(16).fill(0);
        }),
      ),
    ).toBe(
      "nan.glb: /nodes/2/matrix: does not give a finite translation/rotation/scale with a non-zero rotation (node 'Spine')",
    );
    // a tiny but non-zero rotation is normalised as before
    const tiny = await readAvatar(
      editGlb(good, (j) => (j.nodes[5].rotation = [0, 0, 0, 1e-3])),
      { fileName: 'tiny.glb', mapOverride: MAP },
    );
    expect(Array.from(tiny.skeleton.restRotations.subarray(4 * 4, 4 * 4 + 4))).toEqual([0, 0, 0, 1]);
  });

  it('rejects a NaN in the inverse bind matrices, naming the accessor, skin, matrix and joint', async () => {
    const parts = glbParts(good);
    const json = JSON.parse(parts.text) as Json;
    const a = json.skins[0].inverseBindMatrices!;
    const acc = json.accessors[a];
    const at = (json.bufferViews[acc.bufferView!].byteOffset ?? 0) + (acc.byteOffset ?? 0) + 64 * 3 + 4 * 13;
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const bin = parts.bin.slice();
      new DataView(bin.buffer).setFloat32(at, bad, true);
      const joint = json.nodes[json.skins[0].joints[3]].name;
      const message = await read(makeGlb(parts.text, bin));
      expect(message).toMatch(
        new RegExp(
          `^nan\\.glb: /accessors/${a}: inverse bind matrix 3 of /skins/0 \\(joint '${joint}'\\) is not finite: \\[.*${bad}.*\\]$`,
        ),
      );
    }
    expect(await read(good)).toBe('read');
  });
});

describe('glTF input: bone lists in warnings', () => {
  it('nameList shows at most 5 names, then how many more', () => {
    expect(nameList([])).toBe('');
    expect(nameList(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c, d, e');
    expect(nameList(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('a, b, c, d, e ... and 1 more');
    expect(nameList(new Set(['a', 'b', 'c']), 2)).toBe('a, b ... and 1 more');
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ minLength: 1, maxLength: 4 }).map((s) => s.replace(/,/g, ';')),
          { maxLength: 80 },
        ),
        (names) => {
          const text = nameList(names);
          const shown = text === '' ? [] : text.split(' ... and ')[0].split(', ');
          expect(shown).toEqual(names.slice(0, 5));
          if (names.length > 5) expect(text.endsWith(` ... and ${names.length - 5} more`)).toBe(true);
        },
      ),
    );
  });

  it('readGltfClip lists 5 of the 8 scale-animated bones and counts the rest', async () => {
    const av = await readAvatar(await writeGlb(smallDoc().doc), { fileName: 'small.glb', mapOverride: MAP });
    const clip = readGltfClip(av, 'wave');
    expect(clip.warnings).toEqual([
      'scale channels ignored (the skeleton is scale-free) on 8 bones: Hips, Spine, Chest, Neck, Head ... and 3 more',
    ]);
  });
});
