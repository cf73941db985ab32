import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  createSkeleton,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  HumanBodyBones,
  type HumanBoneName,
  quat64,
  restWorld,
  type Skeleton,
  vec64,
} from '../src/core';
import {
  autoMapHumanoid,
  classifyBoneName,
  formatHumanoidMap,
  HumanoidMapError,
  type HumanoidMapResult,
  jsonErrorLocation,
  lineColumnAt,
  parseHumanoidOverride,
  requireHumanoid,
  SIMILAR_NAME_THRESHOLD,
  similarNames,
} from '../src/io/humanoidMap';
import {
  inconsistentBones,
  mapByName,
  mixamo,
  namedRigs,
  Rig,
  robotLike,
  type Side,
} from './helpers/humanoidMapRigs';

/** Structural invariants every result must satisfy. */
function expectConsistent(skeleton: Skeleton, result: HumanoidMapResult): void {
  const bones = [...result.humanoid].filter((b) => b >= 0);
  expect(new Set(bones).size).toBe(bones.length); // a bone maps to at most one humanoid bone
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) expect(result.humanoid[h] >= 0).toBe(result.source[h] !== null);
  expect(inconsistentBones(skeleton, result.humanoid)).toEqual([]);
  const missing = HUMAN_BONE_NAMES.filter((_, h) => result.humanoid[h] < 0);
  expect([...result.missingRequired, ...result.missingOptional].sort()).toEqual([...missing].sort());
}

describe('bone name classification', () => {
  it.each([
    ['mixamorig:LeftUpLeg', 'L', 'upperleg'],
    ['LeftLeg', 'L', 'leg'],
    ['Left leg', 'L', 'leg'],
    ['LeftHip', 'L', 'upperleg'],
    ['Hip', null, 'hips'],
    ['LHipJoint', 'L', 'legroot'],
    ['LeftShoulder', 'L', 'shoulder'],
    ['LeftCollar', 'L', 'clavicle'],
    ['lShldr', 'L', 'upperarm'],
    ['LUArm', 'L', 'upperarm'],
    ['LFArm', 'L', 'lowerarm'],
    ['Skeleton1_RUArm', 'R', 'upperarm'],
    ['Bip01 R Forearm', 'R', 'lowerarm'],
    ['J_Bip_L_UpperArm', 'L', 'upperarm'],
    ['upper_arm.L', 'L', 'upperarm'],
    ['lhand', 'L', 'hand'],
    ['lowerback', null, 'spine'],
    ['Right wrist', 'R', 'hand'],
    ['HeadTop_End', null, 'ignore'],
    ['LeftToe_End', 'L', 'ignore'],
    ['upperarm_twist_01_l', 'L', 'ignore'],
    ['ik_foot_l', 'L', 'ignore'],
    ['PoleTarget.R', 'R', 'ignore'],
    ['Bip01 L Finger0Nub', 'L', 'ignore'],
    ['Hair_Back', null, 'unknown'],
    ['node7', null, 'unknown'],
  ] as const)('%s -> side %s, kind %s', (name, side, kind) => {
    const c = classifyBoneName(name);
    expect([c.side, c.kind]).toEqual([side, kind]);
  });

  it.each([
    ['LeftHandIndex1', 1, false],
    ['LeftInHandIndex', 1, true],
    ['index_metacarpal_l', 1, true],
    ['rMid1', 2, false],
    ['Bip01 L Finger0', 0, false],
    ['Bip01 L Finger01', 0, false],
    ['Bip01 R Finger42', 4, false],
    ['LittleFinger3_L', 4, false],
    ['thumb.proximal.L', 0, false],
    ['LeftFingerBase', -1, false],
  ] as const)('%s is finger %d (metacarpal %s)', (name, finger, meta) => {
    const c = classifyBoneName(name);
    expect([c.kind, c.finger, c.metacarpal]).toEqual(['finger', finger, meta]);
  });
});

