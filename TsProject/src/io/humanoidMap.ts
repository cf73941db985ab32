/**
 * Automatic humanoid mapping: which skeleton bone is each Unity `HumanBodyBones` bone, from bone names
 * and the hierarchy, with a per-file JSON override.
 *
 * How a map is built ({@link autoMapHumanoid}):
 * 1. A `preset` (e.g. a VRM file's own humanoid map) is taken as is; an `override` wins over everything.
 * 2. The gaps are filled automatically. Names are classified ({@link classifyBoneName}) into kinds that
 *    are resolved against the chain a bone sits in, because names lie: CMU BVH `LeftShoulder` is the
 *    upper arm (it follows `LeftCollar`), Mixamo `LeftShoulder` the clavicle (it precedes `LeftArm`);
 *    CMU `LeftHip` is the thigh and `LHipJoint` a short hip bone; Mixamo `LeftLeg` is the lower leg,
 *    cryptovoxels `Left leg` the upper leg (it precedes `Left knee`).
 *    - Hips: a bone named hips/hip/pelvis without a side (the one with most named body parts below);
 *      when it does not hold both thighs (RobotExpressive: `Body` -> {`Hips` -> spine, thighs}), the
 *      lowest common ancestor of it and the thighs, and the named bone stays unmapped. Head: `head`
 *      below the hips. The trunk is the path hips -> head.
 *    - Limbs: per side, the shallowest foot (else lower leg, else upper leg) / hand (else lower arm ...)
 *      named bone below the hips and off the trunk; the chain runs from the trunk bone it branches from
 *      down to it and on along its main path. In a chain, hand/foot = the first hand/foot name, lower =
 *      the last lower name before it, upper = the last upper name before that, clavicle = the last
 *      clavicle/shoulder name before that; unnamed positions are filled by chain order; with no usable
 *      names at all, upper/lower are the two consecutive segments with the largest length-times-straightness.
 *      IK controls, pole targets, twist/roll helpers and end joints (`HeadTop_End`, `LeftToe_End`) are
 *      never mapped. A foot/hand that exists only outside the leg/arm chain (RobotExpressive's `Foot.L`
 *      IK bone, the only foot that rig has) is used as a last resort with a warning.
 *    - Spine rule: the spine bones are the trunk bones strictly above the hips up to the bone the arms
 *      branch from (s1..sn). Spine = s1; n = 2: Chest = s2; n >= 3: Chest = s(n-1), UpperChest = sn
 *      (bones named exactly `chest`/`upperchest` keep their name). Neck = the first trunk bone above
 *      the arm branch (or the first bone named neck, when the arms hang off the neck as in 3ds Max Biped),
 *      Head = the head.
 *    - With no usable names (CesiumMan.glb), or where names leave a part missing, the body is found by
 *      topology ({@link findBodyByTopology}) and the left/right of each limb pair from the rest pose:
 *      up = hips -> head, forward = the direction the feet point (ankle -> toe) plus the knee bend, and
 *      the character's left = up x forward (so with +Y up and facing +Z the left is +X, glTF/VRM 1.0).
 *      With no foot or knee to tell the facing, the convention "faces +Z, left is +X" is used and a
 *      warning says so. Name-based sides are checked against the same frame when the rest pose is a
 *      plausible standing pose, and a mirror is reported as a warning.
 * 3. Consistency: a skeleton bone maps to at most one humanoid bone, and each mapped bone's humanoid
 *    parent (nearest mapped humanoid ancestor, Unity's `HumanTrait.GetParentBone` tree) must be one of
 *    its skeleton ancestors. Violating optional automatic bones are unmapped with a warning; violations
 *    among required or preset/override bones are kept and warned about. An automatic bone already
 *    taken by an override/preset bone leaves its humanoid bone missing; `missingReasons` and a warning
 *    say which bone took it.
 *
 * Sources: Unity `HumanBodyBones` (https://docs.unity3d.com/ScriptReference/HumanBodyBones.html) and
 * `HumanTrait.GetParentBone`; naming facts from /work/shared/data/SOURCES.md and /work/shared/NATNET.md §7.
 */
