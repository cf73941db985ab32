/**
 * The Draco and meshopt decoders for glTF files in Node (the `kind` command and tests): Node-side only,
 * not exported by io/index.ts, so engine-free code never pulls them in. Pass {@link NODE_GLTF_DECODERS}
 * as `readAvatar(bytes, { decoders })`.
 * Both are optional dependencies of the package, imported on the first file that needs them, with an error
 * naming the package to install when it is missing.
 * - Draco: `createDecoderModule()` of the `draco3dgltf` npm package (Google's Draco decoder built with
 *   Emscripten for glTF; it reads `draco_decoder_gltf.wasm` next to its script: tools/build.mjs copies
 *   that file next to dist/kind.cjs), started once, on the first Draco file.
 * - meshopt: `MeshoptDecoder` of the `meshoptimizer` npm package (its WebAssembly is inlined), after
 *   its `ready` promise.
 */
import type { GltfDecoders } from '../gltfAvatar';

/**
 * Import an optional dependency of the package (`draco3dgltf`, `meshoptimizer`: optionalDependencies of
 * kind-retargeting, so `npm install --omit=optional` leaves them out), loaded only when a file needs it.
 * @throws Error naming the glTF extension and the package to install when it is not installed.
 */
async function optional<T>(load: () => Promise<T>, pkg: string, extension: string): Promise<T> {
  try {
    return await load();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') throw e;
    throw new Error(
      `this glTF uses ${extension}; decoding it needs the optional package ${pkg}, which is not installed (npm install ${pkg})`,
    );
  }
}

let draco: Promise<unknown> | null = null;

/**
 * Draco (draco3dgltf) and meshopt (meshoptimizer) decoders for `readAvatar`/`loadAvatar`, each package
 * loaded on first use; a missing optional package is named in the error.
 */
export const NODE_GLTF_DECODERS: GltfDecoders = {
  draco: () => {
    draco ??= optional(
      () => import('draco3dgltf'),
      'draco3dgltf',
      'Draco mesh compression (KHR_draco_mesh_compression)',
    ).then((m) => (m.default ?? m).createDecoderModule({}));
    return draco;
  },
  meshopt: async () => {
    const { MeshoptDecoder } = await optional(
      () => import('meshoptimizer/decoder'),
      'meshoptimizer',
      'meshopt compression (EXT_meshopt_compression)',
    );
    await MeshoptDecoder.ready;
    return MeshoptDecoder;
  },
};
