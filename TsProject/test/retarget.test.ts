import * as path from 'node:path';
import fc from 'fast-check';
import { quat, vec3 } from 'gl-matrix';
import {
  angleBetween,
  type Clip,
  createClip,
  createSkeleton,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  readFrame,
  readQuat,
  type Skeleton,
} from '../src/core';
import { canonicalPose, computeDrivers, Retargeter, retargetClip } from '../src/retarget';
import { runAllocProbe } from './helpers/allocProbe';
import { makeHumanoid } from './helpers/humanoid';

function world(s: Skeleton, rot: ArrayLike<number>, pos: ArrayLike<number>) {
  const r = new Float64Array(4 * s.boneCount);
  const p = new Float64Array(3 * s.boneCount);
  forwardKinematics(s, rot as Float64Array, pos as Float64Array, r, p);
  return { r, p };
}

function dir(s: Skeleton, g: { p: Float64Array }, from: number, to: number): number[] {
  const a = s.humanoid[from];
  const b = s.humanoid[to];
  const v = [g.p[3 * b] - g.p[3 * a], g.p[3 * b + 1] - g.p[3 * a + 1], g.p[3 * b + 2] - g.p[3 * a + 2]];
  const l = Math.hypot(v[0], v[1], v[2]);
  return v.map((x) => x / l);
}

function expectVec(v: number[], want: number[], tol: number) {
  for (let k = 0; k < 3; k++) expect(Math.abs(v[k] - want[k])).toBeLessThan(tol);
}

/** A clip of random poses: random local rotations on every bone (up to `maxAngle`), random hips path. */
function randomClip(s: Skeleton, frames: number, seed: number, maxAngle = 1.2): Clip {
  const clip = createClip(s, frames, 1 / 30, 'random');
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const q = quat64();
  const r = quat64();
  for (let f = 0; f < frames; f++) {
    for (let i = 0; i < s.boneCount; i++) {
      const axis = vec3.normalize(new Float64Array(3) as unknown as vec3, [
        rnd() - 0.5,
        rnd() - 0.5,
        rnd() - 0.5,
      ]);
      quat.setAxisAngle(q, axis, (rnd() - 0.5) * 2 * maxAngle);
      readQuat(r, s.restRotations, i);
      quat.multiply(q, r, q);
      clip.rotations.set(q, 4 * (f * s.boneCount + i));
    }
    const h = s.humanoid[H.Hips];
    const o = 3 * (f * s.boneCount + h);
    clip.translations[o] = (rnd() - 0.5) * 4;
    clip.translations[o + 1] = s.restTranslations[3 * h + 1] * (0.8 + 0.3 * rnd());
    clip.translations[o + 2] = (rnd() - 0.5) * 4;
  }
  // frame 0 stays at rest so 'auto' calibration has a standing pose available
  clip.rotations.set(s.restRotations, 0);
  clip.translations.set(s.restTranslations, 0);
  return clip;
}

describe('canonical reference pose', () => {
  it('straightens an A-pose: arms along +-X, legs down, spine up', () => {
    const s = makeHumanoid({ pose: 'A', twistRest: 0.7 });
    const ref = canonicalPose(s);
    const g = { p: ref.world.positions };
    expectVec(dir(s, g, H.LeftUpperArm, H.LeftLowerArm), [1, 0, 0], 1e-9);
    expectVec(dir(s, g, H.RightLowerArm, H.RightHand), [-1, 0, 0], 1e-9);
    expectVec(dir(s, g, H.LeftUpperLeg, H.LeftLowerLeg), [0, -1, 0], 1e-9);
    expectVec(dir(s, g, H.Spine, H.Chest), [0, 1, 0], 1e-9);
    expectVec(dir(s, g, H.LeftFoot, H.LeftToes), [0, 0, 1], 1e-9);
    const iPose = canonicalPose(s, { kind: 'I' });
    expectVec(dir(s, { p: iPose.world.positions }, H.LeftUpperArm, H.LeftLowerArm), [0, -1, 0], 1e-9);
  });

  it('turns a rig facing -Z to face +Z (left at +X)', () => {
    const s = makeHumanoid();
    // rotate the root by 180 degrees about Y: the character now faces -Z
    const rot = Float64Array.from(s.restRotations);
    quat.setAxisAngle(rot.subarray(0, 4), [0, 1, 0], Math.PI);
    const ref = canonicalPose(s, { baseRotations: rot });
    expectVec(dir(s, { p: ref.world.positions }, H.RightUpperArm, H.LeftUpperArm), [1, 0, 0], 1e-9);
  });
});

