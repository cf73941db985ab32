/**
 * glTF 2.0 input checks done before and after glTF Transform reads a file, so malformed input gives a
 * {@link GltfError} naming the field instead of a TypeError from deep inside the reader:
 *
 * - {@link resolveGltfResources}: the bytes of every buffer and image (GLB `BIN` chunk, `data:` URIs,
 *   external files through a caller-supplied lookup).
 * - {@link checkGltfJson}: every index reference the reader follows (JSON pointers, RFC 6901, name the
 *   field: `/skins/0/joints/3: node index 999 out of range (67 nodes)`), accessor and buffer view byte
 *   ranges, the node hierarchy (one parent per node, no cycles, scene nodes are roots) and finite node
 *   transforms.
 * - {@link checkGltfDocument}: values only known after reading (decomposed node matrices, inverse bind
 *   matrices).
 *
 * Rules from the glTF 2.0 spec (https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html): sections
 * "Buffers and Buffer Views", "Accessors" (byte ranges, `byteStride`), "Nodes and Hierarchy" (a node
 * has at most one parent, no cycles, scene nodes are root nodes; `rotation` is a unit quaternion),
 * "Skins" (`inverseBindMatrices` is a MAT4 float accessor with at least one matrix per joint),
 * "GLB File Format Specification" (buffer 0 without `uri` is the `BIN` chunk, which may be up to 3
 * bytes longer than the buffer), and RFC 2397 for `data:` URIs.
 */
import { type Document, GLB_BUFFER } from '@gltf-transform/core';
import { GltfError } from './gltfError';

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * At most `max` names joined by `, `, then ` ... and N more` (`a, b, c, d, e ... and 62 more`), for
 * warnings that would otherwise list every bone of a rig on one line.
 */
export function nameList(names: Iterable<string>, max = 5): string {
  const all = [...names];
  if (all.length <= max) return all.join(', ');
  return `${all.slice(0, max).join(', ')} ... and ${all.length - max} more`;
}

// ---------------------------------------------------------------------------------------------
// Resources.

/**
 * Bytes of an external file referenced by a `.gltf`, by the URI as written in the file; `undefined`
 * when the file is not there.
 */
/** Extension name of meshopt compression (https://github.com/KhronosGroup/glTF/tree/main/extensions/2.0/Vendor/EXT_meshopt_compression). */
export const EXT_MESHOPT = 'EXT_meshopt_compression';

/**
 * A buffer marked as EXT_meshopt_compression's fallback (`extensions.EXT_meshopt_compression.fallback:
 * true`). Such a buffer may have no `uri`: its buffer views are then only readable through their
 * compressed data (the extension spec, "Fallback buffers").
 */
export function isMeshoptFallback(buffer: Json): boolean {
  const ext = buffer.extensions;
  if (!isObject(ext)) return false;
  const m = ext[EXT_MESHOPT];
  return isObject(m) && m.fallback === true;
}

export type ResourceLookup = (uri: string) => Uint8Array | undefined;

/** A glTF JSON with all its buffer and image bytes at hand. */
export interface ResolvedGltf {
  /** A copy of the JSON for glTF Transform's `readJSON` (`data:` URIs replaced by resource keys). */
  json: Json;
  /** glTF Transform resource map: `@glb.bin`, decoded `data:` URIs, external files. */
  resources: Record<string, Uint8Array>;
  /** The external files only, by URI as written in the file. */
  external: Record<string, Uint8Array>;
  /** Declared `byteLength` of each buffer (checked to be at most its data length). */
  bufferLengths: number[];
}

const URI_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Decode a `data:` URI (RFC 2397: `data:[<mediatype>][;base64],<data>`; base64 per RFC 4648, also the
 * URL-safe alphabet; otherwise percent-encoded bytes). Returns null when malformed.
 */
