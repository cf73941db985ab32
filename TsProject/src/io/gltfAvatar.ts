/**
 * glTF 2.0 / VRM avatars: the skeleton, its humanoid map and its animation list, read with
 * glTF Transform (`@gltf-transform/core`, every `KHR_*`/`EXT_*` extension it knows registered).
 *
 * Input is the bytes of a `.glb` / `.vrm` (GLB container) or of a `.gltf` JSON; buffers and images are
 * the GLB `BIN` chunk, embedded `data:` URIs, or external files supplied by the caller (`resources`
 * option; this module never touches the file system). The JSON is checked before glTF Transform reads
 * it (gltfCheck.ts), so malformed files give a {@link GltfError} naming the field. Specs: glTF 2.0
 * (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html; GLB container: section "GLB File Format
 * Specification"), VRM 0.x (https://github.com/vrm-c/vrm-specification/blob/master/specification/0.0/README.md),
 * VRM 1.0 (https://github.com/vrm-c/vrm-specification/blob/master/specification/VRMC_vrm-1.0/humanoid.md).
 *
 * ## Skeleton
 * - Bones: the union of the joints of every skin, plus the nodes of the file's humanoid map (VRM, or
 *   `extras.kindHumanoid`, see gltfHumanoidExtras.ts), plus every node lying
 *   between two of those (so the tree is connected), plus, when the topmost bones are several, the
 *   nodes up to their lowest common ancestor. A file with no skin joints (VRM 1.0 rigid-mesh avatars)
 *   uses the subtree rooted at the hips node instead (the file map's `Hips`, else the node that
 *   `mapOverride.Hips` names), minus leaf nodes that only carry a mesh and are not humanoid bones
 *   (those are geometry, not bones). Bones are in depth-first pre-order
 *   of the node hierarchy (parents before children, `parents[i] < i`).
 * - Names: the node name; unnamed nodes are called `node<index>` (index of the glTF node). When two
 *   bones have the same name, the first in bone order keeps it and each later one becomes
 *   `<name>#<node index>`, so names identify bones.
 * - Rest pose: the node TRS as authored (not the inverse bind matrices). The skeleton is scale-free
 *   and in metres in the scene's world frame (glTF: right-handed, +Y up, metres; VRM 1.0 and most
 *   glTF characters face +Z, VRM 0.x and some Mixamo exports face -Z, which is kept as is):
 *   a root bone's rest local transform is its world transform (non-bone ancestors such as an
 *   `Armature` node with scale 0.01 or a rotation are folded in), and every bone translation is
 *   multiplied by the accumulated scale of the node's ancestors.
 *   The node <-> skeleton conversion is {@link boneLocalFromNode} / {@link nodeLocalFromBone}.
 * - Scale: scales on the bones and their ancestors must be positive, and uniform (within 1e-4
 *   relative) wherever a humanoid bone lies below the node; otherwise a {@link GltfError} names the
 *   node (and the humanoid bone below it). A bone with a non-uniform scale and no humanoid bone below it
 *   (a `Bust_L` secondary chain) stays a bone, but the nodes below it are not bones (the scale-free
 *   skeleton cannot hold the shear): they keep their transforms, in the output too, and a warning
 *   says so. Bone scales stay in the file untouched.
 *
 * ## Clips
 * Every named animation is a clip with its name (a repeated name gets `#<animation index>`); all
 * animations without a name together form one clip named `animation` (COLLADA2GLTF exports such as
 * CesiumMan store one walk cycle as one unnamed animation per joint).
 */
