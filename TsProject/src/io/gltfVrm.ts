/**
 * VRM humanoid maps: VRM 0.x / 1.0 humanoid bone names to HumanBodyBones, and a VRM file's humanoid
 * (the node of each bone) read from its extension.
 */

import { HUMAN_BONE_COUNT, humanBoneIndex } from '../core/humanBodyBones';
import { isObject } from './gltfDocument';
import { GltfError } from './gltfError';

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
  /** 'vrma': a VRM Animation's `VRMC_vrm_animation` humanoid (VRM 1.0 bone names). */
  format: 'vrm0' | 'vrm1' | 'vrma';
  /** glTF node per HumanBodyBones value, -1 where missing. */
  nodeOfHuman: Int32Array;
  warnings: string[];
}

/** Remove in place the elements for which `test` holds. */
export function removeIf<T>(list: T[], test: (x: T) => boolean): void {
  let k = 0;
  for (const x of list) if (!test(x)) list[k++] = x;
  list.length = k;
}

/**
 * The VRM humanoid map of a file, read from the raw JSON (glTF Transform drops unknown extensions):
 * VRM 1.0 `extensions.VRMC_vrm.humanoid.humanBones` (`{hips: {node}}`) takes precedence over a VRM
 * Animation's `extensions.VRMC_vrm_animation.humanoid.humanBones` (same shape and VRM 1.0 names,
 * VRMC_vrm_animation-1.0), then VRM 0.x `extensions.VRM.humanoid.humanBones` (`[{bone, node}]`).
 * Returns null for a plain glTF.
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
  for (const key of ['VRMC_vrm', 'VRMC_vrm_animation'] as const) {
    if (ext[key] === undefined) continue;
    const base = `extensions.${key}.humanoid.humanBones`;
    const vrm = ext[key];
    const humanoid = isObject(vrm) ? vrm.humanoid : undefined;
    const bones = isObject(humanoid) ? humanoid.humanBones : undefined;
    if (!isObject(bones)) throw new GltfError(fileName, `${base}: missing or not an object`);
    for (const [bone, value] of Object.entries(bones)) {
      if (!isObject(value)) throw new GltfError(fileName, `${base}.${bone}: expected an object {node}`);
      place(bone, value.node, `${base}.${bone}.node`, 1);
    }
    return { format: key === 'VRMC_vrm' ? 'vrm1' : 'vrma', nodeOfHuman, warnings };
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