export function decodeDataUri(uri: string): { mediaType: string; bytes: Uint8Array } | null {
  const comma = uri.indexOf(',');
  if (!uri.startsWith('data:') || comma < 0) return null;
  const header = uri.slice(5, comma);
  const body = uri.slice(comma + 1);
  const base64 = /;base64$/i.test(header);
  const mediaType = (base64 ? header.slice(0, -7) : header).split(';')[0];
  if (!base64) {
    const out: number[] = [];
    for (let i = 0; i < body.length; i++) {
      const c = body.charCodeAt(i);
      if (c === 0x25) {
        const hex = body.slice(i + 1, i + 3);
        if (!/^[0-9a-f]{2}$/i.test(hex)) return null;
        out.push(Number.parseInt(hex, 16));
        i += 2;
      } else if (c < 0x80) out.push(c);
      else return null;
    }
    return { mediaType, bytes: Uint8Array.from(out) };
  }
  const text = body.replace(/[\s]/g, '').replace(/=+$/, '');
  if (text.length % 4 === 1) return null;
  const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let v: number;
    if (c >= 65 && c <= 90) v = c - 65;
    else if (c >= 97 && c <= 122) v = c - 71;
    else if (c >= 48 && c <= 57) v = c + 4;
    else if (c === 43 || c === 45)
      v = 62; // '+' or '-'
    else if (c === 47 || c === 95)
      v = 63; // '/' or '_'
    else return null;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = (acc >> bits) & 0xff;
    }
  }
  return { mediaType, bytes };
}

/**
 * The bytes of every buffer and image of a glTF JSON: buffer 0 of a GLB without `uri` is the `BIN`
 * chunk; `data:` URIs are decoded; other relative URIs come from `lookup` (called with the URI as
 * written, e.g. `model.bin`, `textures/skin%20a.png`).
 * @throws GltfError naming the file and the URI when `lookup` has no such file
 * (`buffer 0 'model.bin' not found (a .gltf with external files needs them next to it)`), or the field
 * when a buffer has no data, a `data:` URI is malformed, a URI has a scheme other than `data:`
 * (`http:`, `file:`), or a buffer's `byteLength` exceeds its data.
 */
export function resolveGltfResources(
  json: Json,
  glb: { bin: Uint8Array | null } | null,
  fileName: string,
  lookup: ResourceLookup | undefined,
): ResolvedGltf {
  const fail = (message: string): never => {
    throw new GltfError(fileName, message);
  };
  const resources: Record<string, Uint8Array> = {};
  const external: Record<string, Uint8Array> = {};
  const needsThem = `(a ${glb ? '.glb' : '.gltf'} with external files needs them next to it)`;
  const fetch = (what: string, i: number, uri: string): Uint8Array => {
    if (URI_SCHEME.test(uri)) {
      fail(`${what} ${i} '${uri}': only data: URIs and relative file paths are supported`);
    }
    if (uri in external) return external[uri];
    let data: Uint8Array | undefined;
    try {
      data = lookup?.(uri);
    } catch (e) {
      throw new GltfError(
        fileName,
        `${what} ${i} '${uri}' could not be read: ${(e as Error)?.message ?? e}`,
        {
          cause: e,
        },
      );
    }
    if (!(data instanceof Uint8Array)) return fail(`${what} ${i} '${uri}' not found ${needsThem}`);
    external[uri] = data;
    return data;
  };
  const listOf = (key: string): Json[] => {
    const list = json[key];
    if (list === undefined) return [];
    if (!Array.isArray(list)) return fail(`/${key}: expected an array`);
    list.forEach((v, i) => {
      if (!isObject(v)) fail(`/${key}/${i}: expected an object`);
    });
    return list as Json[];
  };

  const bufferLengths: number[] = [];
  const fallbacks = new Set<number>();
  const buffers = listOf('buffers').map((def, i) => {
    const ptr = `/buffers/${i}`;
    const byteLength = def.byteLength;
    if (!isIndex(byteLength) || byteLength < 1) {
      fail(`${ptr}/byteLength: ${JSON.stringify(byteLength)} is not a positive integer`);
    }
    const length = byteLength as number;
    const uri = def.uri;
    let data: Uint8Array;
    let key: string;
    let source: string;
    if (uri === undefined && isMeshoptFallback(def) && !(glb && i === 0)) {
      // EXT_meshopt_compression's fallback buffer without data: the decoder fills its views
      bufferLengths.push(length);
      fallbacks.add(i);
      return { ...def };
    }
    if (uri === undefined) {
      if (!glb || i !== 0)
        fail(
          `${ptr}: no uri (only the first buffer of a GLB, or an ${EXT_MESHOPT} fallback buffer, may omit it)`,
        );
      if (!glb?.bin) return fail(`${ptr}: no uri and the GLB has no BIN chunk`);
      data = glb.bin;
      key = GLB_BUFFER;
      source = 'the GLB BIN chunk';
    } else if (typeof uri !== 'string') {
      return fail(`${ptr}/uri: expected a string`);
    } else if (uri.startsWith('data:')) {
      const decoded = decodeDataUri(uri);
      if (!decoded) return fail(`${ptr}/uri: malformed data: URI`);
      data = decoded.bytes;
      key = `__kind_buffer${i}.bin`;
      source = 'its data: URI';
    } else {
      data = fetch('buffer', i, uri);
      key = uri;
      source = `'${uri}'`;
    }
    if (data.length < length) {
      fail(`${ptr}/byteLength: ${length} bytes, but ${source} holds ${data.length}`);
    }
    resources[key] = data;
    bufferLengths.push(length);
    return key === GLB_BUFFER ? { ...def } : { ...def, uri: key };
  });

  // A view of a data-less fallback buffer must say where its compressed data is.
  if (fallbacks.size > 0) {
    listOf('bufferViews').forEach((view, v) => {
      const ext = view.extensions;
      if (fallbacks.has(view.buffer as number) && !(isObject(ext) && isObject(ext[EXT_MESHOPT]))) {
        fail(
          `/bufferViews/${v}: views buffer ${view.buffer}, an ${EXT_MESHOPT} fallback buffer without uri, but has no ${EXT_MESHOPT} extension (no data to read)`,
        );
      }
    });
  }

  const images = listOf('images').map((def, i) => {
    const ptr = `/images/${i}`;
    const uri = def.uri;
    if (uri === undefined) {
      if (def.bufferView === undefined) fail(`${ptr}: neither uri nor bufferView`);
      return { ...def };
    }
    if (typeof uri !== 'string') return fail(`${ptr}/uri: expected a string`);
    if (uri.startsWith('data:')) {
      const decoded = decodeDataUri(uri);
      if (!decoded) return fail(`${ptr}/uri: malformed data: URI`);
      const key = `__kind_image${i}`;
      resources[key] = decoded.bytes;
      const mimeType =
        def.mimeType ?? (decoded.mediaType.startsWith('image/') ? decoded.mediaType : undefined);
      return { ...def, uri: key, mimeType };
    }
    resources[uri] = fetch('image', i, uri);
    return { ...def };
  });

  const copy: Json = { ...json };
  if (json.buffers !== undefined) copy.buffers = buffers;
  if (json.images !== undefined) copy.images = images;
  return { json: copy, resources, external, bufferLengths };
}

