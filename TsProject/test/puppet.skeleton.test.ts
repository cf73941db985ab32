/**
 * Any AnimatedDrawings skeleton (issue 22 part 1): characters that are not two-armed and two-legged keep their
 * own joints and every limb moves. The six-armed and the four-legged character are drawn by
 * tools/make-puppet-sample.mjs (--figure six-arms / four-legs) into a temporary folder and driven by the
 * embedded default recording (a right-arm wave in the first second, a squat at 2-3 s, arms spread at 3-4 s).
 * Before issue 22 both were refused ("missing AnimatedDrawings joints right_shoulder, ...").
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { runPuppetRender } from '../src/cli/puppet';
import { type PuppetPageConfig, startPuppetServer } from '../src/cli/puppetServe';
import { loadCharacter, loadLandmarkRecording } from '../src/io/node';
import {
  bvhFamily,
  bvhToPuppet,
  type Character,
  PUPPET_JOINTS,
  PuppetSession,
  parseRetargetCfg,
  skeletonFromNames,
} from '../src/puppet';
import { runAllocProbe } from './helpers/allocProbe';

const SCRIPT = path.resolve(__dirname, '../../tools/make-puppet-sample.mjs');
const RECORDING = path.resolve(__dirname, '../assets/default/puppet/recording.json');
const FPS = 30;
const WAVE = Math.round(0.55 * FPS); // the right arm raised and waving (150 degrees from hanging)
const SQUAT = Math.round(2.5 * FPS); // the deepest point of the squat (hips 52 px down)
const SPREAD = Math.round(3.6 * FPS); // both arms level, straight out

// written for this test in the format of AnimatedDrawings' examples/config/retarget/*.yaml
const RETARGET = [
  'char_starting_location: [0.0, -0.2, -0.5]',
  'char_bodypart_groups:',
  '- bvh_depth_drivers:',
  '  - Hips',
  '  char_joints:',
  '  - torso',
  '  - neck',
  '- bvh_depth_drivers:',
  '  - RightHand',
  '  char_joints:',
  '  - right_elbow2',
  '  - right_hand2',
  'char_joint_bvh_joints_mapping:',
  '  right_elbow1: !!python/tuple',
  '  - RightArm',
  '  - RightForeArm',
  '  right_hand1: !!python/tuple',
  '  - RightForeArm',
  '  - RightHand',
  '  right_elbow2: !!python/tuple',
  '  - RightArm',
  '  - RightForeArm',
  '  right_hand2: [RightForeArm, RightHand]',
  '  right_elbow3: !!python/tuple',
  '  - RightArm',
  '  - RightForeArm',
  '  right_hand3: !!python/tuple',
  '  - RightForeArm',
  '  - RightHand',
  '  torso: !!python/tuple',
  '  - Hips',
  '  - Spine3',
  '  neck: !!python/tuple',
  '  - Hips',
  '  - Neck',
  'char_runtime_checks: []',
  '',
].join('\n');

let tmp = '';
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kind-puppet-skeleton-'));
  for (const figure of ['six-arms', 'four-legs'])
    execFileSync(process.execPath, [SCRIPT, '--out', path.join(tmp, figure), '--figure', figure], {
      stdio: 'pipe',
    });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Drive a character through the default recording; per frame the drawing joints and the skinned vertices. */
function drive(c: Character) {
  const rec = loadLandmarkRecording(RECORDING).recording;
  const s = new PuppetSession(c, { image: rec.image });
  const joints: { x: number[]; y: number[] }[] = [];
  const skinned: Float32Array[] = [];
  const transforms: Float64Array[] = [];
  for (const f of rec.frames) {
    s.step(f);
    joints.push({ x: Array.from(s.drawingJoints.x), y: Array.from(s.drawingJoints.y) });
    skinned.push(Float32Array.from(s.skinned));
    transforms.push(Float64Array.from(s.transforms));
  }
  return { s, joints, skinned, transforms };
}

