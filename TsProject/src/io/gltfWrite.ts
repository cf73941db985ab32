/**
 * Writing a clip onto an avatar as a GLB (glTF 2.0 binary,
 * https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html).
 */
import type { Accessor, Document, Node as GltfNode } from '@gltf-transform/core';
import type { Clip } from '../core/clip';
import { HUMAN_BONE_COUNT } from '../core/humanBodyBones';
import type { Skeleton } from '../core/skeleton';
import {
  type Avatar,
  createGltfIo,
  GltfError,
  KHR_DRACO,
  loadGltfDocument,
  nodeLocalFromBone,
} from './gltfAvatar';
import { EXT_MESHOPT } from './gltfCheck';
import { HUMANOID_EXTRAS_KEY, humanoidExtras } from './gltfHumanoidExtras';

/** Translation tracks are written only for bones moving more than this (metres) from rest. */
const TRANSLATION_EPSILON = 1e-6;

/**
 * Make every vertex's skin weights (all `WEIGHTS_n` sets together) sum to 1, as the glTF 2.0 spec
 * requires (section "Skinned Mesh Attributes",
 * https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#skinned-mesh-attributes; the Khronos
 * validator reports ACCESSOR_WEIGHTS_NON_NORMALIZED otherwise, e.g. for CesiumMan and RobotExpressive). Float weights are divided by their sum; normalized
 * unsigned byte/short weights are re-quantised with the rounding remainder put on the largest weight.
 * A vertex whose weights are all zero gets weight 1 on its first joint (a renderer would otherwise
 * collapse it to the origin). Returns the number of vertices changed.
 */
export function normalizeSkinWeights(document: Document): number {
  let changed = 0;
  const done = new Set<Accessor>();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const prim of mesh.listPrimitives()) {
      const sets: Accessor[] = [];
      for (let k = 0; ; k++) {
        const a = prim.getAttribute(`WEIGHTS_${k}`);
        if (!a) break;
        sets.push(a);
      }
      if (sets.length === 0 || sets.some((a) => done.has(a))) continue;
      for (const a of sets) done.add(a);
      changed += normalizeWeightSets(sets);
    }
  }
  return changed;
}

function normalizeWeightSets(sets: Accessor[]): number {
  const count = Math.min(...sets.map((a) => a.getCount()));
  const width = 4 * sets.length;
  const w = new Float64Array(width);
  const el = [0, 0, 0, 0];
  const quantum = weightQuantum(sets[0]);
  let changed = 0;
  for (let v = 0; v < count; v++) {
    let sum = 0;
    let negative = false;
    for (let s = 0; s < sets.length; s++) {
      sets[s].getElement(v, el);
      for (let c = 0; c < 4; c++) {
        if (el[c] < 0) negative = true;
        w[4 * s + c] = Math.max(el[c], 0);
        sum += w[4 * s + c];
      }
    }
    if (!negative && Math.abs(sum - 1) <= Math.max(quantum / 2, 1e-7)) continue;
    if (sum <= 0) {
      w.fill(0);
      w[0] = 1;
    } else {
      for (let i = 0; i < width; i++) w[i] /= sum;
    }
    if (quantum > 0) {
      // Quantise and give the rounding remainder to the largest weight.
      let total = 0;
      let big = 0;
      for (let i = 0; i < width; i++) {
        w[i] = Math.round(w[i] / quantum);
        total += w[i];
        if (w[i] > w[big]) big = i;
      }
      w[big] += Math.round(1 / quantum) - total;
      for (let i = 0; i < width; i++) w[i] *= quantum;
    } else {
      // float32: put the float rounding remainder on the largest weight.
      let total = 0;
      let big = 0;
      for (let i = 0; i < width; i++) {
        w[i] = Math.fround(w[i]);
        if (w[i] > w[big]) big = i;
      }
      for (let i = 0; i < width; i++) if (i !== big) total += w[i];
      w[big] = Math.fround(1 - total);
    }
    for (let s = 0; s < sets.length; s++) {
      for (let c = 0; c < 4; c++) el[c] = w[4 * s + c];
      sets[s].setElement(v, el);
    }
    changed++;
  }
  return changed;
}

/** Size of one step of a normalized integer weight accessor (1/255, 1/65535), 0 for float. */
function weightQuantum(a: Accessor): number {
  if (!a.getNormalized()) return 0;
  const t = a.getComponentType();
  if (t === 5121) return 1 / 255;
  if (t === 5123) return 1 / 65535;
  return 0;
}

/**
 * The checks every glTF writer makes of a clip's frames before it writes anything: rotation and translation
 * lengths of `frameCount x boneCount`, a positive finite `frameTime`, and every frame's every bone finite
 * with a non-zero rotation.
 * @throws GltfError naming `fileName`, the clip, and the frame and bone of the first bad value.
 */