import {
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  type HumanBoneName,
  humanBoneIndex,
  isRequiredHumanBone,
  nearestMappedAncestor,
} from '../core/humanBodyBones';
import type { Skeleton } from '../core/skeleton';
import { automaticMap, HUMAN_ORDER } from './humanoidMapAssign';
import { fileLabel, keySuggestion, resolveOverrideBone } from './humanoidMapOverride';
import { buildContext } from './humanoidMapTopology';
import {
  type AutoMapOptions,
  HumanoidMapError,
  type HumanoidMapResult,
  type MapSource,
} from './humanoidMapTypes';

export { type BoneKind, type BoneNameInfo, classifyBoneName, type Side } from './humanoidMapNames';
export {
  jsonErrorLocation,
  lineColumnAt,
  parseHumanoidOverride,
  SIMILAR_NAME_THRESHOLD,
  similarNames,
} from './humanoidMapOverride';
export {
  type AutoMapOptions,
  HumanoidMapError,
  type HumanoidMapResult,
  type HumanoidOverride,
  type MapSource,
} from './humanoidMapTypes';

/**
 * Map a skeleton's bones to Unity `HumanBodyBones` (see the module comment for the rules).
 * `options.preset` (length 55, bone index or -1) is taken as is with source `presetSource` (default
 * `'vrm'`), only its gaps are filled automatically (none with `fillGaps: false`); `options.override` wins over everything (`null`
 * forces a bone unmapped). Does not throw for missing bones: see `missingRequired`, `missingReasons`
 * and {@link requireHumanoid}. When a bone stays missing because the bone the automatic mapping chose
 * for it is taken by an override (any bone) or preset (required bones) bone, a warning
 * `RightUpperArm: 'mixamorig:RightArm' is taken by the override LeftUpperArm` says so.
 * @throws HumanoidMapError when the override names a bone that does not exist (message: file, key,
 * bone name, and similar bone names ({@link similarNames}) or a pointer to `kind inspect <file>`),
 * maps two humanoid bones to one skeleton bone, or has a key that is not a HumanBodyBones name; when
 * the preset has the wrong length or an index out of range.
 */
