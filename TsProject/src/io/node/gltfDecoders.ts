/**
 * The Draco and meshopt decoders for glTF files in Node (the `kind` command and tests): Node-side only,
 * not exported by io/index.ts, so engine-free code never pulls them in. Pass {@link NODE_GLTF_DECODERS}
 * as `readAvatar(bytes, { decoders })`.
 * - Draco: `createDecoderModule()` of the `draco3dgltf` npm package (Google's Draco decoder built with
 *   Emscripten for glTF; it reads `draco_decoder_gltf.wasm` next to its script: tools/build.mjs copies
 *   that file next to dist/kind.cjs), started once, on the first Draco file.
 * - meshopt: `MeshoptDecoder` of the `meshoptimizer` npm package (its WebAssembly is inlined), after
 *   its `ready` promise.
 */
import draco3d from 'draco3dgltf';
import { MeshoptDecoder } from 'meshoptimizer/decoder';
import type { GltfDecoders } from '../gltfAvatar';

let draco: Promise<unknown> | null = null;

export const NODE_GLTF_DECODERS: GltfDecoders = {
  draco: () => {
    draco ??= draco3d.createDecoderModule({});
    return draco;
  },
  meshopt: async () => {
    await MeshoptDecoder.ready;
    return MeshoptDecoder;
  },
};
