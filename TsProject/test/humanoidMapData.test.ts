/**
 * The humanoid auto-mapper on the real files (/work/shared/data, SOURCES.md): every BVH take and every
 * avatar maps all 15 required bones, with the expected bone for each key bone.
 */
import * as fs from 'node:fs';
import { vec3 } from 'gl-matrix';
import {
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  HumanBodyBones,
  type HumanBoneName,
  restWorld,
  type Skeleton,
  vec64,
} from '../src/core';
import { parseBvh } from '../src/io/bvh';
import { readAvatar } from '../src/io/gltf';
import { autoMapHumanoid, type HumanoidMapResult } from '../src/io/humanoidMap';
import { AVATARS, BVH_TAKES, dataPath, describeWithData } from './helpers/data';
import { inconsistentBones, mapByName } from './helpers/humanoidMapRigs';

type Sided = (s: 'L' | 'R', W: 'Left' | 'Right', l: 'l' | 'r') => (string | null)[];
interface FileExpectation {
  /** Hips, Spine, Chest, UpperChest, Neck, Head (null = must stay unmapped). */
  trunk: (string | null)[];
  /** Per side: Shoulder, UpperArm, LowerArm, Hand, UpperLeg, LowerLeg, Foot, Toes. */
  side: Sided;
  /** Humanoid bones allowed to break the hierarchy rule (warned), e.g. IK-only feet. */
  detached?: HumanBoneName[];
}

const TRUNK_KEYS: HumanBoneName[] = ['Hips', 'Spine', 'Chest', 'UpperChest', 'Neck', 'Head'];
const SIDE_KEYS = [
  'Shoulder',
  'UpperArm',
  'LowerArm',
  'Hand',
  'UpperLeg',
  'LowerLeg',
  'Foot',
  'Toes',
] as const;

const mixamoSides =
  (p: string): Sided =>
  (_s, W) =>
    [
      `${W}Shoulder`,
      `${W}Arm`,
      `${W}ForeArm`,
      `${W}Hand`,
      `${W}UpLeg`,
      `${W}Leg`,
      `${W}Foot`,
      `${W}ToeBase`,
    ].map((n) => p + n);

const BANDAI: FileExpectation = {
  trunk: ['Hips', 'Spine', 'Chest', null, 'Neck', 'Head'],
  side: (s) => [
    `Shoulder_${s}`,
    `UpperArm_${s}`,
    `LowerArm_${s}`,
    `Hand_${s}`,
    `UpperLeg_${s}`,
    `LowerLeg_${s}`,
    `Foot_${s}`,
    `Toes_${s}`,
  ],
};

