/**
 * Retarget QA on the real takes (../shared/data): each take is retargeted onto two avatars with the
 * project's retargeter (the golden clips); copies get known distortions injected, and evaluateClip must
 * find each on the right bone, in the right frames and with the right cause, while the clean retargets
 * (the golden re-sampled at another rate, a re-run of the retargeter) and a 2-frame spike give no Error.
 * Prints the detections, the false-positive count and the throughput (bone-frames per second on the
 * longest take). The first SECONDS of each take here, whole takes with KIND_FULL=1.
 */
import * as path from 'node:path';
import { quat } from 'gl-matrix';
import {
  type Clip,
  createClip,
  forwardKinematics,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  mirrorHumanBone,
  quat64,
  restWorld,
  type Skeleton,
  sampleClip,
  sliceClip,
  worldToLocalRotations,
} from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { defaultRigProfile, emptyRigProfile, evaluateClip, type QaClipReport, type QaRun } from '../src/qa';
import { retargetClip } from '../src/retarget';
import { AVATARS, BVH_TAKES, dataPath, describeWithData, FULL } from './helpers/data';

const SECONDS = 8;
const AVATAR_PICK = [AVATARS[0], AVATARS[4]]; // Xbot (Mixamo, T-pose), cryptovoxels (VRM 0.x, no UpperChest)
const D2R = Math.PI / 180;

