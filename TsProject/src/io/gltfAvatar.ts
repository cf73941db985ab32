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
import {
  type Animation,
  type Document,
  type Node as GltfNode,
  type ILogger,
  WebIO,
} from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { quat, vec3 } from 'gl-matrix';
import { HUMAN_BONE_COUNT, HUMAN_BONE_NAMES, humanBoneIndex } from '../core/humanBodyBones';
import { type NumArray, quat64, readQuat, vec64, writeQuat, writeVec3 } from '../core/quat';
import { createSkeleton, type Skeleton, SkeletonError, withHumanoid } from '../core/skeleton';
import {
  checkGltfDocument,
  checkGltfJson,
  EXT_MESHOPT,
  isMeshoptFallback,
  nameList,
  resolveGltfResources,
} from './gltfCheck';
import { GltfError } from './gltfError';
import { HUMANOID_EXTRAS_KEY, readExtrasHumanoid } from './gltfHumanoidExtras';
import {
  autoMapHumanoid,
  type HumanoidMapResult,
  type HumanoidOverride,
  requireHumanoid,
} from './humanoidMap';

export { GltfError } from './gltfError';

export type AvatarFormat = 'gltf' | 'vrm0' | 'vrm1';

/** One clip of the file: its name and the glTF animations it is made of. */
export interface GltfClipSource {
  readonly name: string;
  /** Animation indices in the file (one for a named animation; all unnamed ones for `animation`). */
  readonly animationIndices: readonly number[];
}

export interface Avatar {
  /** File name without directory and extension. */
  name: string;
  /** The file name as given to {@link readAvatar} (used in error messages). */
  fileName: string;
  format: AvatarFormat;
  /** Scale-free skeleton, metres, scene world frame, topological order, humanoid map filled. */
  skeleton: Skeleton;
  /** glTF node index per skeleton bone, `Int32Array(n)`. */
  nodeOfBone: Int32Array;
  /** Skeleton bone per glTF node, -1 for nodes that are not bones, `Int32Array(nodeCount)`. */
  boneOfNode: Int32Array;
  /** Humanoid map (from the VRM humanoid for VRM files, by name/topology otherwise). */
  mapping: HumanoidMapResult;
  /** Names of the clips {@link readGltfClip} can read, in file order. */
  clipNames: string[];
  /** Where each clip comes from, same order as `clipNames`. */
  clipSources: GltfClipSource[];
  /** The glTF Transform document (read-only use: the writer works on a fresh copy). */
  document: Document;
  /**
   * Uniform world scale of each bone's parent node (product of the scales of all node ancestors),
   * `Float64Array(n)`. Skeleton translation = `parentRotation * (parentScale * nodeTranslation) + parentTranslation`.
   */
  parentScale: Float64Array;
  /** World rotation of the parent node for root bones, identity for the others, `Float64Array(4n)`. */
  parentRotation: Float64Array;
  /** World translation (metres) of the parent node for root bones, zero for the others, `Float64Array(3n)`. */
  parentTranslation: Float64Array;
  /**
   * How the meshes follow the skeleton: `skinned`, the number of nodes with a mesh and a skin (0: the
   * animation deforms no mesh); `rigid`, each node with a mesh and no skin (`node<index>` when unnamed)
   * and the bone it hangs from (itself or its nearest ancestor that is a bone; null when none: it
   * does not move with the animation).
   */
  meshes: { skinned: number; rigid: { node: string; bone: string | null }[] };
  /** Notes from reading (unknown extensions dropped, VRM entries skipped, ...). */
  warnings: string[];
  /** A copy of the bytes read (the writer re-reads them to get an untouched document). */
  readonly bytes: Uint8Array;
  /**
   * The external files a `.gltf` referred to (buffers, images), by URI as written in the file, as
   * `options.resources` gave them; empty for GLB/VRM and `.gltf` with embedded `data:` URIs. The writer
   * re-reads them and embeds them in the GLB it writes.
   */
  readonly resources: Readonly<Record<string, Uint8Array>>;
  /** The decoders it was read with (the writer re-reads the bytes with them). */
  readonly decoders?: GltfDecoders;
}

const GLB_MAGIC = 0x46546c67; // 'glTF'
const CHUNK_JSON = 0x4e4f534a; // 'JSON'
const CHUNK_BIN = 0x004e4942; // 'BIN\0'