const angle = (f: { x: number[]; y: number[] }, a: number, b: number) =>
  Math.atan2(f.y[b] - f.y[a], f.x[b] - f.x[a]);
const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
const deg = (a: number) => (a * 180) / Math.PI;

describe('skeletonFromNames', () => {
  const J = (name: string, x: number, y: number, parent: string | null) => ({ name, x, y, parent });
  it('maps numbered arms, front and back legs and unknown joints by the documented rule', () => {
    const six = skeletonFromNames(
      [
        J('root', 50, 80, null),
        J('hip', 50, 80, 'root'),
        J('torso', 50, 40, 'hip'),
        J('neck', 50, 20, 'torso'),
        J('right_shoulder1', 40, 40, 'torso'),
        J('right_elbow1', 30, 40, 'right_shoulder1'),
        J('right_shoulder2', 40, 50, 'torso'),
        J('right_elbow2', 30, 55, 'right_shoulder2'),
        J('left_shoulder1', 60, 40, 'torso'),
        J('right_hip', 45, 80, 'root'),
        J('left_hip', 55, 80, 'root'),
        J('hat', 50, 5, 'neck'),
      ],
      'six/char_cfg.yaml',
    );
    const d = Object.fromEntries(six.mapping.joints.map((j) => [j.name, j.driver]));
    expect(d).toEqual({
      root: 'line RightUpperLeg -> LeftUpperLeg (drawn right_hip -> left_hip)',
      hip: 'rigid (follows root)',
      torso: 'Hips -> Neck',
      neck: 'Neck -> Head',
      hat: 'rigid (follows neck)',
      right_shoulder1: 'line RightUpperArm -> LeftUpperArm (drawn right_shoulder1 -> left_shoulder1)',
      right_elbow1: 'RightUpperArm -> RightLowerArm (fan of right_elbow1, right_elbow2)',
      right_shoulder2: 'rigid (follows torso)', // no left_shoulder2 to make a line with
      right_elbow2: 'RightUpperArm -> RightLowerArm (fan of right_elbow1, right_elbow2)',
      left_shoulder1: 'line RightUpperArm -> LeftUpperArm (drawn right_shoulder1 -> left_shoulder1)',
      right_hip: 'rigid (follows root)',
      left_hip: 'rigid (follows root)',
    });
    // parents come first whatever the file order
    six.parents.forEach((p, j) => {
      expect(p).toBeLessThan(j);
    });

    const four = skeletonFromNames(
      [
        J('left_foot_b', 20, 90, 'left_knee_b'),
        J('left_knee_b', 20, 70, 'left_hip_b'),
        J('root', 20, 40, null),
        J('left_hip_b', 20, 50, 'root'),
        J('right_hip_f', 80, 50, 'root'),
        J('right_knee_f', 80, 70, 'right_hip_f'),
        J('torso', 80, 40, 'root'),
        J('neck', 95, 20, 'torso'),
        J('left_hip_f', 78, 50, 'root'),
      ],
      'four/char_cfg.yaml',
    );
    const e = Object.fromEntries(four.mapping.joints.map((j) => [j.name, j.driver]));
    expect(e.root).toBe('rigid (keeps its rest angle)');
    expect(e.torso).toBe('rigid (follows root)');
    expect(e.neck).toBe('Neck -> Head (drawn direction while it points 90 deg)');
    expect(e.left_knee_b).toBe('LeftUpperLeg -> LeftLowerLeg');
    expect(e.right_knee_f).toBe('RightUpperLeg -> RightLowerLeg');
    expect(e.left_foot_b).toBe('LeftLowerLeg -> LeftFoot');
    expect(four.names.slice(0, 2)).toEqual(['root', 'left_hip_b']);

    // joints named like a BVH skeleton's (or ours) follow the pose bone parent place -> own place
    const bvh = skeletonFromNames(
      [
        J('Hips', 50, 80, null),
        J('Spine', 50, 60, 'Hips'),
        J('Neck', 50, 40, 'Spine'),
        J('Head', 50, 20, 'Neck'),
        J('LeftArm', 60, 40, 'Neck'),
        J('LeftForeArm', 70, 50, 'LeftArm'),
        J('LeftHand', 80, 60, 'LeftForeArm'),
        J('LeftUpLeg', 55, 80, 'Hips'),
        J('LeftLeg', 55, 100, 'LeftUpLeg'),
        J('wing', 40, 50, 'Spine'),
      ],
      'bvh/char_cfg.yaml',
    );
    expect(Object.fromEntries(bvh.mapping.joints.map((j) => [j.name, j.driver]))).toEqual({
      Hips: 'rigid (keeps its rest angle)',
      Spine: 'Hips -> Spine',
      Neck: 'Spine -> Neck',
      Head: 'Neck -> Head',
      LeftArm: 'Neck -> LeftUpperArm',
      LeftForeArm: 'LeftUpperArm -> LeftLowerArm',
      LeftHand: 'LeftLowerArm -> LeftHand',
      LeftUpLeg: 'Hips -> LeftUpperLeg',
      LeftLeg: 'LeftUpperLeg -> LeftLowerLeg',
      wing: 'rigid (follows Spine)',
    });
  });
});