describe('retargeting known cases', () => {
  it('T-pose source onto an A-pose target: rest gives the arm along +X, Rz(-90) gives (0,-1,0)', () => {
    const src = makeHumanoid({ pose: 'T' });
    const tgt = makeHumanoid({ pose: 'A', legs: 1.2, arms: 0.8 });
    // the target's rest upper arm is along (0.7071068, -0.7071068, 0)
    const tr = world(tgt, tgt.restRotations, tgt.restTranslations);
    // biome-ignore lint/suspicious/noApproximativeNumericConstant: the value as the issue states it
    expectVec(dir(tgt, tr, H.LeftUpperArm, H.LeftLowerArm), [0.7071068, -0.7071068, 0], 1e-6);

    const r = new Retargeter(src, tgt);
    r.calibrate();
    const outR = new Float64Array(4 * tgt.boneCount);
    const outP = new Float64Array(3 * tgt.boneCount);
    r.retargetPose(src.restRotations, src.restTranslations, outR, outP);
    expectVec(dir(tgt, world(tgt, outR, outP), H.LeftUpperArm, H.LeftLowerArm), [1, 0, 0], 1e-6);

    const rot = Float64Array.from(src.restRotations);
    quat.setAxisAngle(
      rot.subarray(4 * src.humanoid[H.LeftUpperArm], 4 * src.humanoid[H.LeftUpperArm] + 4),
      [0, 0, 1],
      -Math.PI / 2,
    );
    r.retargetPose(rot, src.restTranslations, outR, outP);
    expectVec(dir(tgt, world(tgt, outR, outP), H.LeftUpperArm, H.LeftLowerArm), [0, -1, 0], 1e-6);
  });

  it('retargeting a skeleton onto itself reproduces the local rotations (random poses)', () => {
    for (const twistRest of [0, 0.9]) {
      const s = makeHumanoid({ twistRest, spineBones: 4 });
      const clip = randomClip(s, 60, 7);
      const { clip: out } = retargetClip(clip, s);
      for (let k = 0; k < clip.rotations.length; k += 4) {
        const err = angleBetween(clip.rotations.subarray(k, k + 4), out.rotations.subarray(k, k + 4));
        expect(err).toBeLessThan(1e-6);
      }
      const h = s.humanoid[H.Hips];
      for (let f = 0; f < clip.frameCount; f++) {
        for (let c = 0; c < 3; c++) {
          const o = 3 * (f * s.boneCount + h) + c;
          expect(Math.abs(out.translations[o] - clip.translations[o])).toBeLessThan(1e-6);
        }
      }
    }
  });

  it('onto a copy scaled by 1.3 reproduces the local rotations and scales the hips path by 1.3', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), (seed) => {
        const s = makeHumanoid({ twistRest: 0.3 });
        const big = makeHumanoid({ twistRest: 0.3, scale: 1.3 });
        const clip = randomClip(s, 10, seed);
        const { clip: out } = retargetClip(clip, big);
        for (let k = 0; k < clip.rotations.length; k += 4) {
          if (angleBetween(clip.rotations.subarray(k, k + 4), out.rotations.subarray(k, k + 4)) > 1e-6)
            return false;
        }
        const h = s.humanoid[H.Hips];
        for (let f = 0; f < clip.frameCount; f++) {
          for (let c = 0; c < 3; c++) {
            const o = 3 * (f * s.boneCount + h) + c;
            if (Math.abs(out.translations[o] - 1.3 * clip.translations[o]) > 1e-5) return false;
          }
        }
        return true;
      }),
      { numRuns: 20 },
    );
  });

  it('room mode keeps the source hips position and adds the leg-length difference', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ legs: 1.25 });
    const clip = randomClip(src, 5, 3);
    const { clip: out, retargeter } = retargetClip(clip, tgt, { hipsMode: 'room' });
    const lift = retargeter.info!.targetHipsHeight - retargeter.info!.sourceHipsHeight;
    expect(lift).toBeCloseTo(0.87 * 0.25 + 0.25 * 0, 6); // legs: 0.45 + 0.42 scaled by 1.25; the hips offset 1.0*1.25 is a position, not a length
    const h = src.humanoid[H.Hips];
    for (let f = 0; f < 5; f++) {
      const o = 3 * (f * src.boneCount + h);
      expect(out.translations[o]).toBeCloseTo(clip.translations[o], 5);
      expect(out.translations[o + 1]).toBeCloseTo(clip.translations[o + 1] + lift, 5);
    }
  });
});