export function requireWritableFrames(clip: Clip, sk: Skeleton, fileName: string): void {
  const n = sk.boneCount;
  const F = clip.frameCount;
  if (clip.rotations.length !== F * n * 4 || clip.translations.length !== F * n * 3) {
    throw new GltfError(
      fileName,
      `clip '${clip.name}': rotations/translations lengths do not match ${F} frames x ${n} bones`,
    );
  }
  if (!(clip.frameTime > 0) || !Number.isFinite(clip.frameTime)) {
    throw new GltfError(
      fileName,
      `clip '${clip.name}': frameTime ${clip.frameTime} must be a positive number`,
    );
  }
  for (let f = 0; f < F; f++) {
    for (let b = 0; b < n; b++) {
      const o = f * n + b;
      const r = clip.rotations;
      const t = clip.translations;
      const ok =
        Number.isFinite(t[3 * o] + t[3 * o + 1] + t[3 * o + 2]) &&
        Math.hypot(r[4 * o], r[4 * o + 1], r[4 * o + 2], r[4 * o + 3]) > 1e-6;
      if (!ok)
        throw new GltfError(
          fileName,
          `clip '${clip.name}' frame ${f} bone '${sk.names[b]}': not a finite rotation/translation`,
        );
    }
  }
}

/**
 * A GLB of the avatar (meshes, skins, materials, textures, node hierarchy kept) whose animations are
 * replaced by one animation holding `clip`:
 * - name `options.animationName ?? clip.name`;
 * - input times `f * clip.frameTime` seconds, LINEAR interpolation;
 * - a rotation channel for every skeleton bone (node-local quaternions from the skeleton-local ones,
 *   see `nodeLocalFromBone`; consecutive keys kept in one hemisphere so slerp goes the short way);
 * - a translation channel for each bone whose translation differs from rest by more than 1e-6 m in
 *   some frame (in practice the hips).
 * Skin weights are renormalised to sum to 1 (see {@link normalizeSkinWeights}) so the output passes the
 * Khronos glTF validator. External files of a `.gltf` avatar (`avatar.resources`) and all its buffers
 * are embedded in the GLB's single buffer. Draco (KHR_draco_mesh_compression) or meshopt
 * (EXT_meshopt_compression) geometry, decoded on reading, is written decoded (uncompressed accessors,
 * the extension dropped). VRM extensions (unknown to glTF Transform) are not written: the output is a
 * plain glTF 2.0 GLB. The avatar's humanoid map (`avatar.mapping`, the one the clip was retargeted with)
 * is written to the root `extras.kindHumanoid` (see gltfHumanoidExtras.ts; replacing any such map the
 * avatar file had), where {@link readAvatar} finds it: the GLB reads back with the same skeleton and
 * map, also for an avatar without a skin or with a VRM map. The avatar and its document are not modified.
 * `boneScales` multiply the (static) scale of the listed bones' nodes, e.g. the avatar scale on the
 * hips and the head scale on the head; the clip's translations are node-local and stay as they are.
 *
 * @throws GltfError when the clip is not on the avatar's skeleton (bone count or names differ), holds a
 * non-finite value (naming frame and bone), or the animation name is empty.
 */
export async function writeRetargetedGlb(
  avatar: Avatar,
  clip: Clip,
  options?: { animationName?: string; boneScales?: readonly { bone: number; scale: number }[] },
): Promise<Uint8Array> {
  try {
    return await writeChecked(avatar, clip, options);
  } catch (e) {
    if (e instanceof GltfError) throw e;
    // A failure no check foresaw: still name the file.
    throw new GltfError(
      avatar?.fileName ?? '<avatar>',
      `could not write the GLB: ${(e as Error)?.message ?? e}`,
      {
        cause: e,
      },
    );
  }
}