describe('AnimatedDrawings retarget config', () => {
  const CFG = RETARGET;

  it('reads the pairs (python tuples or lists) and the depth groups, BVH names onto our joints', () => {
    const r = parseRetargetCfg(CFG, 'six.yaml');
    expect(r.family).toBe('fair1');
    expect(r.mapping.map((m) => [m.charJoint, m.prox, m.dist, m.line])).toEqual([
      ['right_elbow1', 'RightArm', 'RightForeArm', 14],
      ['right_hand1', 'RightForeArm', 'RightHand', 17],
      ['right_elbow2', 'RightArm', 'RightForeArm', 20],
      ['right_hand2', 'RightForeArm', 'RightHand', 23],
      ['right_elbow3', 'RightArm', 'RightForeArm', 24],
      ['right_hand3', 'RightForeArm', 'RightHand', 27],
      ['torso', 'Hips', 'Spine3', 30],
      ['neck', 'Hips', 'Neck', 33],
    ]);
    expect(r.groups.map((g) => [g.bvhDepthDrivers, g.charJoints])).toEqual([
      [['Hips'], ['torso', 'neck']],
      [['RightHand'], ['right_elbow2', 'right_hand2']],
    ]);
    // one name, two places: LeftShoulder is fair1's clavicle and CMU's shoulder joint
    expect(bvhToPuppet('LeftShoulder', 'fair1')).toBe('Neck');
    expect(bvhToPuppet('LeftShoulder', 'cmu')).toBe('LeftUpperArm');
    expect(bvhFamily(['LeftShoulder', 'LeftElbow', 'Chest2'])).toBe('cmu');
    expect(bvhToPuppet('mixamorig:RightUpLeg', 'fair1')).toBe('RightUpperLeg');
    expect(bvhToPuppet('RThumb', 'cmu')).toBe('RightHandTip');
    expect(bvhToPuppet('Spine3', 'fair1')).toBe('Chest');
    expect(bvhToPuppet('constructor', 'fair1')).toBeNull();
  });

  it('names file:line and joint for bad configs', () => {
    expect(() =>
      parseRetargetCfg(
        CFG.replace('  - RightForeArm\n  right_hand1', '  - Elbowish\n  right_hand1'),
        'r.yaml',
      ),
    ).toThrow(
      /r\.yaml:14: char_joint_bvh_joints_mapping\.right_elbow1: BVH joint 'Elbowish' is not one the puppet knows/,
    );
    expect(() =>
      parseRetargetCfg(
        CFG.replace('right_hand2: [RightForeArm, RightHand]', 'right_hand2: [RightHand]'),
        'r.yaml',
      ),
    ).toThrow(/r\.yaml:23: char_joint_bvh_joints_mapping\.right_hand2 must be a list of 2 joint names/);
    expect(() => parseRetargetCfg('char_bodypart_groups: []\n', 'r.yaml')).toThrow(
      /r\.yaml:1: missing field 'char_joint_bvh_joints_mapping'/,
    );
    expect(() =>
      loadCharacter(path.join(tmp, 'four-legs'), { retargetCfgFile: writeTmp('bad.yaml', CFG) }),
    ).toThrow(
      /bad\.yaml:14: char_joint_bvh_joints_mapping: character joint 'right_elbow1' is not in .*four-legs\/char_cfg\.yaml/,
    );
    expect(() =>
      loadCharacter(path.join(tmp, 'six-arms', 'texture.png'), { retargetCfgFile: writeTmp('r.yaml', CFG) }),
    ).toThrow(/r\.yaml: a retarget config maps the joints of a char_cfg\.yaml/);
  });

  it('drives each copy of an arm to the same direction, as AnimatedDrawings, and leaves unmapped joints rigid', () => {
    const c = loadCharacter(path.join(tmp, 'six-arms'), { retargetCfgFile: writeTmp('six.yaml', CFG) });
    expect(c.skeleton?.mapping.rule).toBe('retarget-cfg');
    const { s, joints, transforms } = drive(c);
    const n = s.rig.skeleton.names;
    const at = (name: string) => n.indexOf(name);
    const f = joints[WAVE];
    // the three right forearms point the same way (each takes RightForeArm -> RightHand absolutely)
    const a1 = angle(f, at('right_elbow1'), at('right_hand1'));
    expect(wrap(angle(f, at('right_elbow2'), at('right_hand2')) - a1)).toBeCloseTo(0, 9);
    expect(wrap(angle(f, at('right_elbow3'), at('right_hand3')) - a1)).toBeCloseTo(0, 9);
    // no left arm is mapped: the left hands stay where the torso takes them (rigid), root never turns
    expect(s.rig.theta[at('root')]).toBe(0);
    const th = s.rig.theta;
    expect(th[at('left_hand2')]).toBe(th[at('torso')]);
    expect(transforms[WAVE].length).toBe(6 * n.length);
    expect(c.skeleton?.mapping.depthGroups?.[1]).toEqual({
      bvhDepthDrivers: ['RightHand'],
      poseDepthDrivers: ['RightHand'],
      charJoints: ['right_elbow2', 'right_hand2'],
    });
  });
});

