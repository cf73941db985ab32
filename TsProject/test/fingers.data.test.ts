/**
 * Finger muscle model on real data (../shared/data): Xbot (Mixamo rig, 4-joint fingers) for round
 * trips, presets and measuring its own clips; MuscleData copy Xbot -> the VRM 1.0 sample; the Rokoko
 * take (full fingers) measured through a frame-calibrated reference with its rest fingers.
 */
import * as fs from 'node:fs';
import fc from 'fast-check';
import {
  forwardKinematics,
  HumanBodyBones as H,
  type Skeleton,
  vectorAngle,
  withHumanoid,
} from '../src/core';
import { type Avatar, readAvatar, readGltfClip } from '../src/io';
import { parseBvh } from '../src/io/bvh';
import { autoMapHumanoid } from '../src/io/humanoidMap';
import { canonicalPose, type ReferencePose } from '../src/retarget';
import {
  FINGER_MUSCLE_COUNT,
  FINGER_NAMES,
  type FingerHand,
  type FingerName,
  FingerRig,
  fingerHumanBone,
  muscleField,
  withRestFingers,
} from '../src/rig/fingers';
import { dataPath, describeWithData } from './helpers/data';

async function avatar(file: string): Promise<Avatar> {
  return readAvatar(new Uint8Array(fs.readFileSync(dataPath(file))), { fileName: file });
}

function fk(sk: Skeleton, local: ArrayLike<number>, trans: ArrayLike<number> = sk.restTranslations) {
  const r = new Float64Array(4 * sk.boneCount);
  const p = new Float64Array(3 * sk.boneCount);
  forwardKinematics(sk, local as Float64Array, trans as Float64Array, r, p);
  return { r, p };
}

const sub = (g: { p: Float64Array }, a: number, b: number) =>
  [0, 1, 2].map((k) => g.p[3 * a + k] - g.p[3 * b + k]);
const dot = (a: number[], b: number[]) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: number[]) => Math.sqrt(dot(a, a));

/** The joint at the end of a finger: the distal bone's first child (end joint), else the distal bone. */
function tipOf(sk: Skeleton, hand: FingerHand, finger: FingerName): number {
  const d = sk.humanoid[fingerHumanBone(hand, finger, 2)];
  const c = Array.from(sk.parents).indexOf(d);
  return c >= 0 ? c : d;
}

const FOUR = ['index', 'middle', 'ring', 'little'] as const;