export function autoMapHumanoid(skeleton: Skeleton, options: AutoMapOptions = {}): HumanoidMapResult {
  const file = fileLabel(options.fileName);
  const n = skeleton.boneCount;
  const warnings: string[] = [];
  const humanoid = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  const source: (MapSource | null)[] = new Array(HUMAN_BONE_COUNT).fill(null);
  const owner = new Map<number, number>(); // skeleton bone -> humanoid bone
  const place = (h: number, b: number, src: MapSource) => {
    humanoid[h] = b;
    source[h] = src;
    owner.set(b, h);
  };

  // 1. override (wins), 2. preset
  const forcedNull = new Set<number>();
  const override = options.override ?? {};
  for (const [key, value] of Object.entries(override)) {
    const h = humanBoneIndex(key);
    if (h < 0) {
      throw new HumanoidMapError(
        `${file}: humanoid override: '${key}' is not a HumanBodyBones name${keySuggestion(key)}`,
      );
    }
    if (value === null) {
      forcedNull.add(h);
      continue;
    }
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      throw new HumanoidMapError(
        `${file}: humanoid override ${key}: value must be a bone name (non-empty string) or null, got ${JSON.stringify(value)}`,
      );
    }
    const b = resolveOverrideBone(skeleton, key, value, file);
    const other = owner.get(b);
    if (other !== undefined) {
      throw new HumanoidMapError(
        `${file}: humanoid override maps both ${HUMAN_BONE_NAMES[other]} and ${key} to bone '${skeleton.names[b]}'`,
      );
    }
    place(h, b, 'override');
  }
  if (options.preset) {
    const preset = options.preset;
    if (preset.length !== HUMAN_BONE_COUNT) {
      throw new HumanoidMapError(
        `${file}: humanoid preset has length ${preset.length}, expected ${HUMAN_BONE_COUNT}`,
      );
    }
    const presetSource = options.presetSource ?? 'vrm';
    for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
      const b = preset[h];
      if (b === -1) continue;
      if (!Number.isInteger(b) || b < -1 || b >= n) {
        throw new HumanoidMapError(
          `${file}: humanoid preset ${HUMAN_BONE_NAMES[h]} -> ${b} is not a bone index (0..${n - 1})`,
        );
      }
      if (humanoid[h] >= 0 || forcedNull.has(h)) continue;
      const other = owner.get(b);
      if (other !== undefined) {
        warnings.push(
          `${HUMAN_BONE_NAMES[h]}: ${presetSource} map gives '${skeleton.names[b]}', already ${HUMAN_BONE_NAMES[other]}; dropped`,
        );
        continue;
      }
      place(h, b, presetSource);
    }
  }

  // 3. automatic gap filling
  const takenBy = new Map<number, { reason: string; other: number }>();
  const needAuto =
    options.fillGaps !== false && HUMAN_ORDER.some((h) => humanoid[h] < 0 && !forcedNull.has(h));
  if (needAuto && n > 0) {
    const ctx = buildContext(skeleton);
    const autoWarnings: string[] = [];
    const auto = automaticMap(ctx, autoWarnings);
    const filled = new Set<number>();
    for (const h of HUMAN_ORDER) {
      const b = auto.map[h];
      if (b < 0 || humanoid[h] >= 0 || forcedNull.has(h)) continue;
      const other = owner.get(b);
      if (other !== undefined) {
        const by = source[other] === 'override' ? 'the override' : `the ${source[other]} preset`;
        takenBy.set(h, {
          reason: `'${skeleton.names[b]}' is taken by ${by} ${HUMAN_BONE_NAMES[other]}`,
          other,
        });
        continue;
      }
      place(h, b, auto.src[h]!);
      filled.add(h);
    }
    // keep only the automatic warnings about bones that were actually filled automatically, or general ones
    for (const w of autoWarnings) {
      const m = /^(\w+):/.exec(w);
      const h = m ? humanBoneIndex(m[1]) : -1;
      if (h < 0 || filled.has(h)) warnings.push(w);
    }
    enforceConsistency(skeleton, humanoid, source, warnings);
  } else {
    enforceConsistency(skeleton, humanoid, source, warnings);
  }

  const missingRequired: string[] = [];
  const missingOptional: string[] = [];
  const missingReasons: Partial<Record<HumanBoneName, string>> = {};
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    if (humanoid[h] >= 0) continue;
    const required = isRequiredHumanBone(h);
    (required ? missingRequired : missingOptional).push(HUMAN_BONE_NAMES[h]);
    const taken = takenBy.get(h);
    if (taken) {
      missingReasons[HUMAN_BONE_NAMES[h]] = taken.reason;
      // an optional bone displaced by a file's own (preset) map is routine, e.g. a VRM without UpperChest
      if (required || source[taken.other] === 'override')
        warnings.push(`${HUMAN_BONE_NAMES[h]}: ${taken.reason}`);
    } else if (forcedNull.has(h) && required) {
      missingReasons[HUMAN_BONE_NAMES[h]] = 'set to null by the override';
    }
  }
  return { humanoid, source, missingRequired, missingOptional, warnings, missingReasons };
}

/**
 * Each mapped bone's humanoid parent must be a skeleton ancestor of it. Automatic optional bones that
 * break this are unmapped (and the check repeats); other breaks are kept and warned about.
 */
function enforceConsistency(
  skeleton: Skeleton,
  humanoid: Int32Array,
  source: (MapSource | null)[],
  warnings: string[],
): void {
  const auto = (h: number) => source[h] === 'name' || source[h] === 'topology';
  const warned = new Set<string>();
  for (let pass = 0; pass < HUMAN_BONE_COUNT; pass++) {
    let changed = false;
    for (const h of HUMAN_ORDER) {
      const b = humanoid[h];
      if (b < 0) continue;
      const p = nearestMappedAncestor(h, (x) => humanoid[x] >= 0);
      if (p < 0) continue;
      const pb = humanoid[p];
      let ok = false;
      for (let x = skeleton.parents[b]; x >= 0; x = skeleton.parents[x]) {
        if (x === pb) {
          ok = true;
          break;
        }
      }
      if (ok) continue;
      const what = `${HUMAN_BONE_NAMES[h]} '${skeleton.names[b]}' is not below its humanoid parent ${HUMAN_BONE_NAMES[p]} '${skeleton.names[pb]}'`;
      if (auto(h) && !isRequiredHumanBone(h)) {
        warnings.push(`${what}; ${HUMAN_BONE_NAMES[h]} left unmapped`);
        humanoid[h] = -1;
        source[h] = null;
        changed = true;
      } else if (auto(p) && !isRequiredHumanBone(p)) {
        warnings.push(`${what}; ${HUMAN_BONE_NAMES[p]} left unmapped`);
        humanoid[p] = -1;
        source[p] = null;
        changed = true;
      } else if (!warned.has(what)) {
        warned.add(what);
        warnings.push(what);
      }
    }
    if (!changed) return;
  }
}
/**
 * Throw when any of Unity's 15 required humanoid bones is missing.
 * @throws HumanoidMapError `<file>: humanoid map is missing 1 required bone(s): RightUpperArm.
 * RightUpperArm: 'mixamorig:RightArm' is taken by the override LeftUpperArm. Name them ...`: lists all
 * missing required bones, then the known reasons (`missingReasons`).
 */
