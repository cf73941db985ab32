/**
 * Reading a glTF document: the GLB container and the JSON chunk (checked before glTF Transform sees
 * it), external resources, the Draco/meshopt decoders, and the glTF Transform I/O with every extension
 * it knows. Never touches the file system (resources and decoders come from the caller).
 */
import { type Document, type ILogger, WebIO } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import {
  checkGltfDocument,
  checkGltfJson,
  EXT_MESHOPT,
  isMeshoptFallback,
  resolveGltfResources,
} from './gltfCheck';
import { GltfError } from './gltfError';

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
  /**
   * Returns the Draco decoder module (`draco3dgltf`'s `createDecoderModule()` result, or a promise of it),
   * for `KHR_draco_mesh_compression`.
   */
  draco?: () => unknown;
  /**
   * Returns the meshopt decoder (`meshoptimizer`'s `MeshoptDecoder`, or a promise of it), for
   * `EXT_meshopt_compression`.
   */
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

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