import type { Animation } from '@gltf-transform/core';
import { HUMAN_BONE_COUNT, HUMAN_BONE_NAMES, nearestMappedAncestor } from '../core/humanBodyBones';
import { withHumanoid } from '../core/skeleton';
import type { Avatar, GltfClipSource } from './gltfAvatarTypes';
import { EXT_MESHOPT, nameList } from './gltfCheck';
import {
  baseName,
  type GltfDecoders,
  type GltfResources,
  KHR_DRACO,
  loadGltfDocument,
  parseGltfJson,
} from './gltfDocument';
import { GltfError } from './gltfError';
import { HUMANOID_EXTRAS_KEY, readExtrasHumanoid } from './gltfHumanoidExtras';
import { buildSkeleton, nodeGraph, nodeLabel, type SkeletonParts, selectBones } from './gltfSkeleton';
import { readVrmHumanoid, removeIf } from './gltfVrm';
import {
  autoMapHumanoid,
  type HumanoidMapResult,
  type HumanoidOverride,
  requireHumanoid,
} from './humanoidMap';

export type { Avatar, AvatarFormat, GltfClipSource } from './gltfAvatarTypes';
export {
  baseName,
  createGltfIo,
  type GltfDecoders,
  type GltfResources,
  KHR_DRACO,
  loadGltfDocument,
  parseGltfJson,
} from './gltfDocument';
export { GltfError } from './gltfError';
export { type BoneFrames, boneLocalFromNode, nodeLocalFromBone } from './gltfSkeleton';
export { readVrmHumanoid, vrmBoneToHumanBone } from './gltfVrm';

// ---------------------------------------------------------------------------------------------
// Clips.

function clipSourcesOf(animations: Animation[]): GltfClipSource[] {
  const sources: { name: string; animationIndices: number[] }[] = [];
  const taken = new Set<string>();
  let unnamed: { name: string; animationIndices: number[] } | null = null;
  animations.forEach((a, k) => {
    const name = a.getName();
    if (!name) {
      if (!unnamed) {
        unnamed = { name: '', animationIndices: [] };
        sources.push(unnamed);
      }
      unnamed.animationIndices.push(k);
      return;
    }
    let unique = name;
    while (taken.has(unique)) unique = `${unique}#${k}`;
    taken.add(unique);
    sources.push({ name: unique, animationIndices: [k] });
  });
  for (const s of sources) {
    if (s.name !== '') continue;
    let unique = 'animation';
    while (taken.has(unique)) unique = `${unique}#${s.animationIndices[0]}`;
    s.name = unique;
  }
  return sources;
}

// ---------------------------------------------------------------------------------------------
// readAvatar.

/**
 * Read a glTF 2.0 / VRM 0.x / VRM 1.0 avatar: bytes of a `.glb`/`.vrm`, or of a `.gltf` whose buffers
 * and images are `data:` URIs or external files. External files come from `options.resources`, called
 * with each relative path (URI percent-decoded, e.g. `model.bin`, `textures/skin a.png`) and returning
 * the bytes or `undefined` (the CLI reads them relative to the `.gltf`). See the module comment for the
 * skeleton, naming and clip rules.
 *
 * Humanoid map: for VRM files the VRM humanoid (0.x `extensions.VRM.humanoid.humanBones`, 1.0
 * `extensions.VRMC_vrm.humanoid.humanBones`) is the preset (source 'vrm'; its gaps filled by
 * {@link autoMapHumanoid}); glTF Transform's note that it does not know that extension is dropped.
 * Else the map a GLB written by `writeRetargetedGlb` carries (`extras.kindHumanoid`, source 'extras',
 * taken as complete: no gaps filled unless an entry had to be skipped, see gltfHumanoidExtras.ts); else
 * {@link autoMapHumanoid} (names and topology). `options.mapOverride` applies on top in every case.
 *
 * @throws GltfError (message starts with the file name) on malformed GLB/JSON, an external file that
 * `resources` cannot give (`model.gltf: buffer 0 'model.bin' not found (...)`), a bad index or byte
 * range (the field as a JSON pointer: `/skins/0/joints/3: node index 999 out of range (67 nodes)`),
 * a non-finite node translation/rotation/scale/matrix or inverse bind matrix, a zero-length node
 * rotation, an unreadable document, malformed VRM humanoid or `extras.kindHumanoid` data, no skeleton (no skin joints and no VRM humanoid), a non-positive
 * scale on the skeleton chain, a non-uniform scale above the skeleton or above a humanoid bone, or
 * missing required humanoid bones (the message lists them).
 */