export function requireHumanoid(result: HumanoidMapResult, fileName: string): void {
  if (result.missingRequired.length === 0) return;
  const reasons = result.missingRequired.flatMap((name) => {
    const why = result.missingReasons?.[name as HumanBoneName];
    return why ? [`${name}: ${why}`] : [];
  });
  throw new HumanoidMapError(
    `${fileLabel(fileName)}: humanoid map is missing ${result.missingRequired.length} required bone(s): ${result.missingRequired.join(', ')}. ` +
      (reasons.length > 0 ? `${reasons.join('; ')}. ` : '') +
      'Name them in a humanoid override JSON ({"HumanBodyBonesName": "boneName"}).',
  );
}

/**
 * Human-readable table of a map for `kind inspect`: one line per mapped humanoid bone (HumanBodyBones
 * name, `*` when required, skeleton bone name and index, source), then the missing bones and warnings.
 */
export function formatHumanoidMap(skeleton: Skeleton, result: HumanoidMapResult): string {
  const mapped = HUMAN_BONE_NAMES.map((_, h) => h).filter((h) => result.humanoid[h] >= 0);
  const req = mapped.filter((h) => isRequiredHumanBone(h)).length;
  const lines = [`humanoid map: ${mapped.length} of ${HUMAN_BONE_COUNT} bones, required ${req} of 15`];
  const w = Math.max(...HUMAN_BONE_NAMES.map((s) => s.length)) + 2;
  const nameW = Math.min(
    40,
    Math.max(8, ...mapped.map((h) => (skeleton.names[result.humanoid[h]] ?? '').length)),
  );
  for (const h of HUMAN_ORDER_DISPLAY) {
    const b = result.humanoid[h];
    if (b < 0) continue;
    const mark = isRequiredHumanBone(h) ? '*' : ' ';
    const bone = skeleton.names[b] ?? `#${b}`;
    lines.push(
      `  ${mark} ${HUMAN_BONE_NAMES[h].padEnd(w)}${bone.padEnd(nameW)} [${b}]  ${result.source[h] ?? ''}`,
    );
  }
  if (result.missingRequired.length > 0)
    lines.push(`  missing REQUIRED: ${result.missingRequired.join(', ')}`);
  if (result.missingOptional.length > 0)
    lines.push(`  missing optional: ${result.missingOptional.join(', ')}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  return lines.join('\n');
}

/** Display order: body top-down, then fingers. */
const HUMAN_ORDER_DISPLAY: readonly number[] = [
  H.Hips,
  H.Spine,
  H.Chest,
  H.UpperChest,
  H.Neck,
  H.Head,
  H.LeftEye,
  H.RightEye,
  H.Jaw,
  H.LeftShoulder,
  H.LeftUpperArm,
  H.LeftLowerArm,
  H.LeftHand,
  H.RightShoulder,
  H.RightUpperArm,
  H.RightLowerArm,
  H.RightHand,
  H.LeftUpperLeg,
  H.LeftLowerLeg,
  H.LeftFoot,
  H.LeftToes,
  H.RightUpperLeg,
  H.RightLowerLeg,
  H.RightFoot,
  H.RightToes,
  ...Array.from({ length: 30 }, (_, i) => H.LeftThumbProximal + i),
];