/** File name without directory and extension (`a/b/Xbot.glb` -> `Xbot`). */
export function baseName(fileName: string): string {
  const slash = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  const file = fileName.slice(slash + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

/**
 * The JSON of a glTF file: parsed from the GLB JSON chunk (GLB header: magic `glTF`, version 2,
 * total length; then chunks of `[length, type, data]`, the first one `JSON`), or from the whole text
 * when the bytes are a `.gltf` JSON document. `bin` is the GLB `BIN` chunk (the chunk right after the
 * JSON chunk when its type is `BIN\0`; null when absent or for a `.gltf`).
 * @throws GltfError naming the file on a short/truncated file, wrong magic or version, a missing or
 * out-of-bounds JSON or BIN chunk, or a JSON chunk that is not a JSON object.
 */
export function parseGltfJson(
  bytes: Uint8Array,
  fileName: string,
): { json: Record<string, unknown>; glb: boolean; bin: Uint8Array | null } {
  if (!(bytes instanceof Uint8Array))
    throw new GltfError(fileName, 'expected the file bytes as a Uint8Array');
  // A .gltf JSON document: optional UTF-8 BOM, optional whitespace, then '{'.
  let first = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (
    first < bytes.length &&
    (bytes[first] === 0x20 || bytes[first] === 0x0a || bytes[first] === 0x0d || bytes[first] === 0x09)
  )
    first++;
  if (bytes[first] === 0x7b) {
    return { json: parseJsonText(bytes, fileName, 'glTF JSON'), glb: false, bin: null };
  }
  if (bytes.length < 12) {
    throw new GltfError(fileName, `not a GLB file: ${bytes.length} bytes, the GLB header alone is 12 bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0, true);
  if (magic !== GLB_MAGIC) {
    const hex = magic.toString(16).padStart(8, '0');
    throw new GltfError(fileName, `not a GLB file: wrong magic 0x${hex} in the header (expected 'glTF')`);
  }
  const version = view.getUint32(4, true);
  if (version !== 2)
    throw new GltfError(fileName, `GLB header version ${version}: only glTF 2.0 is supported`);
  const length = view.getUint32(8, true);
  if (length > bytes.length) {
    throw new GltfError(
      fileName,
      `truncated GLB: the header says ${length} bytes, the file has ${bytes.length}`,
    );
  }
  if (length < 20) throw new GltfError(fileName, `GLB header length ${length}: no room for the JSON chunk`);
  const chunkLength = view.getUint32(12, true);
  const chunkType = view.getUint32(16, true);
  if (chunkType !== CHUNK_JSON) {
    throw new GltfError(
      fileName,
      `GLB chunk 0 has type 0x${chunkType.toString(16)}, expected the JSON chunk`,
    );
  }
  if (20 + chunkLength > length) {
    throw new GltfError(
      fileName,
      `truncated GLB: the JSON chunk is ${chunkLength} bytes but only ${length - 20} remain`,
    );
  }
  const json = parseJsonText(bytes.subarray(20, 20 + chunkLength), fileName, 'GLB JSON chunk');
  let bin: Uint8Array | null = null;
  const next = 20 + chunkLength;
  if (next + 8 <= length && view.getUint32(next + 4, true) === CHUNK_BIN) {
    const binLength = view.getUint32(next, true);
    if (next + 8 + binLength > length) {
      throw new GltfError(
        fileName,
        `truncated GLB: the BIN chunk is ${binLength} bytes but only ${length - next - 8} remain`,
      );
    }
    bin = bytes.subarray(next + 8, next + 8 + binLength);
  } else if (next < length && next + 8 > length) {
    throw new GltfError(
      fileName,
      `truncated GLB: ${length - next} bytes after the JSON chunk, not a chunk header`,
    );
  }
  return { json, glb: true, bin };
}

function parseJsonText(bytes: Uint8Array, fileName: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8').decode(bytes));
  } catch (e) {
    throw new GltfError(fileName, `${what} is not valid JSON (${(e as Error).message})`, { cause: e });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new GltfError(fileName, `${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Collects glTF Transform's log lines (unknown extensions etc.) instead of printing them. */
class CollectingLogger implements ILogger {
  readonly lines: string[] = [];
  debug(): void {}
  info(): void {}
  warn(text: string): void {
    this.lines.push(text);
  }
  error(text: string): void {
    this.lines.push(text);
  }
}

/** Extension name of Draco mesh compression (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Khronos/KHR_draco_mesh_compression). */
export const KHR_DRACO = 'KHR_draco_mesh_compression';

/**
 * Decoders for compressed geometry, given by the host (this module loads no WebAssembly and stays free
 * of Node APIs; the `kind` command passes the ones of io/node/gltfDecoders.ts). Each is a function
 * returning the decoder (or a promise of it), called only when a file uses the extension:
 * - `draco`: a Draco decoder module, what `createDecoderModule()` of the `draco3dgltf` npm package
 *   resolves to (glTF Transform's `draco3d.decoder` dependency), for KHR_draco_mesh_compression;
 * - `meshopt`: `MeshoptDecoder` of the `meshoptimizer` npm package, its `ready` promise settled
 *   (glTF Transform's `meshopt.decoder`), for EXT_meshopt_compression.
 * Decoded geometry is plain accessors: the GLB that `writeRetargetedGlb` writes is uncompressed.
 */
export interface GltfDecoders {
  draco?: () => unknown;
  meshopt?: () => unknown;
}

/**
 * Bytes of a file a `.gltf` refers to, by its relative path (the URI percent-decoded:
 * `textures/skin%20a.png` is asked as `textures/skin a.png`); `undefined` when there is no such file.
 */
export type GltfResources = (path: string) => Uint8Array | undefined;

/** Percent-decoding of a relative URI (RFC 3986), the URI itself when it is not valid encoding. */
function uriToPath(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/**
 * Read a glTF Transform document from GLB or `.gltf` bytes. Buffers and images come from the GLB
 * `BIN` chunk, `data:` URIs, `options.resources` (external files, asked by relative path, see
 * {@link GltfResources}) or `options.external` (external files by URI as written, as returned in
 * `external`; takes precedence). Before glTF Transform runs, the JSON is checked (every index reference,
 * accessor/buffer view byte ranges, node hierarchy, finite node transforms: `checkGltfJson`); after it,
 * decomposed matrices and inverse bind matrices (`checkGltfDocument`).
 * @throws GltfError naming the file and the field (JSON pointer) or the missing external file, or
 * wrapping any remaining glTF Transform failure (e.g. a required extension it does not support).
 */
export async function loadGltfDocument(
  bytes: Uint8Array,
  fileName: string,
  options: {
    parsed?: ReturnType<typeof parseGltfJson>;
    resources?: GltfResources;
    external?: Readonly<Record<string, Uint8Array>>;
    decoders?: GltfDecoders;
  } = {},
): Promise<{ document: Document; warnings: string[]; external: Record<string, Uint8Array> }> {
  const parsed = options.parsed ?? parseGltfJson(bytes, fileName);
  const { resources, external: known } = options;
  const lookup = (uri: string): Uint8Array | undefined =>
    known && uri in known ? known[uri] : resources?.(uriToPath(uri));
  const resolved = resolveGltfResources(
    parsed.json,
    parsed.glb ? { bin: parsed.bin } : null,
    fileName,
    lookup,
  );
  checkGltfJson(resolved.json, resolved.bufferLengths, fileName);
  const logger = new CollectingLogger();
  const io = new WebIO().registerExtensions(ALL_EXTENSIONS).setLogger(logger);
  const compressed = await registerDecoders(io, resolved.json, fileName, options.decoders);
  let document: Document;
  try {
    document = await io.readJSON({ json: resolved.json as never, resources: resolved.resources as never });
  } catch (e) {
    if (e instanceof GltfError) throw e;
    const msg = (e as Error)?.message ?? String(e);
    // a decoder that fails on the file's data (glTF Transform tags its messages with the extension)
    const ext = compressed.find((x) => msg.includes(x)) ?? (compressed.length === 1 ? compressed[0] : null);
    throw new GltfError(
      fileName,
      ext
        ? `${ext}: could not decode the compressed geometry (${msg})`
        : `could not read the glTF document: ${msg}`,
      { cause: e },
    );
  }
  checkGltfDocument(document, resolved.json, fileName);
  return { document, warnings: logger.lines, external: resolved.external };
}

/**
 * Register with `io` the decoders the file's `extensionsUsed` needs; returns the compression
 * extensions used. @throws GltfError naming the extension when the file needs a decoder that
 * `decoders` does not give (a required extension, or meshopt's URI-less fallback buffer, which holds no
 * data to fall back on).
 */
async function registerDecoders(
  io: WebIO,
  json: Record<string, unknown>,
  fileName: string,
  decoders: GltfDecoders | undefined,
): Promise<string[]> {
  const list = (key: string) => (Array.isArray(json[key]) ? (json[key] as unknown[]) : []);
  const used = list('extensionsUsed');
  const required = list('extensionsRequired');
  const compressed = [KHR_DRACO, EXT_MESHOPT].filter((x) => used.includes(x) || required.includes(x));
  const deps: Record<string, unknown> = {};
  for (const ext of compressed) {
    const factory = ext === KHR_DRACO ? decoders?.draco : decoders?.meshopt;
    const needed =
      ext === KHR_DRACO ||
      required.includes(ext) ||
      list('buffers').some((b) => isObject(b) && b.uri === undefined && isMeshoptFallback(b));
    if (!factory) {
      if (!needed) continue;
      throw new GltfError(
        fileName,
        `${ext}: the file's geometry is ${ext === KHR_DRACO ? 'Draco' : 'meshopt'}-compressed and no decoder was given (readAvatar options.decoders.${ext === KHR_DRACO ? 'draco' : 'meshopt'}; \`kind\` gives one)`,
      );
    }
    let decoder: unknown;
    try {
      decoder = await factory();
    } catch (e) {
      throw new GltfError(fileName, `${ext}: the decoder could not start: ${(e as Error)?.message ?? e}`, {
        cause: e,
      });
    }
    deps[ext === KHR_DRACO ? 'draco3d.decoder' : 'meshopt.decoder'] = decoder;
  }
  io.registerDependencies(deps);
  return compressed;
}

/** The glTF Transform IO used for writing (all known extensions, log lines kept out of the console). */
export function createGltfIo(): WebIO {
  return new WebIO().registerExtensions(ALL_EXTENSIONS).setLogger(new CollectingLogger());
}

// ---------------------------------------------------------------------------------------------
// VRM humanoid maps.

/**
 * VRM humanoid bone name -> Unity `HumanBodyBones` name. VRM 0.x uses Unity's names in lowerCamelCase
 * (VRM 0.x spec, "humanoid"), so the default is an upper-casing of the first letter. VRM 1.0 renamed the
 * thumb: `thumbMetacarpal`, `thumbProximal`, `thumbDistal` (VRMC_vrm-1.0/humanoid.md, "Finger") hold
 * the bones VRM 0.x and Unity call thumb Proximal, Intermediate, Distal (UniVRM's VRM 0.x -> 1.0
 * migration renames them that way).
 */
export function vrmBoneToHumanBone(vrmName: string, version: 0 | 1): number {
  let name = vrmName;
  if (version === 1) {
    const m = /^(left|right)Thumb(Metacarpal|Proximal)$/.exec(vrmName);
    if (m) name = `${m[1]}Thumb${m[2] === 'Metacarpal' ? 'Proximal' : 'Intermediate'}`;
    else if (/^(left|right)ThumbIntermediate$/.test(vrmName)) return -1; // not a VRM 1.0 bone
  }
  if (name.length === 0) return -1;
  return humanBoneIndex(name[0].toUpperCase() + name.slice(1));
}

interface VrmHumanoid {
  format: 'vrm0' | 'vrm1';
  /** glTF node per HumanBodyBones value, -1 where missing. */
  nodeOfHuman: Int32Array;
  warnings: string[];
}

/** Remove in place the elements for which `test` holds. */
function removeIf<T>(list: T[], test: (x: T) => boolean): void {
  let k = 0;
  for (const x of list) if (!test(x)) list[k++] = x;
  list.length = k;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The VRM humanoid map of a file, read from the raw JSON (glTF Transform drops unknown extensions):
 * VRM 1.0 `extensions.VRMC_vrm.humanoid.humanBones` (`{hips: {node}}`) takes precedence over VRM 0.x
 * `extensions.VRM.humanoid.humanBones` (`[{bone, node}]`). Returns null for a plain glTF.
 * Unknown bone names and repeated bones are skipped with a warning; so are VRM 0.x entries with
 * `"node": -1`, which UniVRM 0.61 writes for unassigned bones (the bone is absent from the map).
 * @throws GltfError naming the field when the structure is wrong or a node index is out of range.
 */
export function readVrmHumanoid(
  json: Record<string, unknown>,
  nodeCount: number,
  fileName: string,
): VrmHumanoid | null {
  const ext = json.extensions;
  if (ext === undefined) return null;
  if (!isObject(ext)) throw new GltfError(fileName, 'extensions: expected an object');
  const nodeOfHuman = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  const warnings: string[] = [];
  const place = (bone: string, node: unknown, field: string, version: 0 | 1) => {
    if (node === -1 && version === 0) {
      // UniVRM 0.61 writes unassigned bones as node -1 (three-vrm skips them, pixiv/three-vrm#1842)
      warnings.push(`${field}: -1 (bone '${bone}' not assigned): treated as absent`);
      return;
    }
    if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || node >= nodeCount) {
      throw new GltfError(
        fileName,
        `${field}: ${JSON.stringify(node)} is not a node index (0..${nodeCount - 1})`,
      );
    }
    const h = vrmBoneToHumanBone(bone, version);
    if (h < 0) {
      warnings.push(`${field}: unknown VRM ${version === 0 ? '0.x' : '1.0'} bone '${bone}' skipped`);
      return;
    }
    if (nodeOfHuman[h] >= 0) {
      warnings.push(`${field}: bone '${bone}' given twice; the first (node ${nodeOfHuman[h]}) is kept`);
      return;
    }
    nodeOfHuman[h] = node;
  };
  if (ext.VRMC_vrm !== undefined) {
    const base = 'extensions.VRMC_vrm.humanoid.humanBones';
    const vrm = ext.VRMC_vrm;
    const humanoid = isObject(vrm) ? vrm.humanoid : undefined;
    const bones = isObject(humanoid) ? humanoid.humanBones : undefined;
    if (!isObject(bones)) throw new GltfError(fileName, `${base}: missing or not an object`);
    for (const [bone, value] of Object.entries(bones)) {
      if (!isObject(value)) throw new GltfError(fileName, `${base}.${bone}: expected an object {node}`);
      place(bone, value.node, `${base}.${bone}.node`, 1);
    }
    return { format: 'vrm1', nodeOfHuman, warnings };
  }
  if (ext.VRM !== undefined) {
    const base = 'extensions.VRM.humanoid.humanBones';
    const vrm = ext.VRM;
    const humanoid = isObject(vrm) ? vrm.humanoid : undefined;
    const bones = isObject(humanoid) ? humanoid.humanBones : undefined;
    if (!Array.isArray(bones)) throw new GltfError(fileName, `${base}: missing or not an array`);
    bones.forEach((entry, k) => {
      if (!isObject(entry) || typeof entry.bone !== 'string') {
        throw new GltfError(fileName, `${base}[${k}]: expected an object {bone: string, node: number}`);
      }
      place(entry.bone, entry.node, `${base}[${k}].node`, 0);
    });
    return { format: 'vrm0', nodeOfHuman, warnings };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Skeleton extraction.

/** Relative tolerance for "uniform" scale. */
const SCALE_TOLERANCE = 1e-4;

interface NodeGraph {
  nodes: GltfNode[];
  parent: Int32Array;
  children: number[][];
  roots: number[];
}

function nodeGraph(document: Document, fileName: string): NodeGraph {
  const nodes = document.getRoot().listNodes();
  const index = new Map<GltfNode, number>(nodes.map((n, i) => [n, i]));
  const parent = new Int32Array(nodes.length).fill(-1);
  const children: number[][] = nodes.map(() => []);
  nodes.forEach((n, i) => {
    for (const c of n.listChildren()) {
      const ci = index.get(c);
      if (ci === undefined) continue;
      if (parent[ci] >= 0 && parent[ci] !== i) {
        throw new GltfError(fileName, `nodes[${ci}] is a child of both nodes[${parent[ci]}] and nodes[${i}]`);
      }
      parent[ci] = i;
      children[i].push(ci);
    }
  });
  const roots: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    let p = i;
    let steps = 0;
    while (parent[p] >= 0) {
      p = parent[p];
      if (++steps > nodes.length)
        throw new GltfError(fileName, `nodes[${i}]: the node hierarchy has a cycle`);
    }
    if (parent[i] < 0) roots.push(i);
  }
  return { nodes, parent, children, roots };
}

function nodeLabel(graph: NodeGraph, i: number): string {
  const name = graph.nodes[i].getName();
  return name ? `nodes[${i}] '${name}'` : `nodes[${i}]`;
}

/** Node indices that are skeleton bones (unordered). */
function selectBones(
  graph: NodeGraph,
  document: Document,
  fileMap: { nodeOfHuman: Int32Array; what: string } | null,
  overrideHips: string | null | undefined,
  fileName: string,
): boolean[] {
  const n = graph.nodes.length;
  const index = new Map<GltfNode, number>(graph.nodes.map((node, i) => [node, i]));
  const inSet = new Array<boolean>(n).fill(false);
  let jointCount = 0;
  for (const skin of document.getRoot().listSkins()) {
    for (const joint of skin.listJoints()) {
      const i = index.get(joint);
      if (i !== undefined && !inSet[i]) {
        inSet[i] = true;
        jointCount++;
      }
    }
  }
  const humanNodes = fileMap ? Array.from(fileMap.nodeOfHuman).filter((x) => x >= 0) : [];
  if (jointCount === 0) {
    let hips = fileMap ? fileMap.nodeOfHuman[0] : -1;
    if (hips < 0 && overrideHips) {
      hips = nodeByBoneName(graph, overrideHips);
      if (hips < 0) throw new GltfError(fileName, `mapOverride.Hips: no node named '${overrideHips}'`);
    }
    if (hips < 0) {
      throw new GltfError(
        fileName,
        fileMap
          ? `no skin joints and no hips in the ${fileMap.what}: no skeleton to read`
          : `no skin joints and no VRM humanoid map (extensions.VRM / extensions.VRMC_vrm), extras.${HUMANOID_EXTRAS_KEY} map or mapOverride.Hips: no skeleton to read`,
      );
    }
    const isHuman = new Set(humanNodes);
    const stack = [hips];
    while (stack.length > 0) {
      const i = stack.pop()!;
      const leafMesh = graph.children[i].length === 0 && graph.nodes[i].getMesh() !== null && !isHuman.has(i);
      if (!leafMesh) inSet[i] = true;
      for (const c of graph.children[i]) stack.push(c);
    }
  }
  for (const h of humanNodes) inSet[h] = true;
  // Connect: nodes between a bone and its nearest bone ancestor.
  const selected = inSet.map((v, i) => (v ? i : -1)).filter((i) => i >= 0);
  for (const i of selected) {
    const path: number[] = [];
    let p = graph.parent[i];
    while (p >= 0 && !inSet[p]) {
      path.push(p);
      p = graph.parent[p];
    }
    if (p >= 0) for (const q of path) inSet[q] = true;
  }
  // Several top bones: join them at their lowest common ancestor, when they have one.
  const tops = inSet.map((v, i) => (v && !hasMarkedAncestor(graph, inSet, i) ? i : -1)).filter((i) => i >= 0);
  if (tops.length > 1) {
    const chains = tops.map((t) => ancestorsFromRoot(graph, t));
    let depth = 0;
    while (chains.every((c) => depth < c.length && c[depth] === chains[0][depth])) depth++;
    if (depth > 0) {
      for (const c of chains) for (let k = depth - 1; k < c.length; k++) inSet[c[k]] = true;
    }
  }
  return inSet;
}

/**
 * The node a bone name refers to (the naming rule of the module comment: `node<index>` for an unnamed
 * node, `<name>#<index>` for a repeated name), or -1 when none or when the plain name is not unique.
 */
function nodeByBoneName(graph: NodeGraph, boneName: string): number {
  const suffixed = /^(.*)#(\d+)$/.exec(boneName);
  if (suffixed) {
    const i = Number(suffixed[2]);
    if (i < graph.nodes.length && graph.nodes[i].getName() === suffixed[1]) return i;
  }
  const unnamed = /^node(\d+)$/.exec(boneName);
  if (unnamed) {
    const i = Number(unnamed[1]);
    if (i < graph.nodes.length && graph.nodes[i].getName() === '') return i;
  }
  const hits = graph.nodes.map((n, i) => (n.getName() === boneName ? i : -1)).filter((i) => i >= 0);
  return hits.length === 1 ? hits[0] : -1;
}

function hasMarkedAncestor(graph: NodeGraph, marked: boolean[], i: number): boolean {
  for (let p = graph.parent[i]; p >= 0; p = graph.parent[p]) if (marked[p]) return true;
  return false;
}

/** Chain of node indices from the scene root down to `i` (inclusive). */
function ancestorsFromRoot(graph: NodeGraph, i: number): number[] {
  const chain: number[] = [];
  for (let p = i; p >= 0; p = graph.parent[p]) chain.push(p);
  return chain.reverse();
}

/**
 * Uniform scale of a node, or throw naming the node. With `nonUniform`, a positive non-uniform scale
 * does not throw: the node is added to the list and its mean scale returned.
 */
function uniformScale(graph: NodeGraph, i: number, fileName: string, nonUniform?: Set<number>): number {
  const s = graph.nodes[i].getScale();
  const lo = Math.min(s[0], s[1], s[2]);
  const hi = Math.max(s[0], s[1], s[2]);
  if (!(lo > 0) || !Number.isFinite(hi)) {
    throw new GltfError(
      fileName,
      `${nodeLabel(graph, i)}: scale [${s.join(', ')}] is not positive (mirrored or zero scale is not supported on the skeleton chain)`,
    );
  }
  if (hi - lo > SCALE_TOLERANCE * hi) {
    if (nonUniform) {
      nonUniform.add(i);
      return (s[0] + s[1] + s[2]) / 3;
    }
    throw new GltfError(
      fileName,
      `${nodeLabel(graph, i)}: non-uniform scale [${s.join(', ')}] on the skeleton chain is not supported`,
    );
  }
  return (s[0] + s[1] + s[2]) / 3;
}

/** World rotation, translation and uniform scale of node `i` (scales checked uniform). */
function nodeWorld(graph: NodeGraph, i: number, fileName: string, outR: quat, outT: vec3): number {
  quat.identity(outR);
  vec3.set(outT, 0, 0, 0);
  let s = 1;
  const r = quat64();
  const t = vec64();
  for (const k of ancestorsFromRoot(graph, i)) {
    const node = graph.nodes[k];
    const nt = node.getTranslation();
    const nr = node.getRotation();
    vec3.set(t, nt[0] * s, nt[1] * s, nt[2] * s);
    vec3.transformQuat(t, t, outR);
    vec3.add(outT, outT, t);
    quat.set(r, nr[0], nr[1], nr[2], nr[3]);
    quat.normalize(r, r);
    quat.multiply(outR, outR, r);
    s *= uniformScale(graph, k, fileName);
  }
  return s;
}

interface SkeletonParts {
  nodeOfBone: Int32Array;
  boneOfNode: Int32Array;
  skeleton: Skeleton;
  parentScale: Float64Array;
  parentRotation: Float64Array;
  parentTranslation: Float64Array;
}

/**
 * The skeleton of the bones `inSet`. A bone with bone children and a non-uniform scale throws, unless
 * `nonUniform` is given: then it is added to that set and its children's translations are scaled by its
 * mean scale (the caller rebuilds without them, see readAvatarChecked).
 */
function buildSkeleton(
  graph: NodeGraph,
  inSet: boolean[],
  fileName: string,
  nonUniform?: Set<number>,
): SkeletonParts {
  const order: number[] = [];
  const stack = [...graph.roots].reverse();
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (inSet[i]) order.push(i);
    const ch = graph.children[i];
    for (let k = ch.length - 1; k >= 0; k--) stack.push(ch[k]);
  }
  const n = order.length;
  const boneOfNode = new Int32Array(graph.nodes.length).fill(-1);
  order.forEach((node, b) => {
    boneOfNode[node] = b;
  });
  const parents = new Int32Array(n);
  const names: string[] = [];
  const taken = new Set<string>();
  const parentScale = new Float64Array(n);
  const parentRotation = new Float64Array(4 * n);
  const parentTranslation = new Float64Array(3 * n);
  const restT = new Float64Array(3 * n);
  const restR = new Float64Array(4 * n);
  const wr = quat64();
  const wt = vec64();
  const t = vec64();
  const r = quat64();
  const scaleOf = new Map<number, number>();
  for (let b = 0; b < n; b++) {
    const node = order[b];
    const p = graph.parent[node];
    parents[b] = p >= 0 ? boneOfNode[p] : -1;
    let name = graph.nodes[node].getName() || `node${node}`;
    while (taken.has(name)) name = `${name}#${node}`;
    taken.add(name);
    names.push(name);
    if (parents[b] < 0) {
      // Root bone: the parent's world transform is folded in.
      parentScale[b] = nodeWorld(graph, p, fileName, wr, wt); // identity for a scene root (p = -1)
      writeQuat(parentRotation, b, wr);
      writeVec3(parentTranslation, b, wt);
    } else {
      const pb = parents[b];
      let ps = scaleOf.get(pb);
      if (ps === undefined) {
        ps = parentScale[pb] * uniformScale(graph, order[pb], fileName, nonUniform);
        scaleOf.set(pb, ps);
      }
      parentScale[b] = ps;
      writeQuat(parentRotation, b, quat.identity(wr));
      writeVec3(parentTranslation, b, vec3.set(wt, 0, 0, 0));
    }
    const nt = graph.nodes[node].getTranslation();
    const nr = graph.nodes[node].getRotation();
    vec3.set(t, nt[0], nt[1], nt[2]);
    quat.set(r, nr[0], nr[1], nr[2], nr[3]);
    const len = quat.length(r);
    if (!(len > 1e-12) || !Number.isFinite(len) || !Number.isFinite(t[0] + t[1] + t[2])) {
      throw new GltfError(
        fileName,
        `${nodeLabel(graph, node)}: rest translation/rotation is not a finite TRS`,
      );
    }
    quat.scale(r, r, 1 / len);
    boneLocalFromNodeParts(parentScale, parentRotation, parentTranslation, b, t, r, t, r);
    writeVec3(restT, b, t);
    writeQuat(restR, b, r);
  }
  let skeleton: Skeleton;
  try {
    skeleton = createSkeleton({ names, parents, restTranslations: restT, restRotations: restR });
  } catch (e) {
    if (e instanceof SkeletonError) throw new GltfError(fileName, e.message, { cause: e });
    throw e;
  }
  return {
    nodeOfBone: Int32Array.from(order),
    boneOfNode,
    skeleton,
    parentScale,
    parentRotation,
    parentTranslation,
  };
}

const cq = quat64();
const cv = vec64();

function boneLocalFromNodeParts(
  parentScale: Float64Array,
  parentRotation: Float64Array,
  parentTranslation: Float64Array,
  bone: number,
  nodeT: ArrayLike<number>,
  nodeR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  const s = parentScale[bone];
  readQuat(cq, parentRotation, bone);
  vec3.set(cv, nodeT[0] * s, nodeT[1] * s, nodeT[2] * s);
  vec3.transformQuat(cv, cv, cq);
  const o = 3 * bone;
  outT[0] = cv[0] + parentTranslation[o];
  outT[1] = cv[1] + parentTranslation[o + 1];
  outT[2] = cv[2] + parentTranslation[o + 2];
  // outR = parentRotation * nodeR (outR may alias nodeR: compute into scratch first)
  const ax = cq[0];
  const ay = cq[1];
  const az = cq[2];
  const aw = cq[3];
  const bx = nodeR[0];
  const by = nodeR[1];
  const bz = nodeR[2];
  const bw = nodeR[3];
  outR[0] = ax * bw + aw * bx + ay * bz - az * by;
  outR[1] = ay * bw + aw * by + az * bx - ax * bz;
  outR[2] = az * bw + aw * bz + ax * by - ay * bx;
  outR[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** The per-bone frames of an {@link Avatar} used by the node <-> skeleton conversions. */
export type BoneFrames = Pick<Avatar, 'parentScale' | 'parentRotation' | 'parentTranslation'>;

/**
 * Skeleton-local transform of `bone` from its glTF node-local translation/rotation:
 * `t = parentRotation * (parentScale * nodeT) + parentTranslation`, `r = parentRotation * nodeR`
 * (the parent frame is identity for non-root bones). Outputs may alias the inputs. Allocates nothing.
 */
export function boneLocalFromNode(
  frames: BoneFrames,
  bone: number,
  nodeT: ArrayLike<number>,
  nodeR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  boneLocalFromNodeParts(
    frames.parentScale,
    frames.parentRotation,
    frames.parentTranslation,
    bone,
    nodeT,
    nodeR,
    outT,
    outR,
  );
}

/**
 * Inverse of {@link boneLocalFromNode}: glTF node-local translation/rotation of `bone` from its
 * skeleton-local transform. Outputs may alias the inputs. Allocates nothing.
 */
export function nodeLocalFromBone(
  frames: BoneFrames,
  bone: number,
  boneT: ArrayLike<number>,
  boneR: ArrayLike<number>,
  outT: NumArray,
  outR: NumArray,
): void {
  readQuat(cq, frames.parentRotation, bone);
  quat.conjugate(cq, cq);
  const o = 3 * bone;
  const pt = frames.parentTranslation;
  vec3.set(cv, boneT[0] - pt[o], boneT[1] - pt[o + 1], boneT[2] - pt[o + 2]);
  vec3.transformQuat(cv, cv, cq);
  const s = frames.parentScale[bone];
  outT[0] = cv[0] / s;
  outT[1] = cv[1] / s;
  outT[2] = cv[2] / s;
  const ax = cq[0];
  const ay = cq[1];
  const az = cq[2];
  const aw = cq[3];
  const bx = boneR[0];
  const by = boneR[1];
  const bz = boneR[2];
  const bw = boneR[3];
  outR[0] = ax * bw + aw * bx + ay * bz - az * by;
  outR[1] = ay * bw + aw * by + az * bx - ax * bz;
  outR[2] = az * bw + aw * bz + ax * by - ay * bx;
  outR[3] = aw * bw - ax * bx - ay * by - az * bz;
}

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
  if (vrm) {
    // glTF Transform does not know the VRM extensions and says so; this reader read the humanoid.
    const read = vrm.format === 'vrm1' ? 'VRMC_vrm' : 'VRM';
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