describe('depth groups (char_bodypart_groups)', () => {
  it('draw the nearer group last: the second right arm over the body when the right wrist is nearer', () => {
    const c = loadCharacter(path.join(tmp, 'six-arms'), {
      retargetCfgFile: writeTmp('six-depth.yaml', RETARGET),
    });
    const rec = loadLandmarkRecording(RECORDING).recording;
    const s = new PuppetSession(c, { image: rec.image });
    const d = s.drawOrder!;
    expect(d).not.toBeNull();
    const groupOf = (k: number) => d.triangleGroup[d.order[k]];
    const count = (g: number) => d.triangleGroup.filter((x) => x === g).length;
    // the arm of right_elbow2 / right_hand2 has triangles of its own; the trunk group (torso, neck and what
    // hangs below them: every other arm, the head) most of the rest; the legs hang from root: ungrouped
    expect(count(1)).toBeGreaterThan(10);
    expect(count(0)).toBeGreaterThan(count(1));
    expect(count(-1)).toBeGreaterThan(10);
    const sequence = () => {
      const out: number[] = [];
      for (let k = 0; k < d.order.length; k++) if (out[out.length - 1] !== groupOf(k)) out.push(groupOf(k));
      return out;
    };
    // the recording's right wrist is nearer the camera than the trunk (world z; image z -0.021 against 0): ungrouped, trunk, arm
    s.step(rec.frames[10]);
    expect(d.groupDepth[1]).toBeLessThan(d.groupDepth[0]);
    expect(sequence()).toEqual([-1, 0, 1]);
    expect([...d.order].sort((a, b) => a - b)).toEqual(Array.from({ length: d.order.length }, (_, i) => i));
    // the wrist behind the body: the arm is drawn before the trunk, which covers it
    const far = JSON.parse(JSON.stringify(rec.frames[11]));
    far.landmarks[16].z = 0.5;
    if (far.worldLandmarks) far.worldLandmarks[16].z = 0.5; // world z when the frame has it (depthOrder.ts)
    s.step(far);
    expect(sequence()).toEqual([-1, 1, 0]);
    // a frame with nobody keeps the last order
    s.step({ timestampMs: rec.frames[12].timestampMs, landmarks: [] });
    expect(sequence()).toEqual([-1, 1, 0]);
  });
});