describe('per-frame cost', () => {
  it('retargetPose allocates nothing (chain fitting, virtual hierarchy, head offset and scale included)', () => {
    const r = runAllocProbe(`
      import { Retargeter } from ${JSON.stringify(path.resolve(__dirname, '../src/retarget'))};
      import { makeHumanoid } from ${JSON.stringify(path.resolve(__dirname, 'helpers/humanoid'))};
      const src = makeHumanoid({ spineBones: 5 });
      const tgt = makeHumanoid({ spineBones: 3, pose: 'A', twistRest: 0.4 });
      const r = new Retargeter(src, tgt, { headRotationOffset: [10, 20, 0], avatarScale: 1.1, headScale: 1.2, sourceContactHeight: 0.05 });
      r.calibrate();
      const sr = new Float32Array(src.restRotations), sp = new Float32Array(src.restTranslations);
      const tr = new Float64Array(4 * tgt.boneCount), tp = new Float64Array(3 * tgt.boneCount);
      result.retargetPose = bytesPerCall(() => r.retargetPose(sr, sp, tr, tp), 5000);
    `);
    expect(r.retargetPose).toBeLessThan(1);
  });
});

describe('chain distribution and missing bones', () => {
  it('drives 3 target spine bones from 5 source bones by the last bone of each group', () => {
    const src = makeHumanoid({ spineBones: 5 });
    const tgt = makeHumanoid({ spineBones: 3 });
    const d = computeDrivers(src, tgt);
    const name = (t: string) => src.names[d[tgt.names.indexOf(t)]];
    expect([name('Spine'), name('Spine1'), name('Spine2')]).toEqual(['Spine1', 'Spine3', 'Spine4']);
    const d2 = computeDrivers(makeHumanoid({ spineBones: 2 }), tgt);
    expect([
      d2[tgt.names.indexOf('Spine')],
      d2[tgt.names.indexOf('Spine1')],
      d2[tgt.names.indexOf('Spine2')],
    ]).toEqual([1, 2, 2]);
  });

  it('keeps the end orientation when the target lacks shoulders, neck and upper chest', () => {
    const src = makeHumanoid({ spineBones: 4 });
    const tgt = makeHumanoid({ spineBones: 2, shoulders: false, neck: false, pose: 'A' });
    const clip = randomClip(src, 30, 11, 0.8);
    const { retargeter } = retargetClip(clip, tgt);
    const sr = new Float64Array(4 * src.boneCount);
    const sp = new Float64Array(3 * src.boneCount);
    const tr = new Float64Array(4 * tgt.boneCount);
    const tp = new Float64Array(3 * tgt.boneCount);
    for (let f = 0; f < 30; f++) {
      sr.set(clip.rotations.subarray(f * 4 * src.boneCount, (f + 1) * 4 * src.boneCount));
      sp.set(clip.translations.subarray(f * 3 * src.boneCount, (f + 1) * 3 * src.boneCount));
      retargeter.retargetPose(sr, sp, tr, tp);
      const sw = world(src, sr, sp);
      const tw = world(tgt, tr, tp);
      for (const [a, b] of [
        [H.LeftUpperArm, H.LeftLowerArm],
        [H.RightLowerArm, H.RightHand],
        [H.LeftUpperLeg, H.LeftLowerLeg],
      ]) {
        const e = vec3.angle(dir(src, sw, a, b) as unknown as vec3, dir(tgt, tw, a, b) as unknown as vec3);
        expect(e).toBeLessThan(1e-6);
      }
      // head world rotation relative to the reference is the source's (end orientation kept)
      const hs = src.humanoid[H.Head];
      const ht = tgt.humanoid[H.Head];
      const a = quat.multiply(
        quat64(),
        readQuat(quat64(), sw.r, hs),
        quat.invert(quat64(), readQuat(quat64(), retargeter.sourceReference!.world.rotations, hs)),
      );
      const b = quat.multiply(
        quat64(),
        readQuat(quat64(), tw.r, ht),
        quat.invert(quat64(), readQuat(quat64(), retargeter.targetReference!.world.rotations, ht)),
      );
      expect(angleBetween(a, b)).toBeLessThan(1e-6);
    }
  });
});