// ---------------------------------------------------------------------------------------------
// JSON structure.

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const TYPE_SIZE: Record<string, number> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
};
const FLOAT = 5126;
/** Below this length a node rotation is not a rotation (the spec wants unit quaternions). */
const MIN_ROTATION_LENGTH = 1e-6;
/** Largest accessor without a bufferView (all zeros, allocated by the reader) accepted: 256 MiB. */
const MAX_ZERO_ACCESSOR_BYTES = 2 ** 28;

const TOP_ARRAYS = [
  'accessors',
  'animations',
  'buffers',
  'bufferViews',
  'cameras',
  'images',
  'materials',
  'meshes',
  'nodes',
  'samplers',
  'scenes',
  'skins',
  'textures',
] as const;

const PLURAL: Record<string, string> = { mesh: 'meshes' };

const formatNumbers = (v: readonly number[]) => `[${v.map((x) => String(x)).join(', ')}]`;

/**
 * Check the structure glTF Transform's reader relies on, before it runs: every index reference
 * (scene and node hierarchy, meshes, skins, animations, accessors, buffer views, materials, textures,
 * images, cameras) in range, accessor/buffer view byte ranges inside their buffer (`bufferLengths`
 * from {@link resolveGltfResources}), one parent per node and no cycles, scene nodes being roots, and
 * node `translation`/`rotation`/`scale`/`matrix` finite with a non-zero rotation.
 * @throws GltfError naming the field as a JSON pointer, e.g.
 * `/skins/0/joints/3: node index 999 out of range (67 nodes)`,
 * `/nodes/5/translation: [0, Infinity, 0] is not finite (node 'Hips')`.
 */
