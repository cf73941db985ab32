/**
 * Whatever `kind retarget` writes, the project's own readers read, with the humanoid map the retarget
 * used (issue 10, section 5): every avatar in the shared data (those the avatar reader accepts),
 * a short real take retargeted onto it, the GLB read back by `kind inspect` and by the reader `kind qa`
 * uses. Also: the no-skin warning appears exactly for the avatars whose meshes no skin binds.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { RetargetSummary } from '../src/cli/retarget';
import { createClip, HUMAN_BONE_NAMES } from '../src/core';
import { humanoidExtras, parseGltfJson, readAvatar, writeRetargetedGlb } from '../src/io';
import { loadAvatar, loadSource } from '../src/io/node';
import { dataPath, describeWithData, HAS_SHARED_DATA, SHARED_DATA } from './helpers/data';
import { runKind } from './helpers/runCli';

const TAKE = 'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh';

/** Every .glb/.gltf/.vrm under the shared data. */
function avatarFiles(): string[] {
  if (!HAS_SHARED_DATA) return [];
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(glb|gltf|vrm)$/i.test(e.name)) out.push(path.relative(SHARED_DATA, p));
    }
  };
  walk(SHARED_DATA);
  return out.sort();
}

/** Skinless by the raw JSON, independently of the reader: no node carries both a mesh and a skin. */
function skinlessByJson(file: string): boolean {
  const { json } = parseGltfJson(new Uint8Array(fs.readFileSync(file)), file);
  const nodes = (json.nodes ?? []) as { mesh?: number; skin?: number }[];
  return !nodes.some((n) => n.mesh !== undefined && n.skin !== undefined);
}

/** `{ HumanBodyBones name: bone name }` from `kind inspect`'s map table. */
function inspectMap(text: string, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^ {2}[* ] (\w+)\s.*\[(\d+)\]\s+\w+$/.exec(line);
    if (m && (HUMAN_BONE_NAMES as readonly string[]).includes(m[1])) out[m[1]] = names[Number(m[2])];
  }
  return out;
}

function namedMap(humanoid: Int32Array, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  humanoid.forEach((b, h) => {
    if (b >= 0) out[HUMAN_BONE_NAMES[h]] = names[b];
  });
  return out;
}