describe('naming conventions (synthetic skeletons): the full expected map', () => {
  it.each(namedRigs().map((c) => [c.label, c] as const))('%s', (_label, c) => {
    const result = autoMapHumanoid(c.skeleton, { fileName: 'synthetic' });
    expect(mapByName(c.skeleton, result.humanoid)).toEqual(c.expected);
    expect(result.missingRequired).toEqual([]);
    expectConsistent(c.skeleton, result);
    // no mirror warning on any of these (their left bones are on the character's left)
    expect(result.warnings.filter((w) => w.includes('mirrored'))).toEqual([]);
  });

  it('CMU trap: LeftShoulder after LeftCollar is the upper arm, Mixamo LeftShoulder before LeftArm the clavicle', () => {
    const [cmu] = namedRigs().filter((c) => c.label.startsWith('CMU'));
    const r = autoMapHumanoid(cmu.skeleton);
    const at = (h: HumanBoneName) => cmu.skeleton.names[r.humanoid[HumanBodyBones[h]]];
    expect([at('LeftShoulder'), at('LeftUpperArm'), at('LeftUpperLeg')]).toEqual([
      'LeftCollar',
      'LeftShoulder',
      'LeftHip',
    ]);
    const mx = mixamo('');
    const m = autoMapHumanoid(mx.skeleton);
    expect([
      mx.skeleton.names[m.humanoid[HumanBodyBones.LeftShoulder]],
      mx.skeleton.names[m.humanoid[HumanBodyBones.LeftUpperArm]],
    ]).toEqual(['LeftShoulder', 'LeftArm']);
  });

  it('Rokoko: the InHand metacarpal is skipped, LeftHandIndex1 is the proximal', () => {
    const [rk] = namedRigs().filter((c) => c.label.startsWith('Rokoko'));
    const r = autoMapHumanoid(rk.skeleton);
    const at = (h: HumanBoneName) => rk.skeleton.names[r.humanoid[HumanBodyBones[h]]];
    expect([at('LeftIndexProximal'), at('LeftIndexIntermediate'), at('LeftIndexDistal')]).toEqual([
      'LeftHandIndex1',
      'LeftHandIndex2',
      'LeftHandIndex3',
    ]);
    expect(r.humanoid.includes(rk.skeleton.names.indexOf('LeftInHandIndex'))).toBe(false);
  });

  it('IK control feet off the root are ignored when the leg has its own foot; used (warned) when it has none', () => {
    const withFeet = robotLike(true);
    const r1 = autoMapHumanoid(withFeet.skeleton);
    for (const s of ['L', 'R'] as Side[]) {
      const h = HumanBodyBones[s === 'L' ? 'LeftFoot' : 'RightFoot'];
      expect(r1.humanoid[h]).toBe(withFeet.legFeet[s]);
      expect(r1.humanoid.includes(withFeet.ikFeet[s])).toBe(false);
    }
    expect(r1.humanoid.includes(withFeet.skeleton.names.indexOf('PoleTarget.L'))).toBe(false);
    const ikOnly = robotLike(false);
    const r2 = autoMapHumanoid(ikOnly.skeleton);
    expect(mapByName(ikOnly.skeleton, r2.humanoid)).toEqual(ikOnly.expected);
    expect(r2.humanoid[HumanBodyBones.LeftFoot]).toBe(ikOnly.ikFeet.L);
    expect(r2.missingRequired).toEqual([]);
    expect(r2.warnings.some((w) => w.startsWith('LeftFoot') && w.includes('IK'))).toBe(true);
    expect(r2.warnings.some((w) => w.includes("'Hips' does not hold the legs"))).toBe(true);
  });

  it('spine rule: Spine = first, UpperChest = last, Chest = the one before (1..6 spine bones)', () => {
    for (let n = 1; n <= 6; n++) {
      const r = new Rig();
      const hips = r.add('Hips', -1, [0, 1, 0]);
      const spine = r.chain(
        hips,
        Array.from(
          { length: n },
          (_, k) => [k === 0 ? 'Spine' : `Spine${k}`, [0, 0.5 / n, 0]] as [string, [number, number, number]],
        ),
      );
      const top = spine[n - 1];
      r.chain(top, [
        ['Neck', [0, 0.1, 0]],
        ['Head', [0, 0.1, 0]],
      ]);
      for (const [s, x] of [
        ['Left', 1],
        ['Right', -1],
      ] as const) {
        r.chain(top, [
          [`${s}Arm`, [0.15 * x, 0, 0]],
          [`${s}ForeArm`, [0.28 * x, 0, 0]],
          [`${s}Hand`, [0.26 * x, 0, 0]],
        ]);
        r.chain(hips, [
          [`${s}UpLeg`, [0.09 * x, -0.05, 0]],
          [`${s}Leg`, [0, -0.45, 0]],
          [`${s}Foot`, [0, -0.42, 0]],
        ]);
      }
      const sk = r.build();
      const m = mapByName(sk, autoMapHumanoid(sk).humanoid);
      const name = (k: number) => (k === 0 ? 'Spine' : `Spine${k}`);
      expect([m.Spine, m.Chest, m.UpperChest]).toEqual([
        'Spine',
        n >= 2 ? name(n >= 3 ? n - 2 : 1) : undefined,
        n >= 3 ? name(n - 1) : undefined,
      ]);
    }
  });

  it('warns when the bones named left sit on the character right (mirrored rig or swapped names)', () => {
    const c = mixamo('');
    // mirror the rest pose in X: the feet still point +Z, so the "Left" limbs are now on the right
    const t = Float64Array.from(c.skeleton.restTranslations);
    for (let i = 0; i < c.skeleton.boneCount; i++) t[3 * i] = -t[3 * i];
    const mirrored = createSkeleton({ ...c.skeleton, restTranslations: t });
    const r = autoMapHumanoid(mirrored);
    expect(mapByName(mirrored, r.humanoid)).toEqual(c.expected); // names still win
    expect(r.warnings.filter((w) => w.includes('mirrored')).length).toBe(2); // legs and arms
  });
});

// ---------------------------------------------------------------------------------------------
// Topology only.

interface UnnamedBody {
  skeleton: Skeleton;
  /** Expected map by bone index (for the character's own left/right). */
  expected: Partial<Record<HumanBoneName, number>>;
}

/**
 * An unnamed humanoid (bones `node<i>` like the glTF reader names unnamed joints), facing +Z with its left
 * at +X, rotated by `rot` at the root, with siblings inserted in `order` (a permutation seed) and optional
 * parts. `feet`: the legs end in an ankle and a toe pointing forward; without, legs end at a straight ankle.
 */