describe('avatar and head scale', () => {
  it('change no local rotation: the pose keeps its shape whatever the scale (chain fitting included)', () => {
    // a 5-bone source spine onto a 3-bone target: the chain is fitted to the source's shape
    const src = makeHumanoid({ spineBones: 5 });
    const tgt = makeHumanoid({ spineBones: 3, pose: 'A' });
    const clip = randomClip(src, 12, 5, 0.8);
    const n = src.boneCount;
    const sr = new Float64Array(4 * n);
    const sp = new Float64Array(3 * n);
    const run = (avatarScale: number, headScale: number) => {
      const r = new Retargeter(src, tgt, { avatarScale, headScale });
      r.calibrate();
      const out: Float64Array[] = [];
      for (let f = 0; f < clip.frameCount; f++) {
        readFrame(clip, f, sr, sp);
        const rot = new Float64Array(4 * tgt.boneCount);
        r.retargetPose(sr, sp, rot, new Float64Array(3 * tgt.boneCount));
        out.push(rot);
      }
      return out;
    };
    const base = run(1, 1);
    for (const [a, h] of [
      [1.5, 1],
      [0.6, 1],
      [1, 2],
      [1.3, 0.5],
    ]) {
      const scaled = run(a, h);
      let worst = 0;
      for (let f = 0; f < base.length; f++)
        for (let b = 0; b < tgt.boneCount; b++) {
          const q1 = base[f].subarray(4 * b, 4 * b + 4);
          const q2 = scaled[f].subarray(4 * b, 4 * b + 4);
          worst = Math.max(worst, angleBetween(q1, q2));
        }
      expect(worst).toBeLessThan(1e-9);
    }
  });
});

describe('shoulder twist', () => {
  it("'drop' removes the clavicle's twist about its axis and changes no joint position and no other bone's world rotation", () => {
    const src = makeHumanoid({ twistRest: 0.3 });
    const tgt = makeHumanoid({ pose: 'A' });
    const clip = randomClip(src, 20, 9, 0.8);
    const n = src.boneCount;
    const T = tgt.boneCount;
    const sr = new Float64Array(4 * n);
    const sp = new Float64Array(3 * n);
    const run = (shoulderTwist: 'keep' | 'drop') => {
      const r = new Retargeter(src, tgt, { shoulderTwist });
      r.calibrate();
      return { r, frames: [] as { rot: Float64Array; w: ReturnType<typeof world> }[] };
    };
    const keep = run('keep');
    const drop = run('drop');
    const ref = drop.r.targetReference!;
    let worstPos = 0;
    let worstOther = 0;
    let worstTwist = 0;
    let keptTwist = 0;
    for (let f = 0; f < clip.frameCount; f++) {
      readFrame(clip, f, sr, sp);
      const outs = [keep, drop].map(({ r }) => {
        const rot = new Float64Array(4 * T);
        const pos = new Float64Array(3 * T);
        r.retargetPose(sr, sp, rot, pos);
        return { rot, w: world(tgt, rot, pos) };
      });
      for (let i = 0; i < 3 * T; i++)
        worstPos = Math.max(worstPos, Math.abs(outs[0].w.p[i] - outs[1].w.p[i]));
      for (let b = 0; b < T; b++) {
        const isShoulder = b === tgt.humanoid[H.LeftShoulder] || b === tgt.humanoid[H.RightShoulder];
        if (!isShoulder)
          worstOther = Math.max(
            worstOther,
            angleBetween(outs[0].w.r.subarray(4 * b, 4 * b + 4), outs[1].w.r.subarray(4 * b, 4 * b + 4)),
          );
      }
      for (const [sh, ua] of [
        [H.LeftShoulder, H.LeftUpperArm],
        [H.RightShoulder, H.RightUpperArm],
      ]) {
        const b = tgt.humanoid[sh];
        const axis = vec3.normalize(
          vec3.create(),
          tgt.restTranslations.subarray(3 * tgt.humanoid[ua], 3 * tgt.humanoid[ua] + 3) as unknown as vec3,
        );
        const R = quat.invert(quat64(), ref.localRotations.subarray(4 * b, 4 * b + 4) as unknown as quat);
        for (const [k, out] of outs.entries()) {
          const d = quat.multiply(quat64(), R, out.rot.subarray(4 * b, 4 * b + 4) as unknown as quat);
          const twist = Math.abs(
            2 * Math.atan2(d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2], Math.abs(d[3])),
          );
          if (k === 1) worstTwist = Math.max(worstTwist, twist);
          else keptTwist = Math.max(keptTwist, twist);
        }
      }
    }
    expect(worstPos).toBeLessThan(1e-9);
    expect(worstOther).toBeLessThan(1e-9);
    expect(worstTwist).toBeLessThan(1e-6);
    expect(keptTwist).toBeGreaterThan(0.1); // the random poses do twist the clavicles
    expect(() => new Retargeter(src, tgt, { shoulderTwist: 'sometimes' as 'keep' })).toThrow(/shoulderTwist/);
  });
});

