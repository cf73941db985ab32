/**
 * Loading sources and avatars from files (Node only): the command line, `kind live`, benchmarks and tests.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Clip, withHumanoid } from '../../core';
import { parseBvh } from '../bvh';
import { type Avatar, readAvatar, readGltfClip } from '../gltf';
import {
  autoMapHumanoid,
  type HumanoidMapResult,
  type HumanoidOverride,
  requireHumanoid,
} from '../humanoidMap';
import { readInput, requireNotFolder } from './files';
import { NODE_GLTF_DECODERS } from './gltfDecoders';

/** 'vrma': a VRM Animation (`.vrma`, VRMC_vrm_animation-1.0), its humanoid map read from the extension. */
export type SourceFormat = 'bvh' | 'gltf' | 'vrm0' | 'vrm1' | 'vrma';

/**
 * A source clip loaded from a file, with its humanoid map, the file's clips (glTF/VRM) and the readers'
 * notes.
 */
export interface LoadedSource {
  file: string;
  format: SourceFormat;
  clip: Clip;
  mapping: HumanoidMapResult;
  /** For BVH: how the unit was chosen. */
  unit?: string;
  /** For glTF/VRM sources: the file's clip names. */
  clipNames?: string[];
  warnings: string[];
}

const AVATAR_EXT = new Set(['.glb', '.gltf', '.vrm']);
/** Files a source clip may come from besides BVH: the avatar formats and VRM Animation. */
const GLTF_SOURCE_EXT = new Set([...AVATAR_EXT, '.vrma']);

/**
 * External files of a .gltf (buffers, images), read relative to its folder. The reader asks with the
 * URI already percent-decoded; a missing file is reported by the reader, naming the URI.
 */
function resourcesNextTo(file: string): (uri: string) => Uint8Array | undefined {
  const dir = path.dirname(file);
  return (uri: string) => {
    const p = path.resolve(dir, uri);
    try {
      return new Uint8Array(fs.readFileSync(p));
    } catch {
      return undefined;
    }
  };
}

/**
 * Load a source clip: a BVH, or an animation inside a glTF/VRM file or a VRM Animation (`.vrma`)
 * (`clipName`, default the first). The clip's skeleton gets its humanoid map (automatic, with
 * `override`; for VRM and VRM Animation files the file's own humanoid map, gaps filled automatically).
 */
export async function loadSource(
  file: string,
  options: { clipName?: string; fps?: number; override?: HumanoidOverride; unitScale?: number | 'auto' } = {},
): Promise<LoadedSource> {
  const ext = path.extname(file).toLowerCase();
  const bytes = readInput(file);
  if (ext === '.bvh') {
    if (options.clipName)
      throw new Error(`${file}: --clip applies to glTF/VRM sources, a BVH holds one clip`);
    const parsed = parseBvh(bytes, { fileName: path.basename(file), unitScale: options.unitScale ?? 'auto' });
    const mapping = autoMapHumanoid(parsed.clip.skeleton, {
      override: options.override,
      fileName: path.basename(file),
    });
    requireHumanoid(mapping, path.basename(file));
    const skeleton = withHumanoid(parsed.clip.skeleton, mapping.humanoid);
    const clip: Clip = { ...parsed.clip, skeleton };
    return { file, format: 'bvh', clip, mapping, unit: parsed.unitGuess, warnings: mapping.warnings };
  }
  if (GLTF_SOURCE_EXT.has(ext)) {
    const avatar = await readAvatar(bytes, {
      fileName: path.basename(file),
      mapOverride: options.override,
      resources: resourcesNextTo(file),
      decoders: NODE_GLTF_DECODERS,
    });
    if (avatar.clipNames.length === 0) throw new Error(`${file}: has no animations to use as a source clip`);
    const clip = readGltfClip(avatar, options.clipName ?? avatar.clipNames[0], { fps: options.fps });
    return {
      file,
      format: avatar.format,
      clip,
      mapping: avatar.mapping,
      clipNames: avatar.clipNames,
      warnings: [...avatar.warnings, ...clip.warnings],
    };
  }
  throw new Error(`${file}: unknown source type '${ext}' (expected .bvh, .glb, .gltf, .vrm or .vrma)`);
}

/** Load a target avatar (.glb, .gltf, .vrm). */
export async function loadAvatar(file: string, override?: HumanoidOverride): Promise<Avatar> {
  requireNotFolder(file);
  const ext = path.extname(file).toLowerCase();
  if (ext === '.vrma')
    throw new Error(
      `${file}: a VRM Animation is motion without a body; give it as the source, not the avatar`,
    );
  if (!AVATAR_EXT.has(ext))
    throw new Error(`${file}: an avatar must be .glb, .gltf or .vrm (got '${ext || 'no extension'}')`);
  const avatar = await readAvatar(readInput(file), {
    fileName: path.basename(file),
    mapOverride: override,
    resources: resourcesNextTo(file),
    decoders: NODE_GLTF_DECODERS,
  });
  if (avatar.format === 'vrma')
    throw new Error(
      `${file}: holds a VRM Animation (VRMC_vrm_animation), motion without a body; give it as the source, not the avatar`,
    );
  return avatar;
}