function unnamedBody(
  opts: {
    rot?: quat;
    mirror?: boolean;
    feet?: boolean;
    shoulders?: boolean;
    eyes?: boolean;
    swap?: boolean;
  } = {},
): UnnamedBody {
  const feet = opts.feet ?? true;
  type Node = { key: string; off: [number, number, number]; kids: Node[] };
  const sx = (side: 'Left' | 'Right') => (side === 'Left' ? 1 : -1) * (opts.mirror ? -1 : 1);
  const limb = (keys: string[], offs: [number, number, number][]): Node => {
    const nodes = keys.map((key, i) => ({ key, off: offs[i], kids: [] as Node[] }));
    for (let i = 0; i + 1 < nodes.length; i++) nodes[i].kids.push(nodes[i + 1]);
    return nodes[0];
  };
  const sides = opts.swap ? (['Right', 'Left'] as const) : (['Left', 'Right'] as const);
  const arms = sides.map((s) => {
    const x = sx(s);
    const keys = [`${s}UpperArm`, `${s}LowerArm`, `${s}Hand`];
    const offs: [number, number, number][] = [
      [0.15 * x, 0.1, 0],
      [0.28 * x, 0, 0],
      [0.26 * x, 0, 0],
    ];
    if (opts.shoulders) {
      keys.unshift(`${s}Shoulder`);
      offs.unshift([0.03 * x, 0.1, 0]);
      offs[1] = [0.12 * x, 0, 0];
    }
    return limb(keys, offs);
  });
  const legs = sides.map((s) => {
    const x = sx(s);
    const keys = [`${s}UpperLeg`, `${s}LowerLeg`, `${s}Foot`];
    const offs: [number, number, number][] = [
      [0.09 * x, -0.06, 0],
      [0, -0.44, feet ? 0.02 : 0],
      [0, -0.43, feet ? -0.03 : 0],
    ];
    if (feet) {
      keys.push(`${s}Toes`);
      offs.push([0, -0.07, 0.12]);
    }
    return limb(keys, offs);
  });
  const head: Node = { key: 'Head', off: [0, 0.1, 0.01], kids: [] };
  if (opts.eyes) {
    head.kids.push({ key: 'HeadTop', off: [0, 0.18, 0], kids: [] });
    for (const s of sides) head.kids.push({ key: `${s}Eye`, off: [0.03 * sx(s), 0.06, 0.09], kids: [] });
  }
  const neck: Node = { key: 'Neck', off: [0, 0.16, 0], kids: [head] };
  const upperChest: Node = { key: 'UpperChest', off: [0, 0.12, 0], kids: [arms[0], neck, arms[1]] };
  const chest: Node = { key: 'Chest', off: [0, 0.12, 0], kids: [upperChest] };
  const spine: Node = { key: 'Spine', off: [0, 0.1, 0], kids: [chest] };
  const hips: Node = { key: 'Hips', off: [0, 1.0, 0], kids: [legs[0], spine, legs[1]] };
  const names: string[] = [];
  const parents: number[] = [];
  const t: number[] = [];
  const r: number[] = [];
  const expected: Partial<Record<HumanBoneName, number>> = {};
  const rot = opts.rot ?? quat64();
  const visit = (node: Node, parent: number) => {
    const i = names.length;
    names.push(`node${i}`);
    parents.push(parent);
    t.push(...node.off);
    r.push(...(parent < 0 ? rot : [0, 0, 0, 1]));
    if ((HUMAN_BONE_NAMES as readonly string[]).includes(node.key)) expected[node.key as HumanBoneName] = i;
    for (const k of node.kids) visit(k, i);
  };
  visit(hips, -1);
  // the root's translation is in the world frame: rotate it too
  const root = vec3.transformQuat(vec64(), vec64(t[0], t[1], t[2]), rot);
  t.splice(0, 3, root[0], root[1], root[2]);
  return { skeleton: createSkeleton({ names, parents, restTranslations: t, restRotations: r }), expected };
}

function byIndex(result: HumanoidMapResult): Partial<Record<HumanBoneName, number>> {
  const out: Partial<Record<HumanBoneName, number>> = {};
  for (let h = 0; h < HUMAN_BONE_COUNT; h++)
    if (result.humanoid[h] >= 0) out[HUMAN_BONE_NAMES[h]] = result.humanoid[h];
  return out;
}

/** Swap Left* and Right* keys of an expected map. */
function mirrorExpected(e: Partial<Record<HumanBoneName, number>>): Partial<Record<HumanBoneName, number>> {
  const out: Partial<Record<HumanBoneName, number>> = {};
  for (const [k, v] of Object.entries(e)) {
    const m = k.startsWith('Left') ? `Right${k.slice(4)}` : k.startsWith('Right') ? `Left${k.slice(5)}` : k;
    out[m as HumanBoneName] = v;
  }
  return out;
}

