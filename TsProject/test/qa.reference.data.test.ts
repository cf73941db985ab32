/**
 * evaluateClip's fast per-frame pass (src/qa/evaluateFrames.ts: forward kinematics over the bones the
 * measures read, positions only where read, top-level loops) against a straightforward reference written
 * from the module docs of src/qa/evaluate.ts: core `forwardKinematics` of EVERY bone of both skeletons
 * per frame, the golden world rotation carried onto the observed bone with core `qmulByConj`/`qmul`,
 * relative rotations with `qmulConj`, then `compareRotations`. Same formulas in the same order, so every
 * series must be equal bit for bit, on a real take retargeted onto two avatars with faults injected,
 * directly and against the mirrored golden (profile flag). Also: the report does not change from one call
 * to the next (V8 runs the first call interpreted, later ones optimised), and the frame score is the sum
 * of the bone severities.
 */
import * as path from 'node:path';
import { quat } from 'gl-matrix';
import {
  type Clip,
  forwardKinematics,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  humanBoneIndex,
  mirrorHumanBone,
  nearestMappedAncestor,
  qmul,
  qmulByConj,
  qmulConj,
  quat64,
  restWorld,
  sliceClip,
} from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { compareRotations, defaultRigProfile, emptyRigProfile, evaluateClip } from '../src/qa';
import { retargetClip } from '../src/retarget';
import { AVATARS, dataPath, describeWithData } from './helpers/data';

const R2D = 180 / Math.PI;

/** rotDeg / twistDeg / swingDeg per evaluated bone name, by the reference pipeline (same rate only). */
function reference(golden: Clip, observed: Clip, mirror: boolean): Map<string, Float32Array[]> {
  const gS = golden.skeleton;
  const oS = observed.skeleton;
  const axes = defaultRigProfile(oS).twistAxes;
  const mapped = (h: number) =>
    oS.humanoid[h] >= 0 && gS.humanoid[h] >= 0 && (!mirror || gS.humanoid[mirrorHumanBone(h)] >= 0);
  const hs: number[] = [];
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) if (mapped(h)) hs.push(h);
  const gRest = restWorld(gS).rotations;
  const oRest = restWorld(oS).rotations;
  const N = observed.frameCount;
  const gW = new Float64Array(4 * gS.boneCount);
  const gP = new Float64Array(3 * gS.boneCount);
  const oW = new Float64Array(4 * oS.boneCount);
  const oP = new Float64Array(3 * oS.boneCount);
  const carried = new Float64Array(4 * HUMAN_BONE_COUNT);
  const d = new Float64Array(4);
  const qRef = new Float64Array(4);
  const qObs = new Float64Array(4);
  const out = new Float64Array(3);
  const series = new Map<string, Float32Array[]>();
  for (const h of hs)
    series.set(
      HUMAN_BONE_NAMES[h],
      [0, 1, 2].map(() => new Float32Array(N)),
    );
  const ng = gS.boneCount;
  const no = oS.boneCount;
  for (let f = 0; f < N; f++) {
    const gf = Math.min(f, golden.frameCount - 1);
    forwardKinematics(
      gS,
      golden.rotations.subarray(4 * ng * gf, 4 * ng * (gf + 1)),
      golden.translations.subarray(3 * ng * gf, 3 * ng * (gf + 1)),
      gW,
      gP,
    );
    forwardKinematics(
      oS,
      observed.rotations.subarray(4 * no * f, 4 * no * (f + 1)),
      observed.translations.subarray(3 * no * f, 3 * no * (f + 1)),
      oW,
      oP,
    );
    for (const h of hs) {
      const gb = gS.humanoid[mirror ? mirrorHumanBone(h) : h];
      qmulByConj(d, 0, gW, 4 * gb, gRest, 4 * gb);
      if (mirror) {
        d[1] = -d[1];
        d[2] = -d[2];
      }
      qmul(carried, 4 * h, d, 0, oRest, 4 * oS.humanoid[h]);
    }
    for (const h of hs) {
      const a = nearestMappedAncestor(h, mapped);
      const ob = oS.humanoid[h];
      if (a < 0) {
        qRef.set(carried.subarray(4 * h, 4 * h + 4));
        qObs.set(oW.subarray(4 * ob, 4 * ob + 4));
      } else {
        qmulConj(qRef, 0, carried, 4 * a, carried, 4 * h);
        qmulConj(qObs, 0, oW, 4 * oS.humanoid[a], oW, 4 * ob);
      }
      const axis = axes[HUMAN_BONE_NAMES[h]];
      compareRotations(qRef, qObs, axis ? Float64Array.from(axis) : null, out);
      const s = series.get(HUMAN_BONE_NAMES[h])!;
      s[0][f] = out[0] * R2D;
      s[1][f] = out[1] * R2D;
      s[2][f] = out[2] * R2D;
    }
  }
  return series;
}