export function checkGltfJson(json: Json, bufferLengths: readonly number[], fileName: string): void {
  const fail = (ptr: string, message: string): never => {
    throw new GltfError(fileName, `${ptr}: ${message}`);
  };
  const asset = json.asset;
  if (!isObject(asset)) fail('/asset', 'missing or not an object');
  const version = (asset as Json).version;
  if (version !== '2.0') fail('/asset/version', `${JSON.stringify(version)}: only glTF 2.0 is supported`);
  for (const key of ['extensionsUsed', 'extensionsRequired']) {
    const v = json[key];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) {
      fail(`/${key}`, 'expected an array of strings');
    }
  }
  const lists: Record<string, Json[]> = {};
  for (const key of TOP_ARRAYS) {
    const v = json[key];
    if (v === undefined) {
      lists[key] = [];
      continue;
    }
    if (!Array.isArray(v)) fail(`/${key}`, 'expected an array');
    (v as unknown[]).forEach((item, i) => {
      if (!isObject(item)) fail(`/${key}/${i}`, 'expected an object');
      else if (item.name !== undefined && typeof item.name !== 'string') {
        fail(`/${key}/${i}/name`, 'expected a string');
      }
    });
    lists[key] = v as Json[];
  }
  const { accessors, animations, bufferViews, cameras, images, materials, meshes, nodes } = lists;
  const { samplers, scenes, skins, textures } = lists;

  /** `value` must be an index into a list of `count` `kind`s; `undefined` allowed unless `required`. */
  const ref = (ptr: string, value: unknown, kind: string, count: number, required = false, where = '') => {
    if (value === undefined) {
      if (required) fail(ptr, `missing (${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} index is required)`);
      return;
    }
    if (!isIndex(value))
      fail(ptr, `${JSON.stringify(value)} is not ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} index`);
    if ((value as number) >= count) {
      fail(ptr, `${kind} index ${value} out of range (${count} ${PLURAL[kind] ?? `${kind}s`}${where})`);
    }
  };
  const array = (ptr: string, value: unknown, required = false): unknown[] => {
    if (value === undefined && !required) return [];
    if (!Array.isArray(value))
      return fail(ptr, value === undefined ? 'missing (an array)' : 'expected an array');
    return value;
  };
  const object = (ptr: string, value: unknown, required = false): Json | undefined => {
    if (value === undefined && !required) return undefined;
    if (!isObject(value))
      return fail(ptr, value === undefined ? 'missing (an object)' : 'expected an object');
    return value;
  };
  const count = (ptr: string, value: unknown, min: number) => {
    if (!isIndex(value) || value < min) {
      fail(ptr, `${JSON.stringify(value)} is not an integer >= ${min}`);
    }
    return value as number;
  };
  const optionalCount = (ptr: string, value: unknown) => (value === undefined ? 0 : count(ptr, value, 0));

  // Buffer views.
  const viewLengths = bufferViews.map((bv, i) => {
    const ptr = `/bufferViews/${i}`;
    ref(`${ptr}/buffer`, bv.buffer, 'buffer', bufferLengths.length, true);
    const offset = optionalCount(`${ptr}/byteOffset`, bv.byteOffset);
    const length = count(`${ptr}/byteLength`, bv.byteLength, 1);
    const available = bufferLengths[bv.buffer as number];
    if (offset + length > available) {
      fail(ptr, `bytes ${offset}..${offset + length} exceed buffer ${bv.buffer} (${available} bytes)`);
    }
    if (bv.byteStride !== undefined) count(`${ptr}/byteStride`, bv.byteStride, 1);
    return length;
  });
  const viewStride = (v: number) => bufferViews[v].byteStride as number | undefined;

  /** The bytes an accessor (or a sparse part) reads from buffer view `view` fit in it. */
  const range = (
    ptr: string,
    view: number,
    offset: number,
    n: number,
    elementBytes: number,
    stride?: number,
  ) => {
    const need = offset + (stride ?? elementBytes) * (n - 1) + elementBytes;
    if (need > viewLengths[view]) {
      fail(
        ptr,
        `${n} elements of ${elementBytes} bytes from byte ${offset} need ${need} bytes, bufferView ${view} has ${viewLengths[view]}`,
      );
    }
  };

  // Accessors.
  accessors.forEach((acc, i) => {
    const ptr = `/accessors/${i}`;
    const componentBytes = COMPONENT_BYTES[acc.componentType as number];
    if (componentBytes === undefined) {
      fail(`${ptr}/componentType`, `${JSON.stringify(acc.componentType)} is not a glTF component type`);
    }
    const size = TYPE_SIZE[acc.type as string];
    if (size === undefined) fail(`${ptr}/type`, `${JSON.stringify(acc.type)} is not SCALAR, VECn or MATn`);
    const n = count(`${ptr}/count`, acc.count, 1);
    const offset = optionalCount(`${ptr}/byteOffset`, acc.byteOffset);
    if (acc.normalized !== undefined && typeof acc.normalized !== 'boolean') {
      fail(`${ptr}/normalized`, 'expected a boolean');
    }
    ref(`${ptr}/bufferView`, acc.bufferView, 'bufferView', bufferViews.length);
    if (acc.bufferView !== undefined) {
      const v = acc.bufferView as number;
      range(ptr, v, offset, n, size * componentBytes, viewStride(v));
    } else if (n * size * componentBytes > MAX_ZERO_ACCESSOR_BYTES) {
      // no bufferView: the reader allocates count elements of zeros
      fail(`${ptr}/count`, `${n} elements without a bufferView: ${n * size * componentBytes} bytes of zeros`);
    }
    const sparse = object(`${ptr}/sparse`, acc.sparse);
    if (sparse) {
      const sp = `${ptr}/sparse`;
      const m = count(`${sp}/count`, sparse.count, 1);
      const indices = object(`${sp}/indices`, sparse.indices, true) as Json;
      const values = object(`${sp}/values`, sparse.values, true) as Json;
      ref(`${sp}/indices/bufferView`, indices.bufferView, 'bufferView', bufferViews.length, true);
      ref(`${sp}/values/bufferView`, values.bufferView, 'bufferView', bufferViews.length, true);
      const indexBytes = ({ 5121: 1, 5123: 2, 5125: 4 } as Record<number, number>)[
        indices.componentType as number
      ];
      if (indexBytes === undefined) {
        fail(
          `${sp}/indices/componentType`,
          `${JSON.stringify(indices.componentType)} is not 5121, 5123 or 5125`,
        );
      }
      const io = optionalCount(`${sp}/indices/byteOffset`, indices.byteOffset);
      const vo = optionalCount(`${sp}/values/byteOffset`, values.byteOffset);
      range(`${sp}/indices`, indices.bufferView as number, io, m, indexBytes);
      range(`${sp}/values`, values.bufferView as number, vo, m, size * componentBytes);
    }
  });
  const accessorRef = (ptr: string, value: unknown, required = false) =>
    ref(ptr, value, 'accessor', accessors.length, required);

  // Images, samplers, textures, materials.
  images.forEach((img, i) => {
    ref(`/images/${i}/bufferView`, img.bufferView, 'bufferView', bufferViews.length);
    if (img.uri === undefined && img.bufferView === undefined)
      fail(`/images/${i}`, 'neither uri nor bufferView');
  });
  textures.forEach((tex, i) => {
    ref(`/textures/${i}/source`, tex.source, 'image', images.length);
    ref(`/textures/${i}/sampler`, tex.sampler, 'sampler', samplers.length);
  });
  materials.forEach((mat, i) => {
    const ptr = `/materials/${i}`;
    const textureInfo = (p: string, v: unknown) => {
      const info = object(p, v);
      if (!info) return;
      ref(`${p}/index`, info.index, 'texture', textures.length, true);
      const texture = textures[info.index as number];
      // glTF Transform needs the image of a used texture (extensions such as EXT_texture_webp give it elsewhere)
      if (texture.source === undefined && texture.extensions === undefined) {
        fail(`${p}/index`, `texture ${info.index} has no source image`);
      }
    };
    const pbr = object(`${ptr}/pbrMetallicRoughness`, mat.pbrMetallicRoughness);
    if (pbr) {
      textureInfo(`${ptr}/pbrMetallicRoughness/baseColorTexture`, pbr.baseColorTexture);
      textureInfo(`${ptr}/pbrMetallicRoughness/metallicRoughnessTexture`, pbr.metallicRoughnessTexture);
    }
    for (const key of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) {
      textureInfo(`${ptr}/${key}`, mat[key]);
    }
  });

  // Meshes and cameras.
  meshes.forEach((mesh, i) => {
    const ptr = `/meshes/${i}`;
    array(`${ptr}/primitives`, mesh.primitives, true).forEach((prim, k) => {
      const pp = `${ptr}/primitives/${k}`;
      const p = object(pp, prim, true) as Json;
      const attributes = object(`${pp}/attributes`, p.attributes, true) as Json;
      for (const [semantic, a] of Object.entries(attributes))
        accessorRef(`${pp}/attributes/${semantic}`, a, true);
      accessorRef(`${pp}/indices`, p.indices);
      ref(`${pp}/material`, p.material, 'material', materials.length);
      array(`${pp}/targets`, p.targets).forEach((target, t) => {
        const tt = object(`${pp}/targets/${t}`, target, true) as Json;
        for (const [semantic, a] of Object.entries(tt))
          accessorRef(`${pp}/targets/${t}/${semantic}`, a, true);
      });
    });
  });
  cameras.forEach((cam, i) => {
    const ptr = `/cameras/${i}`;
    if (cam.type !== 'perspective' && cam.type !== 'orthographic') {
      fail(`${ptr}/type`, `${JSON.stringify(cam.type)} is not 'perspective' or 'orthographic'`);
    }
    object(`${ptr}/${cam.type}`, cam[cam.type as string], true);
  });

  // Nodes: references, hierarchy, transforms.
  const parent = new Int32Array(nodes.length).fill(-1);
  const nodeName = (i: number) => {
    const name = nodes[i].name;
    return typeof name === 'string' && name !== '' ? ` (node '${name}')` : '';
  };
  nodes.forEach((node, i) => {
    const ptr = `/nodes/${i}`;
    array(`${ptr}/children`, node.children).forEach((c, k) => {
      const cp = `${ptr}/children/${k}`;
      ref(cp, c, 'node', nodes.length);
      const ci = c as number;
      if (ci === i) fail(cp, `node ${i} is its own child`);
      if (parent[ci] >= 0)
        fail(cp, `node ${ci} is already a child of node ${parent[ci]} (a node has one parent)`);
      parent[ci] = i;
    });
    ref(`${ptr}/mesh`, node.mesh, 'mesh', meshes.length);
    ref(`${ptr}/skin`, node.skin, 'skin', skins.length);
    ref(`${ptr}/camera`, node.camera, 'camera', cameras.length);
    const vector = (key: string, length: number): number[] | undefined => {
      const v = node[key];
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || v.length !== length || !v.every((x) => typeof x === 'number')) {
        return fail(`${ptr}/${key}`, `expected ${length} numbers${nodeName(i)}`);
      }
      if (!v.every(Number.isFinite)) fail(`${ptr}/${key}`, `${formatNumbers(v)} is not finite${nodeName(i)}`);
      return v;
    };
    vector('translation', 3);
    vector('scale', 3);
    vector('matrix', 16);
    const r = vector('rotation', 4);
    if (r && !(Math.hypot(r[0], r[1], r[2], r[3]) >= MIN_ROTATION_LENGTH)) {
      fail(`${ptr}/rotation`, `${formatNumbers(r)} has zero length: not a rotation${nodeName(i)}`);
    }
    if (node.weights !== undefined) {
      const w = array(`${ptr}/weights`, node.weights);
      if (!w.every((x) => typeof x === 'number' && Number.isFinite(x)))
        fail(`${ptr}/weights`, 'expected finite numbers');
    }
  });
  for (let i = 0; i < nodes.length; i++) {
    let steps = 0;
    for (let p = parent[i]; p >= 0; p = parent[p]) {
      if (++steps > nodes.length) fail(`/nodes/${i}`, 'the node hierarchy has a cycle');
    }
  }

  // Skins.
  skins.forEach((skin, i) => {
    const ptr = `/skins/${i}`;
    const joints = array(`${ptr}/joints`, skin.joints, true);
    if (joints.length === 0) fail(`${ptr}/joints`, 'empty (a skin has at least one joint)');
    joints.forEach((j, k) => {
      ref(`${ptr}/joints/${k}`, j, 'node', nodes.length);
    });
    ref(`${ptr}/skeleton`, skin.skeleton, 'node', nodes.length);
    accessorRef(`${ptr}/inverseBindMatrices`, skin.inverseBindMatrices);
    if (skin.inverseBindMatrices !== undefined) {
      const a = skin.inverseBindMatrices as number;
      const acc = accessors[a];
      if (acc.type !== 'MAT4' || acc.componentType !== FLOAT) {
        fail(
          `${ptr}/inverseBindMatrices`,
          `accessor ${a} is ${acc.type} of type ${acc.componentType}, expected MAT4 float (5126)`,
        );
      }
      if ((acc.count as number) < joints.length) {
        fail(
          `${ptr}/inverseBindMatrices`,
          `accessor ${a} holds ${acc.count} matrices for ${joints.length} joints`,
        );
      }
    }
  });

  // Scenes.
  scenes.forEach((scene, i) => {
    array(`/scenes/${i}/nodes`, scene.nodes).forEach((n, k) => {
      const ptr = `/scenes/${i}/nodes/${k}`;
      ref(ptr, n, 'node', nodes.length);
      if (parent[n as number] >= 0)
        fail(ptr, `node ${n} is a child of node ${parent[n as number]}, not a root node`);
    });
  });
  ref('/scene', json.scene, 'scene', scenes.length);

  // Animations.
  animations.forEach((anim, i) => {
    const ptr = `/animations/${i}`;
    const samplerList = array(`${ptr}/samplers`, anim.samplers, true);
    samplerList.forEach((s, k) => {
      const sp = `${ptr}/samplers/${k}`;
      const sampler = object(sp, s, true) as Json;
      accessorRef(`${sp}/input`, sampler.input, true);
      accessorRef(`${sp}/output`, sampler.output, true);
      if (sampler.interpolation !== undefined && typeof sampler.interpolation !== 'string') {
        fail(`${sp}/interpolation`, 'expected a string');
      }
    });
    array(`${ptr}/channels`, anim.channels, true).forEach((c, k) => {
      const cp = `${ptr}/channels/${k}`;
      const channel = object(cp, c, true) as Json;
      ref(`${cp}/sampler`, channel.sampler, 'sampler', samplerList.length, true, ` in ${ptr}`);
      const target = object(`${cp}/target`, channel.target, true) as Json;
      ref(`${cp}/target/node`, target.node, 'node', nodes.length);
      if (typeof target.path !== 'string') fail(`${cp}/target/path`, 'missing or not a string');
    });
  });
}