describe('topology only (unnamed bones)', () => {
  it('maps hips, spine chain, neck, head, shoulders, arms, legs and toes of an unnamed humanoid facing +Z', () => {
    const b = unnamedBody({ shoulders: true, eyes: true });
    const r = autoMapHumanoid(b.skeleton);
    // eyes are unnamed: not mapped (only the head's position in the chain is known)
    const { LeftEye: _l, RightEye: _r, ...want } = b.expected;
    expect(byIndex(r)).toEqual(want);
    expect(r.source.filter((s) => s !== null).every((s) => s === 'topology')).toBe(true);
    expect(r.warnings).toEqual([]);
    expectConsistent(b.skeleton, r);
  });

  it('the same character turned any way about its up axis, or lying in a Z-up file, maps the same bones (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (yaw, zUp, shoulders, swap) => {
          const rot = quat.setAxisAngle(quat64(), [0, 1, 0], yaw);
          if (zUp) quat.multiply(rot, quat.setAxisAngle(quat64(), [1, 0, 0], Math.PI / 2), rot);
          const b = unnamedBody({ rot, shoulders, swap });
          const r = autoMapHumanoid(b.skeleton);
          expect(byIndex(r)).toEqual(b.expected);
          expect(r.warnings).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a mirrored skeleton (X negated) swaps left and right', () => {
    for (const yaw of [0, Math.PI / 2, Math.PI, -2]) {
      const rot = quat.setAxisAngle(quat64(), [0, 1, 0], yaw);
      const b = unnamedBody({ rot, mirror: true, shoulders: true });
      const r = autoMapHumanoid(b.skeleton);
      expect(byIndex(r)).toEqual(mirrorExpected(b.expected));
      // the bone mapped LeftUpperLeg lies on the character's left: up x forward points to it
      const pos = restWorld(b.skeleton).positions;
      const p = (h: HumanBoneName) =>
        vec64(
          ...([0, 1, 2].map((k) => pos[3 * r.humanoid[HumanBodyBones[h]] + k]) as [number, number, number]),
        );
      const up = vec3.sub(vec64(), p('Head'), p('Hips'));
      const fwd = vec3.sub(vec64(), p('LeftToes'), p('LeftFoot'));
      const left = vec3.cross(vec64(), up, fwd);
      expect(vec3.dot(left, vec3.sub(vec64(), p('LeftUpperLeg'), p('RightUpperLeg')))).toBeGreaterThan(0);
    }
  });

  it('with no feet or knee bend to tell the facing, assumes +Z facing (left +X) and warns', () => {
    const b = unnamedBody({ feet: false });
    const r = autoMapHumanoid(b.skeleton);
    expect(byIndex(r)).toEqual(b.expected);
    expect(r.warnings.some((w) => w.includes('faces +Z'))).toBe(true);
    // turned 90 degrees (limbs spread along Z, like CesiumMan): the convention is stated and warned too
    const turned = unnamedBody({ feet: false, rot: quat.setAxisAngle(quat64(), [0, 1, 0], Math.PI / 2) });
    const r2 = autoMapHumanoid(turned.skeleton);
    expect(r2.missingRequired).toEqual([]);
    expect(r2.warnings.some((w) => w.includes('faces +X'))).toBe(true);
  });

  it('a skeleton with no humanoid structure maps nothing and says why', () => {
    const r = new Rig();
    r.chain(-1, [
      ['node0', [0, 0, 0]],
      ['node1', [0, 1, 0]],
      ['node2', [0, 1, 0]],
    ]);
    const sk = r.build();
    const res = autoMapHumanoid(sk);
    expect([...res.humanoid].every((b) => b === -1)).toBe(true);
    expect(res.missingRequired.length).toBe(15);
    expect(res.warnings.some((w) => w.includes('no hips'))).toBe(true);
    expect(() => requireHumanoid(res, 'stick.glb')).toThrow(HumanoidMapError);
  });

  it('names complete topology: one named arm, the other unnamed, found by topology with a warning', () => {
    const c = mixamo('');
    const names = c.skeleton.names.map((n) =>
      n.startsWith('Right') && /Arm|Hand|Shoulder/.test(n) ? `bone_${n.length}_${n.charCodeAt(5)}` : n,
    );
    const sk = createSkeleton({ ...c.skeleton, names });
    const r = autoMapHumanoid(sk);
    expect(r.missingRequired).toEqual([]);
    const idx = (n: string) => c.skeleton.names.indexOf(n);
    expect([
      r.humanoid[HumanBodyBones.RightUpperArm],
      r.humanoid[HumanBodyBones.RightLowerArm],
      r.humanoid[HumanBodyBones.RightHand],
    ]).toEqual([idx('RightArm'), idx('RightForeArm'), idx('RightHand')]);
    expect(r.source[HumanBodyBones.RightHand]).toBe('topology');
    expect(r.warnings.some((w) => w.startsWith('Right arm'))).toBe(true);
  });
});