describeWithData('retarget outputs read back with their humanoid map (every avatar)', () => {
  const readable: string[] = [];
  const unreadable: string[] = [];
  beforeAll(async () => {
    for (const f of avatarFiles()) {
      try {
        await loadAvatar(dataPath(f));
        readable.push(f);
      } catch {
        unreadable.push(f);
      }
    }
    console.log(
      `avatars: ${readable.length} read (${readable.join(', ')}); not avatars here: ${unreadable.join(', ')}`,
    );
  });

  it('finds the six listed avatars and the readable odd files', () => {
    expect(readable).toEqual(
      expect.arrayContaining([
        'threejs/Xbot.glb',
        'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
        'vrm-samples-madjin/cryptovoxels.vrm',
        'odd-files/vrm0_ok.vrm',
      ]),
    );
    expect(readable.length).toBeGreaterThanOrEqual(9);
  });

  it('kind inspect and the QA reader read every GLB retarget writes, skeleton and map unchanged', async () => {
    let skinless = 0;
    for (const f of readable) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-readback-'));
      const r = await runKind(['retarget', dataPath(TAKE), dataPath(f), '-o', dir]);
      expect({ f, code: r.code, err: r.err }).toEqual({ f, code: 0, err: '' });
      const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) as RetargetSummary;
      const original = await loadAvatar(dataPath(f));
      const expected = namedMap(original.mapping.humanoid, original.skeleton.names);
      expect(summary.target.humanoid).toEqual(expected);

      // the avatar reader, as kind inspect and kind retarget use it
      const back = await loadAvatar(summary.outputs.glb);
      expect({ f, names: back.skeleton.names }).toEqual({ f, names: original.skeleton.names });
      expect({ f, map: namedMap(back.mapping.humanoid, back.skeleton.names) }).toEqual({ f, map: expected });
      expect(back.mapping.source.filter((s) => s !== null && s !== 'extras')).toEqual([]);
      // kind inspect's printed map
      const inspected = await runKind(['inspect', summary.outputs.glb]);
      expect({ f, code: inspected.code, err: inspected.err }).toEqual({ f, code: 0, err: '' });
      expect(inspectMap(inspected.out, back.skeleton.names)).toEqual(expected);
      // the QA reader (a glTF source clip) and kind qa itself
      const src = await loadSource(summary.outputs.glb);
      expect({ f, map: namedMap(src.mapping.humanoid, src.clip.skeleton.names) }).toEqual({
        f,
        map: expected,
      });
      expect(src.clip.frameCount).toBe(summary.frames);
      const qa = await runKind(['qa', summary.outputs.glb, summary.outputs.glb, '-o', path.join(dir, 'qa')]);
      expect({ f, code: qa.code, err: qa.err }).toEqual({ f, code: 0, err: '' });
      expect(qa.out).toMatch(/: Pass \(/);

      // the no-skin warning exactly for skinless avatars, in the terminal and in summary.json
      const isSkinless = skinlessByJson(dataPath(f));
      if (isSkinless) skinless++;
      const warned = summary.warnings.filter((w) => w.startsWith('the avatar has no skin'));
      expect({ f, warned: warned.length }).toEqual({ f, warned: isSkinless ? 1 : 0 });
      expect({ f, terminal: /note: the avatar has no skin/.test(r.out) }).toEqual({
        f,
        terminal: isSkinless,
      });
      expect(summary.target.skinnedMeshes === 0).toBe(isSkinless);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(skinless).toBeGreaterThanOrEqual(1); // the VRM 1.0 sample
  });

  it('the skinless VRM 1.0 sample: the warning names the bone its meshes hang from', async () => {
    const f =
      'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm';
    const av = await loadAvatar(dataPath(f));
    expect(av.meshes.skinned).toBe(0);
    expect(av.meshes.rigid.map((m) => `${m.node}<${m.bone}`)).toEqual([
      'ScrollX<hips',
      'ScrollY<hips',
      'ScrollRot<hips',
    ]);
  });
});