export async function readAvatar(
  bytes: Uint8Array,
  options: {
    fileName: string;
    mapOverride?: HumanoidOverride;
    resources?: GltfResources;
    decoders?: GltfDecoders;
  },
): Promise<Avatar> {
  const fileName = options?.fileName;
  if (typeof fileName !== 'string' || fileName === '') {
    throw new GltfError('<avatar>', 'readAvatar: options.fileName must be a non-empty string');
  }
  try {
    return await readAvatarChecked(bytes, fileName, options);
  } catch (e) {
    if (e instanceof GltfError) throw e;
    // A failure no check above foresaw: still name the file.
    throw new GltfError(fileName, `could not read the avatar: ${(e as Error)?.message ?? e}`, { cause: e });
  }
}

async function readAvatarChecked(
  bytes: Uint8Array,
  fileName: string,
  options: { mapOverride?: HumanoidOverride; resources?: GltfResources; decoders?: GltfDecoders },
): Promise<Avatar> {
  const parsed = parseGltfJson(bytes, fileName);
  const { document, warnings, external } = await loadGltfDocument(bytes, fileName, {
    parsed,
    resources: options.resources,
    decoders: options.decoders,
  });
  for (const ext of document.getRoot().listExtensionsUsed()) {
    const name = ext.extensionName;
    if (name === KHR_DRACO || name === EXT_MESHOPT)
      warnings.push(
        `${name}: compressed geometry decoded (a GLB written from this avatar is not compressed)`,
      );
  }
  const graph = nodeGraph(document, fileName);
  const vrm = readVrmHumanoid(parsed.json, graph.nodes.length, fileName);
  if (vrm?.format === 'vrma') requireHumanoidTree(graph, vrm.nodeOfHuman, fileName);
  if (vrm) {
    // glTF Transform does not know the VRM extensions and says so; this reader read the humanoid.
    const read = { vrm1: 'VRMC_vrm', vrma: 'VRMC_vrm_animation', vrm0: 'VRM' }[vrm.format];
    removeIf(warnings, (w) => w.startsWith(`Missing optional extension, "${read}"`));
    warnings.push(...vrm.warnings);
  }
  const extras = vrm
    ? null
    : readExtrasHumanoid(
        parsed.json,
        graph.nodes.map((n) => n.getName()),
        fileName,
      );
  if (extras) warnings.push(...extras.warnings);
  const fileMap = vrm
    ? { nodeOfHuman: vrm.nodeOfHuman, what: 'VRM humanoid map' }
    : extras
      ? { nodeOfHuman: extras.nodeOfHuman, what: `extras.${HUMANOID_EXTRAS_KEY} map` }
      : null;
  const inSet = selectBones(graph, document, fileMap, options.mapOverride?.Hips, fileName);
  const mapBones = (parts: SkeletonParts): HumanoidMapResult => {
    let preset: Int32Array | undefined;
    if (fileMap) {
      preset = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
      for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
        const node = fileMap.nodeOfHuman[h];
        if (node >= 0) preset[h] = parts.boneOfNode[node];
      }
    }
    try {
      const mapping = autoMapHumanoid(
        parts.skeleton,
        preset
          ? {
              override: options.mapOverride,
              preset,
              presetSource: vrm ? 'vrm' : 'extras',
              // this project's own map is complete: its gaps are bones the avatar lacks
              fillGaps: !extras?.complete,
              fileName,
            }
          : { override: options.mapOverride, fileName },
      );
      requireHumanoid(mapping, fileName);
      return mapping;
    } catch (e) {
      if (e instanceof GltfError) throw e;
      const msg = (e as Error)?.message ?? String(e);
      throw new GltfError(
        fileName,
        msg.startsWith(fileName) ? msg.slice(fileName.length).replace(/^[:\s]+/, '') : msg,
        {
          cause: e,
        },
      );
    }
  };
  // Non-uniform scale on a bone with bone children: refused where a humanoid bone lies below it (the
  // scale-free skeleton cannot hold the shear); elsewhere the nodes below it are not bones.
  const nonUniform = new Set<number>();
  let parts = buildSkeleton(graph, inSet, fileName, nonUniform);
  let mapping = mapBones(parts);
  if (nonUniform.size > 0) {
    const notes: string[] = [];
    for (const n of nonUniform) {
      const label = `${nodeLabel(graph, n)}: non-uniform scale [${graph.nodes[n].getScale().join(', ')}]`;
      for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
        const b = mapping.humanoid[h];
        if (b < 0) continue;
        for (let p = graph.parent[parts.nodeOfBone[b]]; p >= 0; p = graph.parent[p]) {
          if (p === n) {
            throw new GltfError(
              fileName,
              `${label} above humanoid bone ${HUMAN_BONE_NAMES[h]} ('${parts.skeleton.names[b]}') is not supported (the skeleton is scale-free: only uniform scales on a humanoid chain)`,
            );
          }
        }
      }
      const below: string[] = [];
      const stack = [...graph.children[n]];
      while (stack.length > 0) {
        const i = stack.pop()!;
        if (inSet[i]) below.push(graph.nodes[i].getName() || `node${i}`);
        inSet[i] = false;
        stack.push(...graph.children[i]);
      }
      notes.push(
        `${label}: no humanoid bone below it; the ${below.length} node(s) below it (${nameList(below)}) are not skeleton bones and keep their transforms`,
      );
    }
    parts = buildSkeleton(graph, inSet, fileName);
    mapping = mapBones(parts);
    warnings.push(...notes);
  }
  const skeleton = withHumanoid(parts.skeleton, mapping.humanoid);
  const meshes: Avatar['meshes'] = { skinned: 0, rigid: [] };
  graph.nodes.forEach((node, i) => {
    if (node.getMesh() === null) return;
    if (node.getSkin() !== null) {
      meshes.skinned++;
      return;
    }
    let p = i;
    while (p >= 0 && parts.boneOfNode[p] < 0) p = graph.parent[p];
    meshes.rigid.push({
      node: node.getName() || `node${i}`,
      bone: p >= 0 ? skeleton.names[parts.boneOfNode[p]] : null,
    });
  });
  const clipSources = clipSourcesOf(document.getRoot().listAnimations());
  return {
    name: baseName(fileName),
    fileName,
    format: vrm ? vrm.format : 'gltf',
    skeleton,
    nodeOfBone: parts.nodeOfBone,
    boneOfNode: parts.boneOfNode,
    mapping,
    clipNames: clipSources.map((s) => s.name),
    clipSources,
    document,
    parentScale: parts.parentScale,
    parentRotation: parts.parentRotation,
    parentTranslation: parts.parentTranslation,
    meshes,
    warnings,
    bytes: new Uint8Array(bytes), // a copy (Buffer.prototype.slice would not copy)
    resources: external,
    decoders: options.decoders,
  };
}

/**
 * A VRM Animation's humanoid bones must hang as VRM's humanoid does (VRMC_vrm_animation-1.0 gives the
 * bones by node; the motion is only meaningful on that tree): each mapped bone under the node of its
 * nearest mapped humanoid ancestor (HUMAN_PARENT).
 * @throws GltfError naming the bone, its node and the ancestor it is not under.
 */
function requireHumanoidTree(
  graph: ReturnType<typeof nodeGraph>,
  nodeOfHuman: Int32Array,
  fileName: string,
): void {
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const node = nodeOfHuman[h];
    if (node < 0) continue;
    const a = nearestMappedAncestor(h, (b) => nodeOfHuman[b] >= 0);
    if (a < 0) continue;
    const want = nodeOfHuman[a];
    let p = graph.parent[node];
    while (p >= 0 && p !== want) p = graph.parent[p];
    if (p !== want)
      throw new GltfError(
        fileName,
        `VRMC_vrm_animation humanoid: ${HUMAN_BONE_NAMES[h]} (${nodeLabel(graph, node)}) is not under ${HUMAN_BONE_NAMES[a]} (${nodeLabel(graph, want)}): the node hierarchy does not hang as VRM's humanoid`,
      );
  }
}