describeWithData('finger muscles on Xbot (threejs/Xbot.glb)', () => {
  let sk: Skeleton;
  let ref: ReferencePose;
  let rig: FingerRig;
  let av: Avatar;
  beforeAll(async () => {
    av = await avatar('threejs/Xbot.glb');
    sk = av.skeleton;
    ref = canonicalPose(sk);
    rig = new FingerRig(sk, ref);
  });

  it('maps 15 finger bones per hand and finds palm-down hands in the canonical T-pose', () => {
    for (const hand of ['left', 'right'] as const) {
      const f = rig.handFrame(hand);
      expect(f.boneCount).toBe(15);
      expect(f.radialFrom).toBe('fingers');
      expect(vectorAngle(f.palmNormal, [0, -1, 0]) / (Math.PI / 180)).toBeLessThan(15);
      expect(f.radial[2]).toBeGreaterThan(0.9); // thumbs forward
    }
  });

  it('apply -> measure round trip within 1e-6 on random muscle sets', () => {
    const out = new Float64Array(FINGER_MUSCLE_COUNT);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 40, maxLength: 40 }),
        (values) => {
          rig.setHandMuscles('left', values.slice(0, 20));
          rig.setHandMuscles('right', values.slice(20));
          const local = Float64Array.from(ref.localRotations);
          rig.apply(local);
          rig.measure(local, out);
          for (let m = 0; m < FINGER_MUSCLE_COUNT; m++)
            expect(Math.abs(out[m] - values[m])).toBeLessThan(1e-6);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('rock folds the four fingers under the palm; paper keeps them as long as in the T-pose', () => {
    const report: string[] = [];
    for (const name of ['rock', 'paper'] as const) {
      rig.applyPreset('left', name);
      rig.applyPreset('right', name);
      const local = Float64Array.from(ref.localRotations);
      rig.apply(local);
      const g = fk(sk, local);
      const g0 = fk(sk, ref.localRotations);
      for (const hand of ['left', 'right'] as const) {
        const frame = rig.handFrame(hand);
        for (const f of FOUR) {
          const root = sk.humanoid[fingerHumanBone(hand, f, 0)];
          const tip = tipOf(sk, hand, f);
          const rel = sub(g, tip, root);
          const straight = len(sub(g0, tip, root));
          if (name === 'rock') {
            // 140 degrees of flexion: the tip ends below the palm, level with the knuckle or behind it
            expect(dot(rel, frame.palmNormal)).toBeGreaterThan(0.5 * straight);
            expect(dot(rel, frame.forward)).toBeLessThan(0.25 * straight);
            report.push(
              `${hand} ${f}: tip ${(100 * dot(rel, frame.palmNormal)).toFixed(1)} cm below the knuckle, ${(100 * dot(rel, frame.forward)).toFixed(1)} cm ahead (finger ${(100 * straight).toFixed(1)} cm)`,
            );
          } else {
            expect(Math.abs(len(rel) - straight)).toBeLessThan(1e-9 + 0.02 * straight);
          }
        }
        if (name === 'rock') {
          // the thumb comes to rest at the curled fingertips (opposition), not below the palm
          const thumbTip = tipOf(sk, hand, 'thumb');
          const near = Math.min(...FOUR.map((f) => len(sub(g, thumbTip, tipOf(sk, hand, f)))));
          expect(near).toBeLessThan(0.03);
          report.push(`${hand} thumb tip: ${(100 * near).toFixed(1)} cm from the nearest curled fingertip`);
        }
      }
    }
    console.log(`Xbot rock preset (default Unity ranges):\n${report.join('\n')}`);
  });

  it("measures Xbot's own clips: the most fist-like frame of 'run' reads larger curls than its most open frame", () => {
    const n = sk.boneCount;
    const lines: string[] = [];
    const out = new Float64Array(FINGER_MUSCLE_COUNT);
    for (const clipName of av.clipNames) {
      const clip = readGltfClip(av, clipName);
      const lo = new Float64Array(40).fill(Infinity);
      const hi = new Float64Array(40).fill(-Infinity);
      let fist = { d: Infinity, curl: 0 };
      let open = { d: -Infinity, curl: 0 };
      const local = new Float64Array(4 * n);
      const trans = new Float64Array(3 * n);
      for (let f = 0; f < clip.frameCount; f++) {
        local.set(clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
        trans.set(clip.translations.subarray(3 * n * f, 3 * n * (f + 1)));
        rig.measure(local, out);
        for (let m = 0; m < 40; m++) {
          expect(Number.isFinite(out[m])).toBe(true);
          lo[m] = Math.min(lo[m], out[m]);
          hi[m] = Math.max(hi[m], out[m]);
        }
        // fist-ness from geometry alone: mean fingertip-to-hand distance / straight length
        const g = fk(sk, local, trans);
        const g0 = fk(sk, ref.localRotations);
        let d = 0;
        let curl = 0;
        for (const hand of ['left', 'right'] as const) {
          const hb = sk.humanoid[hand === 'left' ? H.LeftHand : H.RightHand];
          for (const fi of FOUR) {
            const tip = tipOf(sk, hand, fi);
            d += len(sub(g, tip, hb)) / len(sub(g0, tip, hb)) / 8;
            const base = (hand === 'left' ? 0 : 20) + 4 * FINGER_NAMES.indexOf(fi);
            curl += (out[base] + out[base + 1] + out[base + 2]) / 24;
          }
        }
        if (d < fist.d) fist = { d, curl };
        if (d > open.d) open = { d, curl };
      }
      lines.push(
        `${clipName} (${clip.frameCount} frames): fist-like frame tip/hand ${fist.d.toFixed(2)} mean curl ${fist.curl.toFixed(2)}; open frame ${open.d.toFixed(2)} mean curl ${open.curl.toFixed(2)}; curl1 range ${Math.min(...[4, 8, 12, 16].map((m) => lo[m])).toFixed(2)}..${Math.max(...[4, 8, 12, 16].map((m) => hi[m])).toFixed(2)}`,
      );
      if (clipName === 'run') {
        expect(fist.d).toBeLessThan(open.d - 0.05);
        expect(fist.curl).toBeGreaterThan(open.curl + 0.2);
      }
    }
    console.log(`Xbot clips measured (default Unity ranges):\n${lines.join('\n')}`);
  });

  it("MuscleData copy: Xbot's 'run' onto the VRM 1.0 sample measures back the same muscles (1e-6), no NaN", async () => {
    const tgtAv = await avatar(
      'vrm-specification/VRMC_materials_mtoon_UV_Animation_Test/VRMC_materials_mtoon_UV_Animation_Test.vrm',
    );
    const tsk = tgtAv.skeleton;
    const tref = canonicalPose(tsk);
    const target = new FingerRig(tsk, tref, { mode: 'muscleData' });
    for (const hand of ['left', 'right'] as const) expect(target.handFrame(hand).boneCount).toBe(15);
    const clip = readGltfClip(av, 'run');
    const n = sk.boneCount;
    const src = new Float64Array(4 * n);
    const tgt = Float64Array.from(tref.localRotations);
    const want = new Float64Array(40);
    const got = new Float64Array(40);
    for (let f = 0; f < clip.frameCount; f++) {
      src.set(clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
      target.update(tgt, rig, src);
      expect(tgt.every(Number.isFinite)).toBe(true);
      rig.measure(src, want);
      target.measure(tgt, got);
      for (let m = 0; m < 40; m++) expect(Math.abs(got[m] - want[m])).toBeLessThan(1e-6);
    }
  });
});

describeWithData(
  'finger muscles measured from the Rokoko take (animated-drawings/rokoko/jesse_dance.bvh)',
  () => {
    it('reads the same hand pose on both sides (within [-1.2, 1.2]) but for the right distal phalanges, which the file turns back', () => {
      const file = 'animated-drawings/rokoko/jesse_dance.bvh';
      const parsed = parseBvh(fs.readFileSync(dataPath(file)), { fileName: 'jesse_dance.bvh' });
      const sk = withHumanoid(parsed.clip.skeleton, autoMapHumanoid(parsed.clip.skeleton).humanoid);
      const clip = parsed.clip;
      const n = sk.boneCount;
      // the retargeter's reference for this take: its rest lies along +X, so the first frame is straightened
      const f0 = clip.rotations.subarray(0, 4 * n);
      const t0 = clip.translations.subarray(0, 3 * n);
      const ref = canonicalPose(sk, { baseRotations: f0, baseTranslations: t0 });
      const rig = new FingerRig(sk, withRestFingers(sk, ref));
      for (const hand of ['left', 'right'] as const) expect(rig.handFrame(hand).boneCount).toBe(15);
      const lo = new Float64Array(40).fill(Infinity);
      const hi = new Float64Array(40).fill(-Infinity);
      const out = new Float64Array(40);
      const local = new Float64Array(4 * n);
      let flipped = 0;
      for (let f = 0; f < clip.frameCount; f++) {
        local.set(clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
        rig.measure(local, out);
        for (let m = 0; m < 40; m++) {
          lo[m] = Math.min(lo[m], out[m]);
          hi[m] = Math.max(hi[m], out[m]);
        }
        if (f % 100 === 0) {
          // independent geometry: a distal bone points along its local +X (its End Site offset); compare with
          // the intermediate -> distal direction
          const g = fk(sk, local, clip.translations.subarray(3 * n * f, 3 * n * (f + 1)));
          for (const hand of ['left', 'right'] as const) {
            for (const fi of FOUR) {
              const d = sk.humanoid[fingerHumanBone(hand, fi, 2)];
              const i = sk.humanoid[fingerHumanBone(hand, fi, 1)];
              const q = g.r.subarray(4 * d, 4 * d + 4);
              // world direction of local +X: first column of the rotation matrix
              const xAxis = [
                1 - 2 * (q[1] * q[1] + q[2] * q[2]),
                2 * (q[0] * q[1] + q[2] * q[3]),
                2 * (q[0] * q[2] - q[1] * q[3]),
              ];
              const back = vectorAngle(xAxis, sub(g, d, i)) > (150 * Math.PI) / 180;
              const slot = (hand === 'left' ? 0 : 20) + 4 * FINGER_NAMES.indexOf(fi) + 2;
              // a distal bone turned back reads a curl far past -1 (about -160 degrees / 45)
              expect(out[slot] < -3).toBe(back);
              if (back) flipped++;
            }
          }
        }
      }
      const lines: string[] = [];
      for (let m = 0; m < 40; m++) {
        expect(Number.isFinite(lo[m]) && Number.isFinite(hi[m])).toBe(true);
        lines.push(`${muscleField(m).padEnd(20)} ${lo[m].toFixed(3)} .. ${hi[m].toFixed(3)}`);
      }
      console.log(
        `Rokoko jesse_dance, finger muscles over ${clip.frameCount} frames (rest-finger reference):\n${lines.join('\n')}`,
      );
      expect(flipped).toBeGreaterThan(0);
      for (let m = 0; m < 20; m++) {
        const isRightDistalFlip = m % 4 === 2 && m >= 4; // right index..little curl3
        // left hand inside [-1.2, 1.2]; right hand too except the flipped distal bones
        expect(Math.abs(lo[m])).toBeLessThanOrEqual(1.2);
        expect(Math.abs(hi[m])).toBeLessThanOrEqual(1.2);
        if (!isRightDistalFlip) {
          expect(Math.abs(lo[m + 20])).toBeLessThanOrEqual(1.2);
          expect(Math.abs(hi[m + 20])).toBeLessThanOrEqual(1.2);
          // mirror: the same hand pose reads the same on both sides
          expect(Math.abs(hi[m + 20] - hi[m])).toBeLessThan(0.01);
        }
      }
    });
  },
);