function inject(c: Clip, bone: string, a: number, b: number, axis: number[], deg: number): void {
  const n = c.skeleton.boneCount;
  const bi = c.skeleton.humanoid[humanBoneIndex(bone)];
  const q = quat.setAxisAngle(quat64(), axis, (deg * Math.PI) / 180);
  const t = quat64();
  for (let f = a; f <= b; f++) {
    const o = 4 * (f * n + bi);
    quat.multiply(t, c.rotations.subarray(o, o + 4) as unknown as quat, q);
    c.rotations.set(t, o);
  }
}

describeWithData('evaluateClip equals a straightforward reference, bit for bit', () => {
  const take = 'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh';
  for (const avatarFile of [AVATARS[0], AVATARS[4]]) {
    it(`${path.basename(take)} -> ${path.basename(avatarFile)}: every series, twice, direct and mirrored`, async () => {
      const src = await loadSource(dataPath(take));
      const clip = sliceClip(src.clip, 0, 300);
      const avatar = await loadAvatar(dataPath(avatarFile));
      const golden = retargetClip(clip, avatar.skeleton, { groundContact: true }).clip;
      const observed: Clip = { ...golden, rotations: golden.rotations.slice() };
      const axis = defaultRigProfile(avatar.skeleton).twistAxes.RightLowerArm;
      inject(observed, 'RightLowerArm', 60, 160, axis, 35);
      inject(observed, 'LeftUpperArm', 0, 299, [0, 0, 1], 12);
      inject(observed, 'Spine', 200, 230, [1, 0, 0], 40);
      const pm = emptyRigProfile();
      pm.flags.mirrored = true;
      for (const mirror of [false, true]) {
        const ref = reference(golden, observed, mirror);
        const opts = mirror ? { profile: pm } : {};
        const first = evaluateClip(golden, observed, opts);
        expect(first.series.map((s) => s.bone)).toEqual([...ref.keys()]);
        for (const s of first.series) {
          const [rot, twist, swing] = ref.get(s.bone)!;
          // toEqual on Float32Arrays compares every element exactly
          expect([s.bone, s.rotDeg]).toEqual([s.bone, rot]);
          expect([s.bone, s.twistDeg]).toEqual([s.bone, twist]);
          expect([s.bone, s.swingDeg]).toEqual([s.bone, swing]);
        }
        // the injected faults are where they were put (a reference that is wrong the same way would not)
        if (!mirror) {
          const fore = first.series.find((s) => s.bone === 'RightLowerArm')!;
          expect(Math.abs(fore.twistDeg[100])).toBeCloseTo(35, 3);
          expect(fore.rotDeg[30]).toBeLessThan(1e-3);
          const t = first.runs.find((r) => r.bone === 'RightLowerArm' && r.measure === 'twist');
          expect([t?.startFrame, t?.endFrame, t?.causeCode]).toEqual([60, 160, 'forearm-roll']);
        }
        // the frame score is the sum of the bone severities (float32 sums in another order: close)
        for (const f of [0, 100, 215]) {
          const sum = first.series.reduce((acc, s) => acc + s.severity[f], 0);
          expect(first.score[f]).toBeCloseTo(sum, 4);
        }
        // later calls (optimised code) give the same report as the first, every field
        for (let i = 0; i < 3; i++) expect(evaluateClip(golden, observed, opts)).toEqual(first);
      }
      // a position run is found at the hand a spine fault displaces, with its peak frame inside the fault
      const r = evaluateClip(golden, observed);
      const pos = r.runs.filter((x) => x.measure === 'position' && x.startFrame >= 190);
      expect(pos.length).toBeGreaterThan(0);
      for (const x of pos) expect(x.peakFrame >= 200 && x.peakFrame <= 230).toBe(true);
      expect(r.series.find((s) => s.bone === 'Spine')!.rotDeg[215]).toBeCloseTo(40, 3);
    });
  }
});