async function writeChecked(
  avatar: Avatar,
  clip: Clip,
  options?: { animationName?: string; boneScales?: readonly { bone: number; scale: number }[] },
): Promise<Uint8Array> {
  const fileName = avatar.fileName;
  const sk = avatar.skeleton;
  const n = sk.boneCount;
  if (clip.skeleton !== sk) {
    const same =
      clip.skeleton.boneCount === n && clip.skeleton.names.every((name, i) => name === sk.names[i]);
    if (!same) {
      throw new GltfError(
        fileName,
        `clip '${clip.name}' is on another skeleton (${clip.skeleton.boneCount} bones) than the avatar (${n} bones): retarget it first`,
      );
    }
  }
  const name = options?.animationName ?? clip.name;
  if (typeof name !== 'string' || name === '')
    throw new GltfError(fileName, 'animation name must be a non-empty string');
  const F = clip.frameCount;
  requireWritableFrames(clip, sk, fileName);

  const { document } = await loadGltfDocument(avatar.bytes, fileName, {
    external: avatar.resources,
    decoders: avatar.decoders,
  });
  const root = document.getRoot();
  // Compressed geometry was decoded on reading; it is written uncompressed (no encoder needed).
  for (const ext of root.listExtensionsUsed()) {
    if (ext.extensionName === KHR_DRACO || ext.extensionName === EXT_MESHOPT) ext.dispose();
  }
  // A GLB holds one buffer: move every accessor of a multi-buffer .gltf into the first.
  const buffers = root.listBuffers();
  if (buffers.length > 1) {
    for (const a of root.listAccessors()) a.setBuffer(buffers[0]);
    for (const b of buffers.slice(1)) b.dispose();
  }
  const nodes: GltfNode[] = root.listNodes();
  if (nodes.length !== avatar.boneOfNode.length) {
    throw new GltfError(fileName, 're-reading the file gave a different node count');
  }

  // Drop the existing animations and the accessors only they used.
  for (const anim of root.listAnimations()) {
    const accessors = new Set<Accessor>();
    for (const s of anim.listSamplers()) {
      const i = s.getInput();
      const o = s.getOutput();
      if (i) accessors.add(i);
      if (o) accessors.add(o);
    }
    for (const c of anim.listChannels()) c.dispose();
    for (const s of anim.listSamplers()) s.dispose();
    anim.dispose();
    for (const a of accessors) if (a.listParents().every((p) => p === root)) a.dispose();
  }
  normalizeSkinWeights(document);
  const nodeOfHuman = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const b = sk.humanoid[h];
    if (b >= 0) nodeOfHuman[h] = avatar.nodeOfBone[b];
  }
  root.setExtras({
    ...root.getExtras(),
    [HUMANOID_EXTRAS_KEY]: humanoidExtras(
      nodeOfHuman,
      nodes.map((node) => node.getName()),
    ),
  });
  for (const { bone, scale } of options?.boneScales ?? []) {
    if (!Number.isInteger(bone) || bone < 0 || bone >= n)
      throw new GltfError(fileName, `boneScales: bone ${bone} out of range`);
    if (!(scale > 0) || !Number.isFinite(scale))
      throw new GltfError(fileName, `boneScales: scale ${scale} for '${sk.names[bone]}' must be positive`);
    const node = nodes[avatar.nodeOfBone[bone]];
    const sc = node.getScale();
    node.setScale([sc[0] * scale, sc[1] * scale, sc[2] * scale]);
  }

  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  const times = new Float32Array(F);
  for (let f = 0; f < F; f++) times[f] = f * clip.frameTime;
  const input = document.createAccessor(`${name}_time`).setType('SCALAR').setArray(times).setBuffer(buffer);
  const animation = document.createAnimation(name);

  const restT = sk.restTranslations;
  const bt = new Float64Array(3);
  const br = new Float64Array(4);
  const nt = new Float64Array(3);
  const nr = new Float64Array(4);
  for (let b = 0; b < n; b++) {
    const node = nodes[avatar.nodeOfBone[b]];
    const rot = new Float32Array(4 * F);
    let moves = false;
    for (let f = 0; f < F && !moves; f++) {
      const o = 3 * (f * n + b);
      for (let c = 0; c < 3; c++)
        if (Math.abs(clip.translations[o + c] - restT[3 * b + c]) > TRANSLATION_EPSILON) moves = true;
    }
    const tra = moves ? new Float32Array(3 * F) : null;
    let px = 0;
    let py = 0;
    let pz = 0;
    let pw = 1;
    for (let f = 0; f < F; f++) {
      const o = f * n + b;
      for (let c = 0; c < 3; c++) bt[c] = clip.translations[3 * o + c];
      for (let c = 0; c < 4; c++) br[c] = clip.rotations[4 * o + c];
      nodeLocalFromBone(avatar, b, bt, br, nt, nr);
      let len = Math.hypot(nr[0], nr[1], nr[2], nr[3]);
      if (f > 0 && nr[0] * px + nr[1] * py + nr[2] * pz + nr[3] * pw < 0) len = -len;
      px = nr[0] / len;
      py = nr[1] / len;
      pz = nr[2] / len;
      pw = nr[3] / len;
      rot[4 * f] = px;
      rot[4 * f + 1] = py;
      rot[4 * f + 2] = pz;
      rot[4 * f + 3] = pw;
      if (tra) for (let c = 0; c < 3; c++) tra[3 * f + c] = nt[c];
    }
    const label = sk.names[b];
    const rotAcc = document
      .createAccessor(`${label}_rotation`)
      .setType('VEC4')
      .setArray(rot)
      .setBuffer(buffer);
    const rs = document.createAnimationSampler().setInput(input).setOutput(rotAcc).setInterpolation('LINEAR');
    animation.addSampler(rs);
    animation.addChannel(
      document.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(rs),
    );
    if (tra) {
      const traAcc = document
        .createAccessor(`${label}_translation`)
        .setType('VEC3')
        .setArray(tra)
        .setBuffer(buffer);
      const ts = document
        .createAnimationSampler()
        .setInput(input)
        .setOutput(traAcc)
        .setInterpolation('LINEAR');
      animation.addSampler(ts);
      animation.addChannel(
        document.createAnimationChannel().setTargetNode(node).setTargetPath('translation').setSampler(ts),
      );
    }
  }
  try {
    return await createGltfIo().writeBinary(document);
  } catch (e) {
    throw new GltfError(fileName, `could not write the GLB: ${(e as Error)?.message ?? e}`, { cause: e });
  }
}