function mulq(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  return quat.multiply(quat64(), a as quat, b as quat) as Float64Array;
}
function axisAngle(axis: ArrayLike<number>, rad: number): Float64Array {
  const l = Math.hypot(axis[0], axis[1], axis[2]);
  return quat.setAxisAngle(quat64(), [axis[0] / l, axis[1] / l, axis[2] / l], rad) as Float64Array;
}
function copyClip(c: Clip, name: string): Clip {
  return { ...c, name, rotations: c.rotations.slice(), translations: c.translations.slice() };
}
function localOf(c: Clip, f: number, b: number): Float32Array {
  const o = 4 * (f * c.skeleton.boneCount + b);
  return c.rotations.subarray(o, o + 4);
}
/** Right-multiply bone h's local rotation by q(f) over frames [a, b]. */
function injectLocal(c: Clip, h: number, a: number, b: number, q: (f: number) => ArrayLike<number>): void {
  const bi = c.skeleton.humanoid[h];
  for (let f = a; f <= b; f++) localOf(c, f, bi).set(mulq(localOf(c, f, bi), q(f)));
}
/** A unit vector perpendicular to v. */
function perpendicular(v: ArrayLike<number>): number[] {
  const c = Math.abs(v[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
  const x = [v[1] * c[2] - v[2] * c[1], v[2] * c[0] - v[0] * c[2], v[0] * c[1] - v[1] * c[0]];
  const l = Math.hypot(x[0], x[1], x[2]);
  return x.map((e) => e / l);
}

/**
 * The golden mirrored across the body's X = 0 plane (left/right swapped): humanoid world rotations
 * W'(h) = M(W(m) inverse(Rest(m))) Rest(h) with m the mirror bone and M(x, y, z, w) = (x, -y, -z, w);
 * other bones keep their local rotations; the hips path has x negated.
 */
function mirrorClip(c: Clip): Clip {
  const sk = c.skeleton;
  const n = sk.boneCount;
  const rest = restWorld(sk);
  const human = new Int32Array(n).fill(-1);
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) if (sk.humanoid[h] >= 0) human[sk.humanoid[h]] = h;
  const out = copyClip(c, `${c.name} mirrored`);
  const L = new Float64Array(4 * n);
  const T = new Float64Array(3 * n);
  const W = new Float64Array(4 * n);
  const P = new Float64Array(3 * n);
  const W2 = new Float64Array(4 * n);
  const L2 = new Float64Array(4 * n);
  const hipsB = sk.humanoid[H.Hips];
  for (let f = 0; f < c.frameCount; f++) {
    L.set(c.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
    T.set(c.translations.subarray(3 * n * f, 3 * n * (f + 1)));
    forwardKinematics(sk, L, T, W, P);
    for (let b = 0; b < n; b++) {
      const h = human[b];
      const mb = h >= 0 ? sk.humanoid[mirrorHumanBone(h)] : -1;
      if (mb >= 0) {
        const inv = quat.invert(quat64(), rest.rotations.subarray(4 * mb, 4 * mb + 4) as unknown as quat);
        const D = mulq(W.subarray(4 * mb, 4 * mb + 4), inv);
        D[1] = -D[1];
        D[2] = -D[2];
        W2.set(mulq(D, rest.rotations.subarray(4 * b, 4 * b + 4)), 4 * b);
      } else if (sk.parents[b] < 0) {
        W2.set(L.subarray(4 * b, 4 * b + 4), 4 * b);
      } else {
        const p = sk.parents[b];
        W2.set(mulq(W2.subarray(4 * p, 4 * p + 4), L.subarray(4 * b, 4 * b + 4)), 4 * b);
      }
    }
    worldToLocalRotations(sk, W2, L2);
    out.rotations.set(L2, 4 * n * f);
    // hips path: world x negated, expressed in the (unchanged) parent frame
    const p = sk.parents[hipsB];
    const d = [-P[3 * hipsB], P[3 * hipsB + 1], P[3 * hipsB + 2]];
    if (p >= 0) {
      for (let k = 0; k < 3; k++) d[k] -= P[3 * p + k];
      const inv = quat.invert(quat64(), W.subarray(4 * p, 4 * p + 4) as unknown as quat);
      const v = new Float64Array(3);
      const ql = inv;
      // rotate d by inv
      const [qx, qy, qz, qw] = ql;
      const [x, y, z] = d;
      const ux = qy * z - qz * y;
      const uy = qz * x - qx * z;
      const uz = qx * y - qy * x;
      v[0] = x + 2 * (qw * ux + qy * uz - qz * uy);
      v[1] = y + 2 * (qw * uy + qz * ux - qx * uz);
      v[2] = z + 2 * (qw * uz + qx * uy - qy * ux);
      out.translations.set(v, 3 * (n * f + hipsB));
    } else {
      out.translations.set(d, 3 * (n * f + hipsB));
    }
  }
  return out;
}

/** Frames shared by [a0, b0] and [a1, b1] over the frames of [a0, b0]. */
function overlap(run: QaRun, a: number, b: number): number {
  const lo = Math.max(run.startFrame, a);
  const hi = Math.min(run.endFrame, b);
  return hi < lo ? 0 : (hi - lo + 1) / (b - a + 1);
}

const rows: string[] = [];
let falsePositives = 0;
let cleanChecks = 0;
const detections: Record<string, { found: number; total: number }> = {};
function tally(kind: string, ok: boolean): void {
  detections[kind] ??= { found: 0, total: 0 };
  detections[kind].total++;
  if (ok) detections[kind].found++;
}
function errorRuns(r: QaClipReport): string {
  return r.runs
    .filter((x) => x.level === 'Error')
    .map(
      (x) => `${x.bone}/${x.measure} ${x.startFrame}-${x.endFrame} peak ${x.peak.toFixed(2)} ${x.causeCode}`,
    )
    .join('; ');
}

describeWithData('retarget QA on real takes with injected faults', () => {
  afterAll(() => {
    const det = Object.entries(detections)
      .map(([k, v]) => `${k} ${v.found}/${v.total}`)
      .join(', ');
    console.log(
      `retarget QA${FULL ? ' (full takes)' : ` (first ${SECONDS} s)`}:\n${rows.join('\n')}\ndetections: ${det}\nfalse positives (Error on a clean retarget or a 2-frame spike): ${falsePositives} of ${cleanChecks}`,
    );
  });

  for (const take of BVH_TAKES) {
    for (const avatarFile of AVATAR_PICK) {
      it(`${path.basename(take)} -> ${path.basename(avatarFile)}`, async () => {
        const src = await loadSource(dataPath(take));
        const clip = FULL ? src.clip : sliceClip(src.clip, 0, Math.round(SECONDS / src.clip.frameTime));
        const avatar = await loadAvatar(dataPath(avatarFile));
        const sk: Skeleton = avatar.skeleton;
        const golden = retargetClip(clip, sk, { groundContact: true }).clip;
        const N = golden.frameCount;
        const tag = `${path.basename(take)} -> ${path.basename(avatarFile)} (${N} frames)`;
        const profile = defaultRigProfile(sk);
        const notes: string[] = [];

        // Clean: a re-run of the retargeter, and the golden re-sampled at 2/3 of its rate.
        const rerun = retargetClip(clip, sk, { groundContact: true }).clip;
        const rr = evaluateClip(golden, rerun, { name: 'rerun' });
        const n = sk.boneCount;
        const ft = golden.frameTime * 1.5;
        const M = Math.floor(((N - 1) * golden.frameTime) / ft) + 1;
        const resampled = createClip(sk, M, ft, 'resampled');
        const rot = new Float64Array(4 * n);
        const pos = new Float64Array(3 * n);
        for (let f = 0; f < M; f++) {
          sampleClip(golden, f * ft, rot, pos);
          resampled.rotations.set(rot, 4 * n * f);
          resampled.translations.set(pos, 3 * n * f);
        }
        const rs = evaluateClip(golden, resampled, { name: 'resampled' });
        for (const r of [rr, rs]) {
          cleanChecks++;
          if (r.result === 'Error') falsePositives++;
          expect([r.name, errorRuns(r)]).toEqual([r.name, '']);
          expect(r.result).not.toBe('Error');
        }
        notes.push(
          `clean: rerun ${rr.result} (max S ${rr.maxScore.toFixed(3)}), resampled ${rs.result} (max S ${rs.maxScore.toFixed(3)})`,
        );

        // (1) extra twist on RightLowerArm over the middle third
        const axis = profile.twistAxes.RightLowerArm;
        const a1 = Math.floor(N / 3);
        const b1 = Math.floor((2 * N) / 3);
        const o1 = copyClip(golden, 'forearm twist');
        injectLocal(o1, H.RightLowerArm, a1, b1, () => axisAngle(axis, 40 * D2R));
        const r1 = evaluateClip(golden, o1);
        const t1 = r1.runs.find((x) => x.bone === 'RightLowerArm' && x.measure === 'twist');
        const ok1 =
          !!t1 && overlap(t1, a1, b1) > 0.95 && t1.causeCode === 'forearm-roll' && t1.level === 'Error';
        tally('forearm twist', ok1);
        expect([tag, t1?.startFrame, t1?.endFrame, t1?.causeCode]).toEqual([tag, a1, b1, 'forearm-roll']);
        expect(r1.result).toBe('Error');
        notes.push(`forearm twist ${a1}-${b1}: ${t1?.message}`);

        // (2) missing shoulder: RightShoulder held at rest, its rotation pushed into RightUpperArm
        const bs = sk.humanoid[H.RightShoulder];
        if (bs >= 0) {
          const bu = sk.humanoid[H.RightUpperArm];
          const o2 = copyClip(golden, 'missing shoulder');
          const restS = sk.restRotations.subarray(4 * bs, 4 * bs + 4);
          const invRest = quat.invert(quat64(), restS as unknown as quat);
          const shoulderDev = new Float64Array(N); // how far the golden shoulder is from rest
          for (let f = 0; f < N; f++) {
            const S = localOf(o2, f, bs);
            shoulderDev[f] =
              (2 *
                Math.acos(Math.min(1, Math.abs(quat.dot(S as unknown as quat, restS as unknown as quat))))) /
              D2R;
            localOf(o2, f, bu).set(mulq(mulq(invRest, S), localOf(o2, f, bu)));
            S.set(restS);
          }
          const r2 = evaluateClip(golden, o2);
          const t2 = r2.runs.filter(
            (x) => (x.bone === 'RightUpperArm' || x.bone === 'RightShoulder') && x.measure !== 'position',
          );
          const visible = shoulderDev.filter(
            (d) => d > profile.thresholds.RightUpperArm.rotationDeg! + 1,
          ).length;
          const maxDev = Math.max(...shoulderDev);
          if (visible >= 4) {
            const ok2 = t2.length > 0 && t2.every((x) => x.causeCode === 'missing-shoulder');
            tally('missing shoulder', ok2);
            expect([
              tag,
              t2.length > 0,
              t2.map((x) => x.causeCode).filter((c) => c !== 'missing-shoulder'),
            ]).toEqual([tag, true, []]);
            // the runs sit where the golden shoulder is off its rest pose
            for (const x of t2) {
              const inRun = Array.from(shoulderDev.subarray(x.startFrame, x.endFrame + 1));
              expect(Math.max(...inRun)).toBeGreaterThan(5);
            }
            notes.push(
              `missing shoulder (golden shoulder up to ${maxDev.toFixed(1)} deg from rest, ${visible} frames over the threshold): ${t2[0]?.message}`,
            );
          } else {
            expect(r2.runs.filter((x) => x.level === 'Error' && x.bone === 'RightUpperArm')).toEqual([]);
            notes.push(
              `missing shoulder: golden shoulder within ${maxDev.toFixed(1)} deg of rest, no visible effect`,
            );
          }
        }

        // (3) constant 15-degree A/T offset on RightUpperArm over the whole clip (a swing)
        const o3 = copyClip(golden, 'calibration offset');
        const off = axisAngle(perpendicular(profile.twistAxes.RightUpperArm), 15 * D2R);
        injectLocal(o3, H.RightUpperArm, 0, N - 1, () => off);
        const r3 = evaluateClip(golden, o3);
        const t3 = r3.runs.find((x) => x.bone === 'RightUpperArm' && x.measure === 'rotation');
        tally(
          'calibration offset',
          !!t3 && t3.causeCode === 'calibration-offset' && t3.startFrame === 0 && t3.endFrame === N - 1,
        );
        expect([tag, t3?.startFrame, t3?.endFrame, t3?.causeCode]).toEqual([
          tag,
          0,
          N - 1,
          'calibration-offset',
        ]);
        expect(t3!.peak).toBeCloseTo(15, 2);
        notes.push(`calibration offset: ${t3?.message}`);

        // (4) a 2-frame spike: 60 degrees of twist on RightLowerArm
        const m = Math.floor(N / 2);
        const o4 = copyClip(golden, 'spike');
        injectLocal(o4, H.RightLowerArm, m, m + 1, () => axisAngle(axis, 60 * D2R));
        const r4 = evaluateClip(golden, o4);
        cleanChecks++;
        if (r4.result === 'Error') falsePositives++;
        expect([tag, r4.result, r4.runs.length]).toEqual([tag, 'Warning', 0]);
        expect(r4.score[m]).toBeGreaterThan(0);
        tally('spike ignored', r4.result === 'Warning');

        // (5) mirrored clip
        const o5 = mirrorClip(golden);
        const r5 = evaluateClip(golden, o5);
        const ok5 = r5.runs.length > 0 && r5.runs.every((x) => x.causeCode === 'mirrored');
        tally('mirrored', ok5);
        expect([tag, r5.runs.length > 0, r5.runs.filter((x) => x.causeCode !== 'mirrored').length]).toEqual([
          tag,
          true,
          0,
        ]);
        expect(r5.warnings.some((w) => w.includes('mirrored'))).toBe(true);
        const pm = emptyRigProfile();
        pm.flags.mirrored = true;
        const r5b = evaluateClip(golden, o5, { profile: pm });
        expect([tag, errorRuns(r5b)]).toEqual([tag, '']);
        notes.push(
          `mirrored: ${r5.runs.length} runs, all 'mirrored'; with flags.mirrored: ${r5b.result} (max S ${r5b.maxScore.toFixed(3)})`,
        );

        rows.push(`${tag}\n  ${notes.join('\n  ')}`);
      });
    }
  }

  // Its speed (bone-frames per second) is a figure of `npm run bench -- qa`, not asserted here.
  it('the longest take: every frame evaluated, the injected forearm twist found where it was put', async () => {
    const take = 'bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh';
    const src = await loadSource(dataPath(take));
    const avatar = await loadAvatar(dataPath(AVATARS[0]));
    const golden = retargetClip(src.clip, avatar.skeleton, { groundContact: true }).clip;
    const obs = copyClip(golden, 'obs');
    const axis = defaultRigProfile(avatar.skeleton).twistAxes.RightLowerArm;
    injectLocal(obs, H.RightLowerArm, 100, 400, () => axisAngle(axis, 40 * D2R));
    const r = evaluateClip(golden, obs);
    expect(r.frames).toBe(1901);
    const t = r.runs.find((x) => x.bone === 'RightLowerArm' && x.measure === 'twist');
    expect([t?.startFrame, t?.endFrame, t?.causeCode]).toEqual([100, 400, 'forearm-roll']);
  });
});