describe('robustness', () => {
  const WORDS = [
    'Hips',
    'Spine',
    'LeftArm',
    'RightArm',
    'LeftHand',
    'Head',
    'LeftFoot',
    'RightUpLeg',
    'Neck',
    'LeftShoulder',
    'node',
    'IK_foot',
    'Chest',
    'thumb_01_l',
    'LeftHandIndex1',
    'Foot.L',
    '',
  ];
  it('never throws on random trees with random names and offsets; the result is well-formed (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            parent: fc.nat(),
            word: fc.constantFrom(...WORDS),
            off: fc.tuple(
              fc.double({ min: -1, max: 1, noNaN: true }),
              fc.double({ min: -1, max: 1, noNaN: true }),
              fc.double({ min: -1, max: 1, noNaN: true }),
            ),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        (bones) => {
          const sk = createSkeleton({
            names: bones.map((b) => b.word),
            parents: bones.map((b, i) => (i === 0 ? -1 : b.parent % i)),
            restTranslations: bones.flatMap((b) => b.off),
            restRotations: bones.flatMap(() => [0, 0, 0, 1]),
          });
          const r = autoMapHumanoid(sk, { fileName: 'fuzz' });
          expect(r.humanoid.length).toBe(HUMAN_BONE_COUNT);
          const mapped = [...r.humanoid].filter((b) => b >= 0);
          expect(new Set(mapped).size).toBe(mapped.length);
          expect(mapped.every((b) => b < sk.boneCount)).toBe(true);
          expect(r.missingRequired.length + r.missingOptional.length + mapped.length).toBe(HUMAN_BONE_COUNT);
          // anything inconsistent was warned about
          for (const h of inconsistentBones(sk, r.humanoid)) expect(r.warnings.join('\n')).toContain(h);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects a non-string override value passed from code', () => {
    const c = mixamo('');
    expect(() =>
      autoMapHumanoid(c.skeleton, { override: { Hips: 3 as unknown as string }, fileName: 'api' }),
    ).toThrow(/api: humanoid override Hips: value must be a bone name/);
  });

  it('an empty skeleton maps nothing', () => {
    const sk = createSkeleton({ names: [], parents: [], restTranslations: [], restRotations: [] });
    expect(autoMapHumanoid(sk).missingRequired.length).toBe(15);
  });
});

// ---------------------------------------------------------------------------------------------
// Override, preset, requireHumanoid, format.

describe('humanoid override JSON', () => {
  it('parses names and nulls', () => {
    expect(parseHumanoidOverride('{"LeftUpperArm": "LeftShoulder", "Jaw": null}', 'map.json')).toEqual({
      LeftUpperArm: 'LeftShoulder',
      Jaw: null,
    });
  });

  it.each([
    [
      '{"LeftUpperArm": ',
      /^map\.json:1:17: humanoid override is not valid JSON: Unexpected end of JSON input$/,
    ],
    ['[1, 2]', /map\.json: .*must be a JSON object.*an array/],
    ['null', /map\.json: .*must be a JSON object.*null/],
    [
      '{"LeftUperArm": "x"}',
      /map\.json: humanoid override key 'LeftUperArm' is not a HumanBodyBones name \(did you mean 'LeftUpperArm'\?\)/,
    ],
    ['{"leftUpperArm": "x"}', /key 'leftUpperArm'.*did you mean 'LeftUpperArm'/],
    [
      '{"LeftThumbMetacarpal": "x"}',
      /key 'LeftThumbMetacarpal'.*did you mean 'LeftThumbProximal'\?.*VRM 1\.0/,
    ],
    [
      '{"Pelvis": "x"}',
      /key 'Pelvis' .*no similar name; .*docs\.unity3d\.com\/ScriptReference\/HumanBodyBones/,
    ],
    ['{"Hips": 3}', /map\.json: humanoid override 'Hips': value must be a bone name .* got 3/],
    ['{"Hips": ""}', /'Hips': value must be a bone name/],
  ])('rejects %s', (json, message) => {
    expect(() => parseHumanoidOverride(json, 'map.json')).toThrow(HumanoidMapError);
    expect(() => parseHumanoidOverride(json, 'map.json')).toThrow(message);
  });

  it('override wins over names, null forces unmapped, and gaps stay automatic', () => {
    const c = mixamo('');
    const r = autoMapHumanoid(c.skeleton, {
      override: { Chest: 'Spine2', UpperChest: null, LeftEye: null },
      fileName: 'x.fbx',
    });
    const m = mapByName(c.skeleton, r.humanoid);
    expect(m.Chest).toBe('Spine2');
    expect(r.source[HumanBodyBones.Chest]).toBe('override');
    expect(m.UpperChest).toBeUndefined();
    expect(m.LeftEye).toBeUndefined();
    expect(r.missingOptional).toEqual(expect.arrayContaining(['UpperChest', 'LeftEye']));
    expect(m.Spine).toBe('Spine');
    expect(r.source[HumanBodyBones.Spine]).toBe('name');
  });

  it('an override naming a missing bone is an error naming the key, the bone and the file', () => {
    const c = mixamo('');
    expect(() =>
      autoMapHumanoid(c.skeleton, { override: { LeftHand: 'LeftHandd' }, fileName: 'walk.bvh' }),
    ).toThrow(
      /walk\.bvh: humanoid override LeftHand: no bone named 'LeftHandd'.*did you mean 'LeftHand'\?\)$/,
    );
    expect(() =>
      autoMapHumanoid(c.skeleton, {
        override: { LeftHand: 'LeftHand', RightHand: 'LeftHand' },
        fileName: 'walk.bvh',
      }),
    ).toThrow(/walk\.bvh: .*both LeftHand and RightHand/);
    expect(() =>
      autoMapHumanoid(c.skeleton, {
        override: { Pelvis: 'Hips' } as unknown as Record<string, string>,
        fileName: 'walk.bvh',
      }),
    ).toThrow(/walk\.bvh: .*'Pelvis' is not a HumanBodyBones name/);
  });

  it('an override conflicting with automatic bones repairs the automatic ones (consistency kept)', () => {
    const c = mixamo('');
    // the index finger's first bone made the hand: the other fingers are not below it any more
    const r = autoMapHumanoid(c.skeleton, { override: { LeftHand: 'LeftHandIndex1' } });
    expectConsistent(c.skeleton, r);
    const m = mapByName(c.skeleton, r.humanoid);
    expect(m.LeftHand).toBe('LeftHandIndex1');
    expect(m.LeftThumbProximal).toBeUndefined();
    expect(m.LeftIndexProximal).toBeUndefined(); // its automatic bone is taken by the override
    expect(r.warnings.some((w) => w.startsWith('LeftThumbProximal') && w.includes('left unmapped'))).toBe(
      true,
    );
  });
});

