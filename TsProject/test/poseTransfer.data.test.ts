/**
 * PoseTransfer on real files: the Bandai Namco walk retargeted onto Xbot (the driving avatar), then
 * transferred from Xbot to Soldier, cryptovoxels.vrm, RobotExpressive (IK-style feet) and Xbot itself.
 */

import { quat, vec3 } from 'gl-matrix';
import {
  angleBetween,
  type Clip,
  createClip,
  HumanBodyBones as H,
  isAncestor,
  quat64,
  RAD2DEG,
  readFrame,
  readQuat,
  type Skeleton,
  vec64,
  vectorAngle,
  writeFrame,
} from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { retargetClip, virtualizeHumanoid } from '../src/retarget';
import { PoseTransfer, type PoseTransferTargetOptions } from '../src/rig/poseTransfer';
import { dataPath, describeWithData } from './helpers/data';

const TAKE = 'bandai-namco-motiondataset/dataset-1_walk_normal_001.bvh';
const OFFSET: [number, number, number] = [1.2, 0, -0.4];

/** World pose as a host shows it: `scale` on the hips node, `headScale` on the head node (glTF T * R * S). */
function hostWorld(
  s: Skeleton,
  rot: ArrayLike<number>,
  pos: ArrayLike<number>,
  scale: number,
  headScale: number,
) {
  const n = s.boneCount;
  const p = new Float64Array(3 * n);
  const r = new Float64Array(4 * n);
  const c = new Float64Array(n);
  const q = quat64();
  const pq = quat64();
  const v = vec64();
  for (let i = 0; i < n; i++) {
    const own = (i === s.humanoid[H.Hips] ? scale : 1) * (i === s.humanoid[H.Head] ? headScale : 1);
    const par = s.parents[i];
    readQuat(q, rot, i);
    vec3.set(v, pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
    if (par < 0) {
      r.set(q, 4 * i);
      p.set(v, 3 * i);
      c[i] = own;
      continue;
    }
    readQuat(pq, r, par);
    r.set(quat.multiply(q, pq, q), 4 * i);
    vec3.transformQuat(v, vec3.scale(v, v, c[par]), pq);
    p.set([v[0] + p[3 * par], v[1] + p[3 * par + 1], v[2] + p[3 * par + 2]], 3 * i);
    c[i] = c[par] * own;
  }
  return { r, p };
}

/** Limb segments as in quality.ts: [name, from, candidate ends (first mapped on both skeletons)]. */
const SEGMENTS: [string, number, number[]][] = [['hipsToNeck', H.Hips, [H.Neck, H.Head]]];
for (const side of ['Left', 'Right'] as const) {
  SEGMENTS.push(
    [`${side}UpperArm`, H[`${side}UpperArm`], [H[`${side}LowerArm`]]],
    [`${side}Forearm`, H[`${side}LowerArm`], [H[`${side}Hand`]]],
    [
      `${side}Hand`,
      H[`${side}Hand`],
      [H[`${side}MiddleProximal`], H[`${side}IndexProximal`], H[`${side}RingProximal`]],
    ],
    [`${side}Thigh`, H[`${side}UpperLeg`], [H[`${side}LowerLeg`]]],
    [`${side}Shin`, H[`${side}LowerLeg`], [H[`${side}Foot`]]],
    [`${side}Foot`, H[`${side}Foot`], [H[`${side}Toes`]]],
  );
}

/**
 * Per segment mapped on both skeletons: mean and max over frames of the angle (degrees) between the
 * segment's world direction on `a` and on `b`, from world positions per frame (`3n` each).
 */
function segmentErrors(a: Skeleton, wa: Float64Array[], b: Skeleton, wb: Float64Array[]) {
  const out: { name: string; meanDeg: number; maxDeg: number }[] = [];
  for (const [name, from, ends] of SEGMENTS) {
    const end = ends.find((h) => a.humanoid[h] >= 0 && b.humanoid[h] >= 0);
    if (end === undefined || a.humanoid[from] < 0 || b.humanoid[from] < 0) continue;
    let sum = 0;
    let max = 0;
    const da = vec64();
    const db = vec64();
    for (let f = 0; f < wa.length; f++) {
      const [a0, a1, b0, b1] = [a.humanoid[from], a.humanoid[end], b.humanoid[from], b.humanoid[end]];
      for (let c = 0; c < 3; c++) {
        da[c] = wa[f][3 * a1 + c] - wa[f][3 * a0 + c];
        db[c] = wb[f][3 * b1 + c] - wb[f][3 * b0 + c];
      }
      const deg = vectorAngle(da, db) * RAD2DEG;
      sum += deg;
      max = Math.max(max, deg);
    }
    out.push({ name, meanDeg: sum / wa.length, maxDeg: max });
  }
  return out;
}

interface Run {
  avatar: string;
  clip: Clip;
  world: Float64Array[];
  scale: number[];
  hostError: number;
}

describeWithData('PoseTransfer: Bandai walk on Xbot, transferred to other real avatars', () => {
  let driving: Clip;
  let avatars: Record<string, Skeleton>;
  const runs: Record<string, Run> = {};
  const rows: string[] = [];

  const targets: [string, string, PoseTransferTargetOptions][] = [
    ['soldier', 'soldier', { hipsOffset: OFFSET }],
    ['soldierPlain', 'soldier', {}],
    ['crypto', 'crypto', { hipsOffset: [-1, 0, 0], hipsMode: 'scaled', rootScaleSync: 'height' }],
    ['robot', 'robot', { hipsOffset: OFFSET, scale: 0.6 }],
    ['robotPlain', 'robot', { scale: 0.6 }],
    ['xbotCopy', 'xbot', { rootScaleSync: 'follow' }],
  ];

  beforeAll(async () => {
    const src = await loadSource(dataPath(TAKE));
    const xbot = (await loadAvatar(dataPath('threejs/Xbot.glb'))).skeleton;
    avatars = {
      xbot,
      soldier: (await loadAvatar(dataPath('threejs/Soldier.glb'))).skeleton,
      crypto: (await loadAvatar(dataPath('vrm-samples-madjin/cryptovoxels.vrm'))).skeleton,
      robot: (await loadAvatar(dataPath('threejs/RobotExpressive/RobotExpressive.glb'))).skeleton,
    };
    driving = retargetClip(src.clip, xbot, { groundContact: true }).clip;
    const pt = new PoseTransfer(xbot);
    for (const [id, avatar, options] of targets) pt.addTarget(id, avatars[avatar], options);
    pt.calibrate();
    pt.setSourceScale(1.1, 1.2);
    for (const [id, avatar] of targets) {
      runs[id] = {
        avatar,
        clip: createClip(avatars[avatar], driving.frameCount, driving.frameTime, id),
        world: [],
        scale: [],
        hostError: 0,
      };
    }
    runs.source = { avatar: 'xbot', clip: driving, world: [], scale: [], hostError: 0 };
    const n = xbot.boneCount;
    const rot = new Float64Array(4 * n);
    const pos = new Float64Array(3 * n);
    for (let f = 0; f < driving.frameCount; f++) {
      readFrame(driving, f, rot, pos);
      pt.update(rot, pos);
      runs.source.world.push(hostWorld(xbot, rot, pos, pt.sourceScale, pt.sourceHeadScale).p);
      for (const [id, avatar] of targets) {
        const out = pt.output(id);
        const run = runs[id];
        writeFrame(run.clip, f, out.rotations, out.translations);
        run.world.push(Float64Array.from(out.worldPositions));
        run.scale.push(out.scale);
        const host = hostWorld(avatars[avatar], out.rotations, out.translations, out.scale, out.headScale);
        for (let k = 0; k < host.p.length; k++)
          run.hostError = Math.max(run.hostError, Math.abs(host.p[k] - out.worldPositions[k]));
      }
    }
  });

  afterAll(() => {
    console.log(`PoseTransfer, ${TAKE} on Xbot (source scale 1.1, head 1.2) -> targets:\n${rows.join('\n')}`);
  });

  for (const id of ['soldier', 'crypto', 'robot', 'xbotCopy']) {
    it(`${id}: limb segment directions within 1 degree of the driving Xbot's, no NaN`, () => {
      const run = runs[id];
      expect(run.clip.rotations.every(Number.isFinite)).toBe(true);
      expect(run.clip.translations.every(Number.isFinite)).toBe(true);
      expect(run.world.every((w) => w.every(Number.isFinite))).toBe(true);
      const e = segmentErrors(avatars.xbot, runs.source.world, avatars[run.avatar], run.world);
      expect(e.length).toBeGreaterThanOrEqual(11);
      const worst = e.reduce((a, b) => (b.maxDeg > a.maxDeg ? b : a));
      const limbs = e.filter((x) => x.name !== 'hipsToNeck');
      const worstLimb = limbs.reduce((a, b) => (b.maxDeg > a.maxDeg ? b : a));
      rows.push(
        `  ${id}: ${e.length} segments; worst limb ${worstLimb.name} max ${worstLimb.maxDeg.toFixed(6)} deg; worst ${worst.name} mean ${worst.meanDeg.toFixed(4)} max ${worst.maxDeg.toFixed(4)} deg; scale ${run.scale[0].toFixed(4)}; host FK vs worldPositions ${run.hostError.toExponential(1)} m`,
      );
      for (const x of e) expect([x.name, x.maxDeg < 1]).toEqual([x.name, true]);
      // the reported world positions are what the host gets from the locals with the scales on their nodes
      expect(run.hostError).toBeLessThan(1e-9);
    });
  }

  for (const [moved, plain, avatar] of [
    ['soldier', 'soldierPlain', 'soldier'],
    ['robot', 'robotPlain', 'robot'],
  ]) {
    it(`${moved}: the hips offset moves the hips and every bone below them by exactly ${OFFSET.join(', ')} m in world space`, () => {
      const s = avatars[avatar];
      const hips = s.humanoid[H.Hips];
      let worst = 0;
      let movedBones = 0;
      const vh = virtualizeHumanoid(s);
      for (let f = 0; f < driving.frameCount; f++) {
        const a = runs[plain].world[f];
        const b = runs[moved].world[f];
        for (let i = 0; i < s.boneCount; i++) {
          // below the hips in the real or the virtual hierarchy: IK-style bones (RobotExpressive's
          // feet) hang off the root but follow the body
          const body = isAncestor(s, hips, i) || isAncestor(vh.skeleton, vh.virtualOf[hips], vh.virtualOf[i]);
          if (f === 0 && body) movedBones++;
          for (let c = 0; c < 3; c++)
            worst = Math.max(worst, Math.abs(b[3 * i + c] - a[3 * i + c] - (body ? OFFSET[c] : 0)));
        }
      }
      rows.push(
        `  ${moved}: hips offset error ${worst.toExponential(1)} m over ${movedBones} bones x ${driving.frameCount} frames`,
      );
      expect(worst).toBeLessThan(1e-9);
      expect(movedBones).toBeGreaterThan(s.boneCount / 2);
      // feet included (the IK-style feet of RobotExpressive are not below its hips)
      for (const h of [H.LeftFoot, H.RightFoot]) {
        const b = s.humanoid[h];
        expect(
          Math.abs(runs[moved].world[10][3 * b] - runs[plain].world[10][3 * b] - OFFSET[0]),
        ).toBeLessThan(1e-9);
      }
    });
  }

  it('xbotCopy: Xbot onto a copy of itself (scale following the source) reproduces the local rotations within 1e-6 and the translations', () => {
    const run = runs.xbotCopy;
    let worstRot = 0;
    let worstPos = 0;
    for (let k = 0; k < driving.rotations.length; k += 4) {
      worstRot = Math.max(
        worstRot,
        angleBetween(driving.rotations.subarray(k, k + 4), run.clip.rotations.subarray(k, k + 4)),
      );
    }
    for (let k = 0; k < driving.translations.length; k++)
      worstPos = Math.max(worstPos, Math.abs(driving.translations[k] - run.clip.translations[k]));
    rows.push(
      `  xbotCopy: worst local rotation ${worstRot.toExponential(2)} rad, translation ${worstPos.toExponential(2)} m`,
    );
    expect(worstRot).toBeLessThan(1e-6);
    expect(worstPos).toBeLessThan(1e-6);
    expect(run.scale.every((s) => s === 1.1)).toBe(true);
  });

  it("crypto: 'height' sync stands the target as tall at the hips as the scaled source", () => {
    // scaled hips mode with contact levels: a standing source gives a standing target; the standing hips
    // heights agree, so the hips paths' heights agree too (within the ankle-level difference)
    const xbot = avatars.xbot;
    const crypto = avatars.crypto;
    const scale = runs.crypto.scale[0];
    expect(runs.crypto.scale.every((s) => s === scale)).toBe(true);
    expect(scale).toBeGreaterThan(1.1);
    const hx = xbot.humanoid[H.Hips];
    const hc = crypto.humanoid[H.Hips];
    let worst = 0;
    for (let f = 0; f < driving.frameCount; f++) {
      worst = Math.max(worst, Math.abs(runs.crypto.world[f][3 * hc + 1] - runs.source.world[f][3 * hx + 1]));
    }
    rows.push(
      `  crypto: scale ${scale.toFixed(4)}; |hips height - Xbot hips height| max ${(worst * 100).toFixed(2)} cm`,
    );
    expect(worst).toBeLessThan(0.03);
  });
});