/** Expected key bones, from reading each file's hierarchy (SOURCES.md describes the conventions). */
const EXPECTED: Record<string, FileExpectation> = {
  'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh': BANDAI,
  'bandai-namco-motiondataset/dataset-1_run_normal_001.bvh': BANDAI,
  'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh': BANDAI,
  'threejs/pirouette.bvh': {
    trunk: ['hip', 'abdomen', 'chest', null, 'neck', 'head'],
    side: (_s, _W, l) => [
      `${l}Collar`,
      `${l}Shldr`,
      `${l}ForeArm`,
      `${l}Hand`,
      `${l}Thigh`,
      `${l}Shin`,
      `${l}Foot`,
      null,
    ],
  },
  // CMU: LeftShoulder is the upper arm, LeftHip the thigh; lowerback..Chest2 is a 3-bone spine
  'animated-drawings/cmu1/jumping_jacks.bvh': {
    trunk: ['Hips', 'lowerback', 'Chest', 'Chest2', 'lowerneck', 'Head'],
    side: (_s, W) => [
      `${W}Collar`,
      `${W}Shoulder`,
      `${W}Elbow`,
      `${W}Wrist`,
      `${W}Hip`,
      `${W}Knee`,
      `${W}Ankle`,
      `${W}Toe`,
    ],
  },
  // FAIR: 4-bone spine Spine..Spine3 -> Spine, (Spine1 unmapped), Chest = Spine2, UpperChest = Spine3
  'animated-drawings/fair1/jumping.bvh': {
    trunk: ['Hips', 'Spine', 'Spine2', 'Spine3', 'Neck', 'Head'],
    side: mixamoSides(''),
  },
  'animated-drawings/rokoko/jesse_dance.bvh': {
    trunk: ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head'],
    side: mixamoSides(''),
  },
  'threejs/Xbot.glb': {
    trunk: ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head'].map((n) => `mixamorig:${n}`),
    side: mixamoSides('mixamorig:'),
  },
  'threejs/Soldier.glb': {
    trunk: ['Hips', 'Spine', 'Spine1', 'Spine2', 'Neck', 'Head'].map((n) => `mixamorig:${n}`),
    side: mixamoSides('mixamorig:'),
  },
  // Legs hang off `Body` (the named `Hips` holds only the spine); no hand bone (the middle-finger
  // metacarpal `Palm2.L` stands in); the only feet are the IK bones `Foot.L`/`Foot.R` off the root `Bone`.
  'threejs/RobotExpressive/RobotExpressive.glb': {
    trunk: ['Body', 'Abdomen', 'Torso', null, 'Neck', 'Head'],
    side: (s) => [
      `Shoulder.${s}`,
      `UpperArm.${s}`,
      `LowerArm.${s}`,
      `Palm2.${s}`,
      `UpperLeg.${s}`,
      `LowerLeg.${s}`,
      `Foot.${s}`,
      null,
    ],
    detached: ['LeftFoot', 'RightFoot'],
  },
  // Unnamed joints (`node<glTF node index>`), no clavicles; it faces +X (toes and knees point +X), so
  // its left (up x forward = -Z) is the chain at z < 0: nodes 7-10 (leg) and 16-18 (arm).
  'threejs/CesiumMan/CesiumMan.glb': {
    trunk: ['node2', 'node11', 'node12', null, 'node19', 'node20'],
    side: (s) =>
      s === 'L'
        ? [null, 'node16', 'node17', 'node18', 'node7', 'node8', 'node9', 'node10']
        : [null, 'node13', 'node14', 'node15', 'node3', 'node4', 'node5', 'node6'],
  },
  'vrm-samples-madjin/cryptovoxels.vrm': {
    trunk: ['Hips', 'Spine', 'Chest', null, 'Neck', 'Head'],
    side: (_s, W) => [
      `${W} shoulder`,
      `${W} arm`,
      `${W} elbow`,
      `${W} wrist`,
      `${W} leg`,
      `${W} knee`,
      `${W} ankle`,
      `${W} toe`,
    ],
  },
  'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm': {
    trunk: ['hips', 'spine', 'chest', null, 'neck', 'head'],
    side: (s) => [
      `shoulder.${s}`,
      `upper_arm.${s}`,
      `lower_arm.${s}`,
      `hand.${s}`,
      `upper_leg.${s}`,
      `lower_leg.${s}`,
      `foot.${s}`,
      `toes.${s}`,
    ],
  },
};

function expectedKeyMap(e: FileExpectation): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  TRUNK_KEYS.forEach((k, i) => {
    out[k] = e.trunk[i];
  });
  for (const [s, W, l] of [
    ['L', 'Left', 'l'],
    ['R', 'Right', 'r'],
  ] as const) {
    const names = e.side(s, W, l);
    SIDE_KEYS.forEach((k, i) => {
      out[`${W}${k}`] = names[i];
    });
  }
  return out;
}

function keyMap(skeleton: Skeleton, result: HumanoidMapResult): Record<string, string | null> {
  const m = mapByName(skeleton, result.humanoid);
  const out: Record<string, string | null> = {};
  for (const k of Object.keys(expectedKeyMap(EXPECTED[BVH_TAKES[0]]))) out[k] = m[k as HumanBoneName] ?? null;
  return out;
}

function checkResult(file: string, skeleton: Skeleton, result: HumanoidMapResult): void {
  const e = EXPECTED[file];
  expect(result.missingRequired).toEqual([]);
  expect(keyMap(skeleton, result)).toEqual(expectedKeyMap(e));
  const bones = [...result.humanoid].filter((b) => b >= 0);
  expect(new Set(bones).size).toBe(bones.length);
  expect(inconsistentBones(skeleton, result.humanoid)).toEqual(e.detached ?? []);
}

describeWithData('humanoid map of the real BVH takes', () => {
  it('covers every take in BVH_TAKES', () => {
    expect(BVH_TAKES.filter((f) => !EXPECTED[f])).toEqual([]);
  });

  it.each(BVH_TAKES)('%s', (file) => {
    const { clip } = parseBvh(fs.readFileSync(dataPath(file), 'utf8'), { fileName: file });
    const result = autoMapHumanoid(clip.skeleton, { fileName: file });
    checkResult(file, clip.skeleton, result);
    expect(result.source.every((s) => s === null || s === 'name')).toBe(true); // every BVH here is named
    expect(result.warnings).toEqual([]);
  });

  it('Rokoko fingers: InHand metacarpals skipped, all 30 finger bones mapped', () => {
    const file = 'animated-drawings/rokoko/jesse_dance.bvh';
    const { clip } = parseBvh(fs.readFileSync(dataPath(file), 'utf8'), { fileName: file });
    const m = mapByName(clip.skeleton, autoMapHumanoid(clip.skeleton).humanoid);
    const fingers = HUMAN_BONE_NAMES.filter((n) => /Thumb|Index|Middle|Ring|Little/.test(n));
    expect(fingers.filter((n) => !m[n])).toEqual([]);
    expect([m.LeftIndexProximal, m.RightLittleProximal, m.LeftThumbProximal]).toEqual([
      'LeftHandIndex1',
      'RightHandPinky1',
      'LeftHandThumb1',
    ]);
  });
});