describe('root motion', () => {
  it('does not depend on how the target root object is rotated or where it stands', () => {
    const src = makeHumanoid();
    const plain = makeHumanoid({ legs: 1.1 });
    // the same avatar under an 'Armature' root turned 90 degrees about Y and moved 2 m sideways
    const R = quat.setAxisAngle(quat64(), [0, 1, 0], Math.PI / 2);
    const Ri = quat.invert(quat64(), R);
    const n = plain.boneCount;
    const hipsRest = vec3.transformQuat(
      vec3.create(),
      plain.restTranslations.subarray(0, 3) as unknown as vec3,
      Ri,
    );
    hipsRest[0] -= 2; // in the root's frame: compensate the root translation below
    const rootT = vec3.transformQuat(new Float64Array(3), [2, 0, 0], R);
    const hipsLocalRot = quat.multiply(quat64(), Ri, plain.restRotations.subarray(0, 4) as unknown as quat);
    const rooted = {
      names: ['Armature', ...plain.names],
      parents: [-1, ...Array.from(plain.parents, (p) => p + 1)],
      restTranslations: [
        rootT[0],
        rootT[1],
        rootT[2],
        ...hipsRest,
        ...Array.from(plain.restTranslations.subarray(3)),
      ],
      restRotations: [...R, ...hipsLocalRot, ...Array.from(plain.restRotations.subarray(4))],
      humanoid: Array.from(plain.humanoid, (b) => (b >= 0 ? b + 1 : -1)),
    };
    const rootedSkel = createSkeleton(rooted);
    const clip = randomClip(src, 8, 21);
    for (const hipsMode of ['scaled', 'room'] as const) {
      const a = retargetClip(clip, plain, { hipsMode });
      const b = retargetClip(clip, rootedSkel, { hipsMode });
      const sr = new Float64Array(4 * src.boneCount);
      const sp = new Float64Array(3 * src.boneCount);
      const tr = new Float64Array(4 * (n + 1));
      const tp = new Float64Array(3 * (n + 1));
      for (let f = 0; f < 8; f++) {
        sr.set(clip.rotations.subarray(f * 4 * src.boneCount, (f + 1) * 4 * src.boneCount));
        sp.set(clip.translations.subarray(f * 3 * src.boneCount, (f + 1) * 3 * src.boneCount));
        a.retargeter.retargetPose(sr, sp, tr, tp);
        const pa = a.retargeter.lastTargetWorldPositions.slice(0, 3);
        const ra = a.retargeter.lastTargetWorldRotations.slice(0, 4);
        b.retargeter.retargetPose(sr, sp, tr, tp);
        const pb = b.retargeter.lastTargetWorldPositions.slice(3, 6);
        const rb = b.retargeter.lastTargetWorldRotations.slice(4, 8);
        for (let k = 0; k < 3; k++) expect(Math.abs(pa[k] - pb[k])).toBeLessThan(1e-9);
        expect(angleBetween(ra, rb)).toBeLessThan(1e-9);
      }
    }
  });
});