// ---------------------------------------------------------------------------------------------
// After reading.

/**
 * Checks on the values glTF Transform computed or read from the buffers: every node's TRS finite with
 * a non-zero rotation (catches a `matrix` that does not decompose), and every skin's inverse bind
 * matrices finite. `json` is the JSON the document was read from (for the field names).
 * @throws GltfError naming the node or accessor and the field, e.g.
 * `/accessors/7: inverse bind matrix 3 of /skins/0 (joint 'Spine') is not finite`.
 */
export function checkGltfDocument(document: Document, json: Json, fileName: string): void {
  const root = document.getRoot();
  const nodeDefs = (json.nodes ?? []) as Json[];
  root.listNodes().forEach((node, i) => {
    const t = node.getTranslation();
    const r = node.getRotation();
    const s = node.getScale();
    const finite = [...t, ...r, ...s].every(Number.isFinite);
    if (!finite || !(Math.hypot(r[0], r[1], r[2], r[3]) >= MIN_ROTATION_LENGTH)) {
      const field = nodeDefs[i]?.matrix !== undefined ? 'matrix' : 'rotation';
      const name = node.getName() ? ` (node '${node.getName()}')` : '';
      throw new GltfError(
        fileName,
        `/nodes/${i}/${field}: does not give a finite translation/rotation/scale with a non-zero rotation${name}`,
      );
    }
  });
  const skinDefs = (json.skins ?? []) as Json[];
  const element: number[] = [];
  const nodeIndex = new Map(root.listNodes().map((n, i) => [n, i]));
  root.listSkins().forEach((skin, i) => {
    const ibm = skin.getInverseBindMatrices();
    if (!ibm) return;
    const joints = skin.listJoints();
    const a = skinDefs[i]?.inverseBindMatrices;
    for (let m = 0; m < ibm.getCount(); m++) {
      ibm.getElement(m, element);
      if (element.every(Number.isFinite)) continue;
      const joint =
        m < joints.length ? ` (joint '${joints[m].getName() || `node${nodeIndex.get(joints[m])}`}')` : '';
      throw new GltfError(
        fileName,
        `/accessors/${a}: inverse bind matrix ${m} of /skins/${i}${joint} is not finite: ${formatNumbers(element)}`,
      );
    }
  });
}