describe('per frame', () => {
  it('PuppetSession.step allocates nothing on a character of its own (six arms, fans, depth groups)', () => {
    const retarget = writeTmp('alloc-retarget.yaml', RETARGET);
    const r = runAllocProbe(`
      import { loadCharacter, loadLandmarkRecording } from ${JSON.stringify(path.resolve(__dirname, '../src/io/node'))};
      import { PuppetSession } from ${JSON.stringify(path.resolve(__dirname, '../src/puppet'))};
      const rec = loadLandmarkRecording(${JSON.stringify(RECORDING)}).recording;
      for (const [name, opts] of [['names', {}], ['retargetCfg', { retargetCfgFile: ${JSON.stringify(retarget)} }]]) {
        const c = loadCharacter(${JSON.stringify(path.join(tmp, 'six-arms'))}, opts);
        const s = new PuppetSession(c, { image: rec.image, weights: 'segments' });
        const I = new Int32Array(1);
        const T = new Float64Array(1);
        result[name] = bytesPerCall(() => {
          const f = rec.frames[I[0]++ % rec.frames.length];
          T[0] += 33.37;
          f.timestampMs = T[0];
          s.step(f);
        }, 3000);
      }
    `);
    expect(Object.keys(r)).toEqual(['names', 'retargetCfg']);
    for (const v of Object.values(r)) expect(v).toBeLessThan(1);
  });
});

function writeTmp(name: string, text: string): string {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
}