describeWithData('humanoid map of the real avatars (readAvatar)', () => {
  it('covers every avatar in AVATARS', () => {
    expect(AVATARS.filter((f) => !EXPECTED[f])).toEqual([]);
  });

  it.each(AVATARS)('%s', async (file) => {
    const avatar = await readAvatar(new Uint8Array(fs.readFileSync(dataPath(file))), { fileName: file });
    checkResult(file, avatar.skeleton, avatar.mapping);
    if (file.endsWith('.vrm')) {
      // the file's own humanoid is the preset; without it, names alone must find the same bones
      const vrmBones = HUMAN_BONE_NAMES.filter((_, h) => avatar.mapping.source[h] === 'vrm');
      expect(vrmBones.length).toBeGreaterThanOrEqual(43);
      const auto = autoMapHumanoid(avatar.skeleton, { fileName: file });
      const disagree = vrmBones.filter(
        (n) => auto.humanoid[HumanBodyBones[n]] !== avatar.mapping.humanoid[HumanBodyBones[n]],
      );
      expect(disagree).toEqual([]);
    }
  });

  it('CesiumMan: the bones mapped left are on the side up x forward points to (forward = where the toes point)', async () => {
    const file = 'threejs/CesiumMan/CesiumMan.glb';
    const avatar = await readAvatar(new Uint8Array(fs.readFileSync(dataPath(file))), { fileName: file });
    const pos = restWorld(avatar.skeleton).positions;
    const p = (h: HumanBoneName) => {
      const b = avatar.skeleton.humanoid[HumanBodyBones[h]];
      return vec64(pos[3 * b], pos[3 * b + 1], pos[3 * b + 2]);
    };
    const up = vec3.sub(vec64(), p('Head'), p('Hips'));
    for (const W of ['Left', 'Right'] as const) {
      const fwd = vec3.sub(vec64(), p(`${W}Toes`), p(`${W}Foot`));
      const left = vec3.cross(vec64(), up, fwd);
      const across = vec3.sub(vec64(), p('LeftUpperLeg'), p('RightUpperLeg'));
      expect(vec3.dot(left, across)).toBeGreaterThan(0);
      const arms = vec3.sub(vec64(), p('LeftHand'), p('RightHand'));
      expect(vec3.dot(left, arms)).toBeGreaterThan(0);
    }
    expect(avatar.mapping.source.filter((s) => s !== null).every((s) => s === 'topology')).toBe(true);
    expect(avatar.mapping.warnings).toEqual([]);
  });

  it('Xbot with an override that takes the right arm for the left: the error says the override took it', async () => {
    const file = 'threejs/Xbot.glb';
    const bytes = new Uint8Array(fs.readFileSync(dataPath(file)));
    await expect(
      readAvatar(bytes, { fileName: 'Xbot.glb', mapOverride: { LeftUpperArm: 'mixamorig:RightArm' } }),
    ).rejects.toThrow(
      /^Xbot\.glb: humanoid map is missing 1 required bone\(s\): RightUpperArm\. RightUpperArm: 'mixamorig:RightArm' is taken by the override LeftUpperArm\./,
    );
    // and a bone that does not exist gets no misleading suggestion
    await expect(
      readAvatar(bytes, { fileName: 'Xbot.glb', mapOverride: { LeftHand: 'NoSuchBone' } }),
    ).rejects.toThrow(
      "Xbot.glb: humanoid override LeftHand: no bone named 'NoSuchBone' in the skeleton; no similar bone name ('kind inspect Xbot.glb' lists the bones)",
    );
  });

  it('RobotExpressive: the IK-only feet and the missing hand bone are reported', async () => {
    const file = 'threejs/RobotExpressive/RobotExpressive.glb';
    const avatar = await readAvatar(new Uint8Array(fs.readFileSync(dataPath(file))), { fileName: file });
    const w = avatar.mapping.warnings.join('\n');
    expect(w).toMatch(/LeftFoot: no foot bone below 'LowerLeg\.L'; using 'Foot\.L'.*IK/);
    expect(w).toMatch(/LeftHand: the rig has no hand bone; using the metacarpal 'Palm2\.L'/);
    expect(w).toMatch(/Hips: 'Hips' does not hold the legs; using their common ancestor 'Body'/);
    expect(avatar.mapping.humanoid.length).toBe(HUMAN_BONE_COUNT);
  });
});
