/**
 * What src/io/gltfAvatar.ts reads: the {@link Avatar} (skeleton, humanoid map, clips, the document and
 * what the writer needs to put bones back on nodes), its format, and the clip sources.
 */
import type { Document } from '@gltf-transform/core';
import type { Skeleton } from '../core/skeleton';
import type { GltfDecoders } from './gltfDocument';
import type { HumanoidMapResult } from './humanoidMap';

/** 'vrma': a VRM Animation (`VRMC_vrm_animation`), read as a source clip (its humanoid map from the extension). */
export type AvatarFormat = 'gltf' | 'vrm0' | 'vrm1' | 'vrma';

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