describe('six arms, mapped by name', () => {
  it('moves all three arms a side as a fan, the skin with them', () => {
    const c = loadCharacter(path.join(tmp, 'six-arms'));
    expect(c.skeleton?.names).toHaveLength(28);
    const { s, joints, skinned } = drive(c);
    const n = s.rig.skeleton.names;
    const at = (name: string) => n.indexOf(name);
    const rest = { x: Array.from(c.restJoints.x), y: Array.from(c.restJoints.y) };
    const lines: string[] = [];
    for (const side of ['right', 'left'])
      for (const k of [1, 2, 3]) {
        const hand = at(`${side}_hand${k}`);
        const wave = Math.hypot(joints[WAVE].x[hand] - rest.x[hand], joints[WAVE].y[hand] - rest.y[hand]);
        const spread = joints[SPREAD];
        lines.push(
          `${side}_hand${k}: wave moved ${wave.toFixed(1)} px, spread at (${spread.x[hand].toFixed(0)}, ${spread.y[hand].toFixed(0)}) rest (${rest.x[hand]}, ${rest.y[hand]})`,
        );
        if (side === 'right') {
          // the right arm waves above the head: every right hand rises above its shoulder
          expect(joints[WAVE].y[hand]).toBeLessThan(joints[WAVE].y[at(`right_shoulder${k}`)] - 40);
          expect(wave).toBeGreaterThan(60);
        }
        // arms spread level: each hand's upper arm turns by the same angle as the other two (a fan); in the wave
        // the fan closes against its upper bound (rig.ts FAN_SECTOR): the arms keep their drawn order, apart
        const up = (f: { x: number[]; y: number[] }, q: number) =>
          angle(f, at(`${side}_shoulder${q}`), at(`${side}_elbow${q}`));
        expect(wrap(up(spread, k) - up(rest, k) - (up(spread, 1) - up(rest, 1)))).toBeCloseTo(0, 9);
        if (k > 1) {
          // side angles (0 hanging, 90 level, 150 the bound): copy k - 1 above copy k by at least half the drawn gap
          const side0 = (f: { x: number[]; y: number[] }, q: number) =>
            deg(side === 'right' ? wrap(up(f, q) - Math.PI / 2) : wrap(Math.PI / 2 - up(f, q)));
          const gap = side0(rest, k - 1) - side0(rest, k);
          expect(side0(joints[WAVE], k - 1) - side0(joints[WAVE], k)).toBeGreaterThan(gap / 2 - 1e-6);
          expect(side0(joints[WAVE], k - 1)).toBeLessThan(150 + 1e-6);
        }
        // the skin near each hand goes with it: the vertex nearest the rest hand ends within 4 px of where the
        // hand's own rigid motion takes it
        const V = s.mesh.vertices;
        let v = 0;
        for (let i = 1; i < s.mesh.vertexCount; i++)
          if (
            Math.hypot(V[2 * i] - rest.x[hand], V[2 * i + 1] - rest.y[hand]) <
            Math.hypot(V[2 * v] - rest.x[hand], V[2 * v + 1] - rest.y[hand])
          )
            v = i;
        const sk = skinned[SPREAD];
        const rx = V[2 * v] - rest.x[hand];
        const ry = V[2 * v + 1] - rest.y[hand];
        const a =
          Math.atan2(
            joints[SPREAD].y[hand] - joints[SPREAD].y[at(`${side}_elbow${k}`)],
            joints[SPREAD].x[hand] - joints[SPREAD].x[at(`${side}_elbow${k}`)],
          ) -
          Math.atan2(
            rest.y[hand] - rest.y[at(`${side}_elbow${k}`)],
            rest.x[hand] - rest.x[at(`${side}_elbow${k}`)],
          );
        const ex = joints[SPREAD].x[hand] + Math.cos(a) * rx - Math.sin(a) * ry;
        const ey = joints[SPREAD].y[hand] + Math.sin(a) * rx + Math.cos(a) * ry;
        expect(Math.hypot(sk[2 * v] - ex, sk[2 * v + 1] - ey)).toBeLessThan(4);
        expect(Math.hypot(sk[2 * v] - V[2 * v], sk[2 * v + 1] - V[2 * v + 1])).toBeGreaterThan(10);
      }
    // arms spread straight out: the fan's mean direction is the person's (level), so the middle arms, drawn
    // near the mean, end near level with their shoulders
    for (const side of ['right', 'left']) {
      const f = joints[SPREAD];
      const mid = deg(angle(f, at(`${side}_shoulder2`), at(`${side}_hand2`)));
      expect(
        Math.abs(side === 'right' ? wrap(((180 - mid) * Math.PI) / 180) : (mid * Math.PI) / 180),
      ).toBeLessThan(0.35);
    }
    console.log(lines.join('\n'));
  });
});