describe('override errors a new user meets', () => {
  it('a bone that does not exist: similar names only when genuinely close, else a pointer to kind inspect', () => {
    const c = mixamo('mixamorig:');
    const fail = (value: string) => {
      try {
        autoMapHumanoid(c.skeleton, { override: { LeftHand: value }, fileName: 'Xbot.glb' });
      } catch (e) {
        expect(e).toBeInstanceOf(HumanoidMapError);
        return (e as Error).message;
      }
      throw new Error(`override '${value}' was accepted`);
    };
    expect(fail('NoSuchBone')).toBe(
      "Xbot.glb: humanoid override LeftHand: no bone named 'NoSuchBone' in the skeleton; no similar bone name ('kind inspect Xbot.glb' lists the bones)",
    );
    // the prefix is not part of the comparison: a name typed without it is found
    expect(fail('LeftArm')).toMatch(
      /no bone named 'LeftArm' in the skeleton \(did you mean 'mixamorig:LeftArm'\?\)$/,
    );
    expect(fail('mixamorig:LeftHandd')).toMatch(/\(did you mean 'mixamorig:LeftHand'\?\)$/);
    expect(fail('Spine3')).toMatch(
      /\(did you mean 'mixamorig:Spine', 'mixamorig:Spine1' or 'mixamorig:Spine2'\?\)$/,
    );
    // a different bone is not "close": LeftHand vs RightHand is 4 edits in 9
    expect(fail('RightHnad')).not.toMatch(/'mixamorig:LeftHand'/);
    expect(() => autoMapHumanoid(c.skeleton, { override: { LeftHand: 'nope' } })).toThrow(
      /^<skeleton>: .*'kind inspect <file>' lists the bones/,
    );
  });

  it('similarNames returns the nearest names within the normalised edit distance threshold, and finds one-edit typos (property)', () => {
    const names = [...mixamo('mixamorig:').skeleton.names, ...mixamo('').skeleton.names, ...HUMAN_BONE_NAMES];
    const key = (n: string) => n.replace(/^.*[:|]/, '').toLowerCase();
    const lev = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) =>
        Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
      );
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++)
          d[i][j] = Math.min(
            d[i - 1][j] + 1,
            d[i][j - 1] + 1,
            d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
          );
      return d[a.length][b.length];
    };
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.nat(),
        fc.constantFrom('x', 'Q', '_', '9'),
        fc.constantFrom('insert', 'substitute', 'delete'),
        (name, at, ch, op) => {
          const k = key(name);
          if (k.length < 3) return true;
          const i = at % k.length;
          const typo =
            op === 'insert'
              ? k.slice(0, i) + ch + k.slice(i)
              : op === 'substitute'
                ? k.slice(0, i) + ch + k.slice(i + 1)
                : k.slice(0, i) + k.slice(i + 1);
          const found = similarNames(typo, names, names.length);
          const dist = (f: string) => lev(key(typo), key(f));
          // the original name, or names at least as near (a typo can land on another name, Spine1 -> Spine)
          expect(found.length).toBeGreaterThan(0);
          for (const f of found) {
            expect(dist(f) / Math.max(key(typo).length, key(f).length)).toBeLessThanOrEqual(
              SIMILAR_NAME_THRESHOLD + 1e-12,
            );
            expect(dist(f)).toBe(dist(found[0]));
          }
          return found.includes(name) || dist(found[0]) < dist(name);
        },
      ),
      { numRuns: 1000 },
    );
    expect(similarNames('NoSuchBone', names)).toEqual([]);
    expect(similarNames('LeftUperArm', names)).toEqual(['LeftUpperArm']); // not LeftLowerArm (3 edits)
    expect(similarNames('x', ['', 'y'])).toEqual([]);
  });

  it('a required bone missing because the override took its bone says which override took it (Xbot-like rig)', () => {
    const c = mixamo('mixamorig:');
    const r = autoMapHumanoid(c.skeleton, { override: { LeftUpperArm: 'mixamorig:RightArm' } });
    expect(r.missingRequired).toEqual(['RightUpperArm']);
    const why = "'mixamorig:RightArm' is taken by the override LeftUpperArm";
    expect(r.missingReasons.RightUpperArm).toBe(why);
    expect(r.warnings).toContain(`RightUpperArm: ${why}`);
    expect(() => requireHumanoid(r, 'Xbot.glb')).toThrow(
      `Xbot.glb: humanoid map is missing 1 required bone(s): RightUpperArm. RightUpperArm: ${why}. Name them`,
    );
    // an override that takes no automatic bone leaves no reason behind
    const fine = autoMapHumanoid(c.skeleton, { override: { Chest: 'mixamorig:Spine2', UpperChest: null } });
    expect(fine.missingReasons).toEqual({});
    expect(fine.warnings.filter((w) => w.includes('is taken by'))).toEqual([]);
  });

  it('the same for a preset, and an override setting a required bone to null is named as the reason', () => {
    const c = mixamo('');
    const preset = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
    preset[HumanBodyBones.LeftUpperLeg] = c.skeleton.names.indexOf('RightUpLeg');
    preset[HumanBodyBones.Chest] = c.skeleton.names.indexOf('Spine2');
    const r = autoMapHumanoid(c.skeleton, { preset });
    expect(r.missingRequired).toEqual(['RightUpperLeg']);
    expect(r.missingReasons.RightUpperLeg).toBe("'RightUpLeg' is taken by the vrm preset LeftUpperLeg");
    expect(r.warnings).toContain("RightUpperLeg: 'RightUpLeg' is taken by the vrm preset LeftUpperLeg");
    // an optional bone displaced by the file's own map (UpperChest -> Spine2, the preset Chest) is only a reason
    expect(r.missingReasons.UpperChest).toBe("'Spine2' is taken by the vrm preset Chest");
    expect(r.warnings.some((w) => w.startsWith('UpperChest:'))).toBe(false);
    const n = autoMapHumanoid(c.skeleton, { override: { Head: null } });
    expect(n.missingReasons).toEqual({ Head: 'set to null by the override' });
    expect(() => requireHumanoid(n, 'a.bvh')).toThrow(
      /missing 1 required bone\(s\): Head\. Head: set to null by the override\./,
    );
  });

  it('JSON syntax errors are reported as file:line:column', () => {
    const msg = (json: string) => {
      try {
        parseHumanoidOverride(json, 'map.json');
      } catch (e) {
        expect(e).toBeInstanceOf(HumanoidMapError);
        return (e as Error).message;
      }
      throw new Error('parsed');
    };
    // the "2" after "b" is at line 2, column 7 (a missing colon)
    expect(msg('{"a": 1,\n  "b" 2}')).toBe(
      'map.json:2:7: humanoid override is not valid JSON: Unexpected number in JSON',
    );
    // a trailing comma: the closing brace at line 3, column 1; CRLF line ends count once
    expect(msg('{\r\n  "Hips": "root",\r\n}')).toMatch(
      /^map\.json:3:1: humanoid override is not valid JSON: /,
    );
    // end of input: just after the last character that is not blank
    expect(msg('{\n  "Hips": \n\n')).toBe(
      'map.json:2:10: humanoid override is not valid JSON: Unexpected end of JSON input',
    );
    // a byte order mark is skipped, not an error
    expect(parseHumanoidOverride('\ufeff{"Hips": "root"}', 'map.json')).toEqual({ Hips: 'root' });
  });

  it('jsonErrorLocation reads the V8 message formats (position, line/column, none)', () => {
    const text = '{\n  "a": x\n}';
    expect(jsonErrorLocation(text, 'Unexpected token x in JSON at position 9')).toEqual({
      line: 2,
      column: 8,
      detail: 'Unexpected token x in JSON',
    });
    expect(jsonErrorLocation(text, 'Unexpected token x in JSON at position 9 (line 2 column 8)')).toEqual({
      line: 2,
      column: 8,
      detail: 'Unexpected token x in JSON',
    });
    expect(jsonErrorLocation(text, `Unexpected token 'x', "${text}" is not valid JSON`)).toBeNull();
    expect(jsonErrorLocation('{', 'Unexpected end of JSON input')).toEqual({
      line: 1,
      column: 2,
      detail: 'Unexpected end of JSON input',
    });
    // a message without a position (Node 20): our own JSON reader finds line:column
    expect(() => parseHumanoidOverride('NoSuch', 'map.json')).toThrow(
      /^map\.json:1:1: humanoid override is not valid JSON: unexpected character "N"/,
    );
    expect(() => parseHumanoidOverride('{\n  "LeftUpperArm": }', 'map.json')).toThrow(
      /^map\.json:2:19: humanoid override is not valid JSON: unexpected character "}"/,
    );
  });

  it('lineColumnAt agrees with splitting the text at the offset (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', ' ', '\n', '\r\n', '{', '"')).map((a) => a.join('')),
        fc.nat(),
        (text, p) => {
          const pos = text.length === 0 ? 0 : p % (text.length + 1);
          const lines = text.slice(0, pos).split('\n');
          const at = lineColumnAt(text, pos);
          return at.line === lines.length && at.column === lines[lines.length - 1].length + 1;
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('preset (e.g. a VRM humanoid)', () => {
  it('is taken as is, only gaps are filled, sources say which is which', () => {
    const c = mixamo('');
    const preset = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
    const idx = (n: string) => c.skeleton.names.indexOf(n);
    preset[HumanBodyBones.Hips] = idx('Hips');
    preset[HumanBodyBones.Spine] = idx('Spine');
    preset[HumanBodyBones.Chest] = idx('Spine2'); // differs from the automatic choice: kept
    const r = autoMapHumanoid(c.skeleton, { preset });
    expect(r.humanoid[HumanBodyBones.Chest]).toBe(idx('Spine2'));
    expect(r.source[HumanBodyBones.Chest]).toBe('vrm');
    expect(r.source[HumanBodyBones.Hips]).toBe('vrm');
    expect(r.source[HumanBodyBones.LeftHand]).toBe('name');
    expect(r.humanoid[HumanBodyBones.UpperChest]).toBe(-1); // its automatic bone Spine2 is taken
    const custom = autoMapHumanoid(c.skeleton, { preset, presetSource: 'override' });
    expect(custom.source[HumanBodyBones.Chest]).toBe('override');
  });

  it('keeps an inconsistent preset bone but warns', () => {
    const c = mixamo('');
    const preset = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
    preset[HumanBodyBones.LeftHand] = c.skeleton.names.indexOf('RightHand');
    const r = autoMapHumanoid(c.skeleton, { preset });
    expect(r.humanoid[HumanBodyBones.LeftHand]).toBe(c.skeleton.names.indexOf('RightHand'));
    expect(r.warnings.some((w) => w.startsWith("LeftHand 'RightHand' is not below"))).toBe(true);
  });

  it('rejects a preset of the wrong length or with a bad index', () => {
    const c = mixamo('');
    expect(() => autoMapHumanoid(c.skeleton, { preset: new Int32Array(54), fileName: 'a.vrm' })).toThrow(
      /a\.vrm: humanoid preset has length 54, expected 55/,
    );
    const bad = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
    bad[HumanBodyBones.Head] = 999;
    expect(() => autoMapHumanoid(c.skeleton, { preset: bad, fileName: 'a.vrm' })).toThrow(
      /a\.vrm: humanoid preset Head -> 999/,
    );
  });
});

describe('requireHumanoid and formatHumanoidMap', () => {
  function legless(): Skeleton {
    const c = mixamo('');
    const keep = c.skeleton.names.map((n) => !/Leg|Foot|Toe/.test(n));
    const index = new Map<number, number>();
    const names: string[] = [];
    const parents: number[] = [];
    const t: number[] = [];
    for (let i = 0; i < c.skeleton.boneCount; i++) {
      if (!keep[i]) continue;
      index.set(i, names.length);
      names.push(c.skeleton.names[i]);
      parents.push(c.skeleton.parents[i] < 0 ? -1 : index.get(c.skeleton.parents[i])!);
      t.push(...c.skeleton.restTranslations.subarray(3 * i, 3 * i + 3));
    }
    return createSkeleton({
      names,
      parents,
      restTranslations: t,
      restRotations: names.flatMap(() => [0, 0, 0, 1]),
    });
  }

  it('lists every missing required bone by HumanBodyBones name', () => {
    const sk = legless();
    const r = autoMapHumanoid(sk);
    const legs = ['LeftUpperLeg', 'RightUpperLeg', 'LeftLowerLeg', 'RightLowerLeg', 'LeftFoot', 'RightFoot'];
    expect(r.missingRequired).toEqual(legs);
    expect(() => requireHumanoid(r, 'torso.glb')).toThrow(HumanoidMapError);
    expect(() => requireHumanoid(r, 'torso.glb')).toThrow(new RegExp(`^torso\\.glb: .*${legs.join(', ')}`));
    expect(() => requireHumanoid(autoMapHumanoid(mixamo('').skeleton), 'ok.glb')).not.toThrow();
  });

  it('formats one line per mapped bone with the bone name, index, required mark and source', () => {
    const c = mixamo('mixamorig:');
    const r = autoMapHumanoid(c.skeleton, { override: { Jaw: 'mixamorig:HeadTop_End' } });
    const text = formatHumanoidMap(c.skeleton, r);
    const lines = text.split('\n');
    const mappedCount = [...r.humanoid].filter((b) => b >= 0).length;
    expect(lines[0]).toBe(`humanoid map: ${mappedCount} of 55 bones, required 15 of 15`);
    const hips = c.skeleton.names.indexOf('mixamorig:Hips');
    expect(lines.find((l) => /^\s+\*\s+Hips\s/.test(l))).toMatch(
      new RegExp(`mixamorig:Hips\\s+\\[${hips}\\]\\s+name$`),
    );
    expect(lines.find((l) => /\sJaw\s/.test(l))).toMatch(
      /^\s{4}Jaw\s+mixamorig:HeadTop_End\s+\[\d+\]\s+override$/,
    );
    expect(lines.filter((l) => /\[\d+\]/.test(l)).length).toBe(mappedCount);
    const missing = formatHumanoidMap(legless(), autoMapHumanoid(legless()));
    expect(missing).toMatch(/missing REQUIRED: LeftUpperLeg, RightUpperLeg, LeftLowerLeg/);
  });
});
