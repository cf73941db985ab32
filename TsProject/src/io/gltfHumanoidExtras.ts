/**
 * The humanoid map a GLB written by this project carries, so that its own readers (and any tool that
 * reads glTF `extras`) find the map the file was retargeted with, also where the file has no skin and
 * no VRM extension (`writeRetargetedGlb` drops the VRM extensions, which glTF Transform does not know).
 *
 * Where: the glTF root object's `extras` (glTF 2.0, section 3.12 "Extras": "application-specific
 * data", https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html#reference-extras), key
 * {@link HUMANOID_EXTRAS_KEY}:
 *
 * ```json
 * "extras": { "kindHumanoid": { "humanBones": { "Hips": { "node": 2, "name": "hips" }, ... } } }
 * ```
 *
 * - keys are Unity `HumanBodyBones` names (as in summary.json and `--map` files);
 * - `node` is the glTF node index, `name` that node's name as written (`""` for an unnamed node);
 * - the map is complete: a humanoid bone not listed is missing (readers do not fill gaps from bone
 *   names), so the map read back equals the map written.
 *
 * Other tools that re-export the file may renumber the nodes; the `name` shows it: an entry whose node
 * has another name is looked up by the name instead (when exactly one node has it), else skipped.
 */
import { HUMAN_BONE_COUNT, HUMAN_BONE_NAMES, humanBoneIndex } from '../core/humanBodyBones';
import { GltfError } from './gltfError';

/** Key of the humanoid map in the glTF root `extras`. */
export const HUMANOID_EXTRAS_KEY = 'kindHumanoid';

/** The map read from `extras.kindHumanoid`. */
export interface ExtrasHumanoid {
  /** glTF node per HumanBodyBones value, -1 where missing. Length 55. */
  nodeOfHuman: Int32Array;
  /** True when every entry was taken as written (no entry skipped or looked up by name). */
  complete: boolean;
  /** Entries skipped or repaired, naming the field. */
  warnings: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The `extras.kindHumanoid` map of a glTF JSON, or null when the file has none. `nodeNames` are the
 * file's node names by index (`""` for unnamed nodes). An unknown HumanBodyBones key, a bone given the
 * node of another bone, or a node whose name differs from the entry's `name` with no unique node of
 * that name is skipped with a warning (`complete` false).
 * @throws GltfError naming the field (`extras.kindHumanoid.humanBones.Hips.node`) when the structure
 * is wrong: `humanBones` not an object, an entry not `{node, name?}`, `node` not a node index in
 * range, `name` not a string.
 */
export function readExtrasHumanoid(
  json: Record<string, unknown>,
  nodeNames: readonly string[],
  fileName: string,
): ExtrasHumanoid | null {
  const extras = json.extras;
  if (!isObject(extras) || extras[HUMANOID_EXTRAS_KEY] === undefined) return null;
  const base = `extras.${HUMANOID_EXTRAS_KEY}.humanBones`;
  const map = extras[HUMANOID_EXTRAS_KEY];
  const bones = isObject(map) ? map.humanBones : undefined;
  if (!isObject(bones)) throw new GltfError(fileName, `${base}: missing or not an object`);
  const nodeOfHuman = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  const warnings: string[] = [];
  const taken = new Map<number, string>();
  let complete = true;
  const nodeCount = nodeNames.length;
  for (const [key, entry] of Object.entries(bones)) {
    const field = `${base}.${key}`;
    if (!isObject(entry)) throw new GltfError(fileName, `${field}: expected an object {node, name}`);
    const node = entry.node;
    if (typeof node !== 'number' || !Number.isInteger(node) || node < 0 || node >= nodeCount) {
      throw new GltfError(
        fileName,
        `${field}.node: ${JSON.stringify(node)} is not a node index (0..${nodeCount - 1})`,
      );
    }
    if (entry.name !== undefined && typeof entry.name !== 'string')
      throw new GltfError(fileName, `${field}.name: expected a string, got ${JSON.stringify(entry.name)}`);
    const h = humanBoneIndex(key);
    if (h < 0) {
      warnings.push(`${field}: '${key}' is not a HumanBodyBones name; skipped`);
      complete = false;
      continue;
    }
    let target = node;
    const name = entry.name;
    if (name !== undefined && nodeNames[node] !== name) {
      const hits = name === '' ? [] : nodeNames.flatMap((n, i) => (n === name ? [i] : []));
      const was = nodeNames[node] === '' ? 'unnamed' : `named '${nodeNames[node]}'`;
      complete = false;
      if (hits.length !== 1) {
        warnings.push(
          `${field}: node ${node} is ${was}, not '${name}', and ${hits.length === 0 ? 'no node' : `${hits.length} nodes`} ha${hits.length === 1 ? 's' : 've'} that name (the file was re-exported?); skipped`,
        );
        continue;
      }
      warnings.push(`${field}: node ${node} is ${was}; the node named '${name}' (${hits[0]}) is used`);
      target = hits[0];
    }
    const other = taken.get(target);
    if (other !== undefined) {
      warnings.push(`${field}: node ${target} is already ${other}; skipped`);
      complete = false;
      continue;
    }
    taken.set(target, key);
    nodeOfHuman[h] = target;
  }
  return { nodeOfHuman, complete, warnings };
}

/**
 * The `extras.kindHumanoid` value for a map: `nodeOfHuman` (glTF node per HumanBodyBones value, -1
 * where missing, length 55) and the node names by index. Entries in HumanBodyBones order.
 */
export function humanoidExtras(
  nodeOfHuman: ArrayLike<number>,
  nodeNames: readonly string[],
): { humanBones: Record<string, { node: number; name: string }> } {
  const humanBones: Record<string, { node: number; name: string }> = {};
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    const node = nodeOfHuman[h];
    if (node >= 0) humanBones[HUMAN_BONE_NAMES[h]] = { node, name: nodeNames[node] ?? '' };
  }
  return { humanBones };
}