describe('four legs, mapped by name', () => {
  it('bends all four legs in the squat; body, tail and head keep their drawn angles', () => {
    const c = loadCharacter(path.join(tmp, 'four-legs'));
    expect(c.skeleton?.names).toHaveLength(17);
    const { s, joints, transforms } = drive(c);
    const n = s.rig.skeleton.names;
    const at = (name: string) => n.indexOf(name);
    const rest = { x: Array.from(c.restJoints.x), y: Array.from(c.restJoints.y) };
    const root = at('root');
    const f = joints[SQUAT];
    const drop = f.y[root] - rest.y[root];
    const lines = [`root down ${drop.toFixed(1)} px in the squat`];
    expect(drop).toBeGreaterThan(15);
    for (const leg of ['right_f', 'left_f', 'right_b', 'left_b']) {
      const [side, fb] = leg.split('_');
      const hip = at(`${side}_hip_${fb}`);
      const knee = at(`${side}_knee_${fb}`);
      const foot = at(`${side}_foot_${fb}`);
      // the knee leaves the straight line hip -> foot: the leg bends
      const bend = (g: { x: number[]; y: number[] }) => wrap(angle(g, knee, foot) - angle(g, hip, knee));
      lines.push(`${leg}: knee bend ${deg(bend(rest)).toFixed(1)} -> ${deg(bend(f)).toFixed(1)} deg`);
      expect(Math.abs(bend(f) - bend(rest))).toBeGreaterThan((30 * Math.PI) / 180);
      // front and back legs of a side bend alike (a fan of two)
      const twin = fb === 'f' ? 'b' : 'f';
      const tw = (g: { x: number[]; y: number[] }) =>
        wrap(
          angle(g, at(`${side}_knee_${twin}`), at(`${side}_foot_${twin}`)) -
            angle(g, at(`${side}_hip_${twin}`), at(`${side}_knee_${twin}`)),
        );
      expect(bend(f) - bend(rest)).toBeCloseTo(tw(f) - tw(rest), 9);
    }
    // the body lies along the ground as drawn: root, torso and tail never turn
    for (const name of ['root', 'torso', 'tail'])
      for (const t of [0, WAVE, SQUAT, SPREAD]) {
        expect(transforms[t][6 * at(name)]).toBe(1);
        expect(transforms[t][6 * at(name) + 1]).toBe(0);
      }
    console.log(lines.join('\n'));
  });
});

describe('kind puppet render', () => {
  it('renders the six-armed character (not refused) and stores its joints and mapping in puppet.json', async () => {
    const out = path.join(tmp, 'out-six');
    const r = await runPuppetRender({
      character: path.join(tmp, 'six-arms'),
      landmarks: RECORDING,
      outDir: out,
      preview: false,
    });
    const file = JSON.parse(fs.readFileSync(path.join(out, 'puppet.json'), 'utf8'));
    expect(file.joints).toHaveLength(28);
    expect(file.joints).toContain('right_hand3');
    expect(file.frames[0].joints).toHaveLength(28);
    expect(file.character.restJoints).toHaveLength(28);
    expect(file.character.mapping.rule).toBe('names');
    expect(file.stats.perJoint.map((p: { name: string }) => p.name)).toEqual([...PUPPET_JOINTS]);
    expect(r.outputs.frameCount).toBe(180);
    // the rendered wave frame differs from the first: the right arms are drawn elsewhere
    const a = fs.readFileSync(path.join(out, 'frames', '0000.png'));
    const b = fs.readFileSync(path.join(out, 'frames', `00${WAVE}.png`));
    expect(a.equals(b)).toBe(false);
  });
});

describe('kind puppet (the page server) --retarget-cfg', () => {
  it('serves the retarget config beside the character and names it in /config.json', async () => {
    const web = path.join(tmp, 'web');
    fs.mkdirSync(web, { recursive: true });
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>puppet</title>');
    fs.writeFileSync(path.join(web, 'puppet.js'), 'export {};');
    const cfg = writeTmp(
      'serve-retarget.yaml',
      'char_joint_bvh_joints_mapping:\n  left_knee_f: [LeftArm, LeftForeArm]\n',
    );
    const get = (url: string) =>
      new Promise<string>((resolve, reject) =>
        http
          .get(url, (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => resolve(Buffer.concat(chunks).toString()));
          })
          .on('error', reject),
      );
    const server = await startPuppetServer({
      port: 0,
      webRoot: web,
      character: path.join(tmp, 'four-legs'),
      retargetCfg: cfg,
    });
    try {
      const config = JSON.parse(await get(`${server.url}config.json`)) as PuppetPageConfig;
      expect(config.character?.retarget).toBe('/character/retarget.yaml');
      expect(await get(`${server.url}character/retarget.yaml`)).toBe(fs.readFileSync(cfg, 'utf8'));
    } finally {
      await server.close();
    }
    await expect(
      startPuppetServer({
        port: 0,
        webRoot: web,
        character: path.join(tmp, 'four-legs', 'texture.png'),
        retargetCfg: cfg,
      }),
    ).rejects.toThrow(/serve-retarget\.yaml: a retarget config maps a char_cfg\.yaml's joints/);
  });
});