describeWithData('extras.kindHumanoid: kept exactly, repaired or refused', () => {
  it('a map that lacks bones stays without them (no gap filled from names); overrides still apply', async () => {
    const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
    const sk = avatar.skeleton;
    // drop LeftShoulder from the written map: the names would find it again
    const lean = await readAvatar(avatar.bytes, {
      fileName: 'Xbot.glb',
      mapOverride: { LeftShoulder: null },
    });
    expect(lean.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('LeftShoulder')]).toBe(-1);
    const glb = await writeRetargetedGlb(lean, createClip(lean.skeleton, 2, 1 / 30, 'still'));
    const back = await readAvatar(glb, { fileName: 'out.glb' });
    expect(back.mapping.missingOptional).toContain('LeftShoulder');
    expect(namedMap(back.mapping.humanoid, back.skeleton.names)).toEqual(
      namedMap(lean.mapping.humanoid, lean.skeleton.names),
    );
    const over = await readAvatar(glb, {
      fileName: 'out.glb',
      mapOverride: { LeftShoulder: 'mixamorig:LeftShoulder' },
    });
    expect(over.skeleton.names[over.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('LeftShoulder')]]).toBe(
      'mixamorig:LeftShoulder',
    );
    expect(sk.boneCount).toBe(back.skeleton.boneCount);
  });

  it('renumbered nodes are found by name; bad entries name the field', async () => {
    const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
    const glb = await writeRetargetedGlb(avatar, createClip(avatar.skeleton, 2, 1 / 30, 'still'));
    const { json, bin } = parseGltfJson(glb, 'out.glb');
    const names = (json.nodes as { name?: string }[]).map((n) => n.name ?? '');
    const map = (
      json.extras as Record<string, { humanBones: Record<string, { node: number; name: string }> }>
    ).kindHumanoid;
    expect(map).toEqual(
      humanoidExtras(
        Array.from({ length: 55 }, (_, h) =>
          avatar.skeleton.humanoid[h] >= 0 ? avatar.nodeOfBone[avatar.skeleton.humanoid[h]] : -1,
        ),
        names,
      ),
    );
    const rewrite = async (edit: (m: typeof map) => void) => {
      const j = JSON.parse(JSON.stringify(json));
      edit(j.extras.kindHumanoid);
      return readAvatar(glbWith(j, bin!), { fileName: 'edited.glb' });
    };
    // Head's entry points at the node of Neck (as after a tool renumbered nodes): found by its name
    const moved = await rewrite((m) => {
      m.humanBones.Head.node = m.humanBones.Neck.node;
    });
    expect(moved.skeleton.names[moved.skeleton.humanoid[HUMAN_BONE_NAMES.indexOf('Head')]]).toBe(
      'mixamorig:Head',
    );
    expect(moved.warnings.join('\n')).toMatch(
      /extras\.kindHumanoid\.humanBones\.Head: node \d+ is named 'mixamorig:Neck'; the node named 'mixamorig:Head' \(\d+\) is used/,
    );
    await expect(
      rewrite((m) => {
        m.humanBones.Hips.node = 9999 as number;
      }),
    ).rejects.toThrow(/edited\.glb: extras\.kindHumanoid\.humanBones\.Hips\.node: 9999 is not a node index/);
    await expect(
      rewrite((m) => {
        (m as unknown as Record<string, unknown>).humanBones = [];
      }),
    ).rejects.toThrow(/edited\.glb: extras\.kindHumanoid\.humanBones: missing or not an object/);
    const unknown = await rewrite((m) => {
      m.humanBones.Tail = { node: 0, name: names[0] };
    });
    expect(unknown.warnings.join('\n')).toMatch(
      /humanBones\.Tail: 'Tail' is not a HumanBodyBones name; skipped/,
    );
  });
});

/** A GLB from a JSON object and a BIN chunk. */
function glbWith(json: Record<string, unknown>, bin: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLen = Math.ceil(text.length / 4) * 4;
  const binLen = Math.ceil(bin.length / 4) * 4;
  const total = 12 + 8 + jsonLen + 8 + binLen;
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, total, true);
  v.setUint32(12, jsonLen, true);
  v.setUint32(16, 0x4e4f534a, true);
  out.fill(0x20, 20, 20 + jsonLen);
  out.set(text, 20);
  v.setUint32(20 + jsonLen, binLen, true);
  v.setUint32(24 + jsonLen, 0x004e4942, true);
  out.set(bin, 28 + jsonLen);
  return out;
}

describeWithData('kind inspect on a VRM: no note that the VRM extension is missing', () => {
  it.each([
    ['vrm-samples-madjin/cryptovoxels.vrm', 'VRM 0.x', 'VRM'],
    [
      'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
      'VRM 1.0',
      'VRMC_vrm',
    ],
  ])('%s', async (f, format, extension) => {
    const r = await runKind(['inspect', dataPath(f)]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`: ${format}, `);
    expect(r.out).toMatch(/ vrm$/m); // map entries found by the VRM map
    expect(r.out).not.toContain(`"${extension}"`);
    const av = await loadAvatar(dataPath(f));
    expect(av.warnings.filter((w) => w.includes(`"${extension}"`))).toEqual([]);
  });

  it('keeps the note for an extension the reader does not read (MToon)', async () => {
    const r = await runKind([
      'inspect',
      dataPath(
        'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
      ),
    ]);
    expect(r.out).toContain('note: Missing optional extension, "VRMC_materials_mtoon"');
  });
});
