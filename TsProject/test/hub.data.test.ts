/**
 * The live hub on the real data (../shared/data): every take onto every avatar with IK on all four
 * limbs (first seconds here, whole takes with KIND_FULL=1), the situational weights over a real take,
 * and a recorded sitting motion with a chair prop.
 */
import * as path from 'node:path';
import { runHub } from '../src/cli/retarget';
import { readFrame, sliceClip } from '../src/core';
import { loadAvatar, loadSource } from '../src/io/node';
import { RetargetHub } from '../src/rig';
import { AVATARS, BVH_TAKES, dataPath, describeWithData, FULL } from './helpers/data';

const SECONDS = 3;
const rows: string[] = [];

describeWithData('live hub with IK on real takes and avatars', () => {
  afterAll(() => {
    console.log(
      `IK end-effector error mean/max (mm) and bend-plane flips (frames > 10 deg / compared) per limb${FULL ? ' (full takes)' : ` (first ${SECONDS} s)`}:\n${rows.join('\n')}`,
    );
  });
  for (const take of BVH_TAKES) {
    for (const avatarFile of AVATARS) {
      it(`${path.basename(take)} -> ${path.basename(avatarFile)}`, async () => {
        const src = await loadSource(dataPath(take));
        const clip = FULL ? src.clip : sliceClip(src.clip, 0, Math.round(SECONDS / src.clip.frameTime));
        const avatar = await loadAvatar(dataPath(avatarFile));
        const { clip: out, ik } = runHub(clip, avatar.skeleton, { groundContact: true }, 'on');
        expect(out.rotations.every(Number.isFinite)).toBe(true);
        expect(out.translations.every(Number.isFinite)).toBe(true);
        const cells = Object.entries(ik).map(
          ([k, v]) =>
            `${k} ${v.meanErrorMm!.toFixed(1)}/${v.maxErrorMm.toFixed(1)} ${v.bendPlaneFlips}/${v.bendPlaneCompared}`,
        );
        rows.push(`${path.basename(take)} -> ${path.basename(avatarFile)}: ${cells.join('; ')}`);
        for (const v of Object.values(ik)) {
          expect(v.ikFrames).toBe(clip.frameCount);
          expect(Number.isFinite(v.meanErrorMm!)).toBe(true);
        }
      });
    }
  }
});

describeWithData('live hub weights and sitting on real motion', () => {
  it('weights move smoothly over a real dance: no jump larger than speed * dt', async () => {
    const src = await loadSource(dataPath('bandai-namco-motiondataset/dataset-1_dance-short_normal_001.bvh'));
    const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
    const clip = src.clip;
    const hub = new RetargetHub(clip.skeleton, avatar.skeleton, { ik: 'auto' });
    const n = clip.skeleton.boneCount;
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, 0, r, p);
    hub.calibrate({ rotations: r, translations: p });
    const speed = hub.weights.settings.smoothingSpeed;
    const prev = new Float64Array(5);
    let maxStep = 0;
    let armOn = 0;
    for (let f = 0; f < clip.frameCount; f++) {
      readFrame(clip, f, r, p);
      hub.update(r, p, clip.frameTime);
      if (f > 0) {
        for (let k = 0; k < 5; k++) maxStep = Math.max(maxStep, Math.abs(hub.weights.weights[k] - prev[k]));
      }
      prev.set(hub.weights.weights);
      if (hub.weights.weights[0] > 0.5) armOn++;
      expect(hub.localRotations.every(Number.isFinite)).toBe(true);
    }
    expect(maxStep).toBeLessThanOrEqual(speed * clip.frameTime + 1e-12);
    console.log(
      `dance: max weight step ${maxStep.toFixed(4)} (limit ${(speed * clip.frameTime).toFixed(4)}), left arm IK on ${armOn}/${clip.frameCount} frames`,
    );
  });

  it('a recorded sitting motion with a chair prop: the hips go down onto the seat, the legs do not snap', async () => {
    // RobotExpressive's "Sitting" clip (the only sitting motion in the shared data) onto Xbot
    const src = await loadSource(dataPath('threejs/RobotExpressive/RobotExpressive.glb'), {
      clipName: 'Sitting',
    });
    const avatar = await loadAvatar(dataPath('threejs/Xbot.glb'));
    const clip = src.clip;
    const hub = new RetargetHub(clip.skeleton, avatar.skeleton, { ik: 'auto', hipsMode: 'scaled' });
    const n = clip.skeleton.boneCount;
    const r = new Float64Array(4 * n);
    const p = new Float64Array(3 * n);
    readFrame(clip, 0, r, p);
    hub.calibrate({ rotations: r, translations: p });
    // pass 1 without a chair: where do the avatar's hips go lowest?
    const T = avatar.skeleton;
    const hips = T.humanoid.at(0)!;
    let low = Number.POSITIVE_INFINITY;
    const lowAt = new Float64Array(3);
    for (let f = 0; f < clip.frameCount; f++) {
      readFrame(clip, f, r, p);
      hub.update(r, p, clip.frameTime);
      const P = hub.retargeter.lastTargetWorldPositions;
      if (P[3 * hips + 1] < low) {
        low = P[3 * hips + 1];
        lowAt.set(P.subarray(3 * hips, 3 * hips + 3));
      }
    }
    // pass 2 with a chair where the hips went lowest
    hub.props.add('chair', 'Chair', [lowAt[0], low, lowAt[2]]);
    readFrame(clip, 0, r, p);
    hub.calibrate({ rotations: r, translations: p });
    const knee = T.humanoid.at(3)!; // LeftLowerLeg
    const thigh = T.humanoid.at(1)!;
    const foot = T.humanoid.at(5)!;
    let prevAngle = Number.NaN;
    let maxKneeStep = 0;
    let seatMax = 0;
    let closest = Number.POSITIVE_INFINITY;
    for (let f = 0; f < clip.frameCount; f++) {
      readFrame(clip, f, r, p);
      hub.update(r, p, clip.frameTime);
      const P = hub.retargeter.lastTargetWorldPositions;
      const a = [0, 1, 2].map((c) => P[3 * knee + c] - P[3 * thigh + c]);
      const b = [0, 1, 2].map((c) => P[3 * foot + c] - P[3 * knee + c]);
      const ang =
        Math.acos(
          Math.min(1, (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(...a) * Math.hypot(...b))),
        ) *
        (180 / Math.PI);
      if (!Number.isNaN(prevAngle)) maxKneeStep = Math.max(maxKneeStep, Math.abs(ang - prevAngle));
      prevAngle = ang;
      seatMax = Math.max(seatMax, hub.weights.hips[1]);
      closest = Math.min(
        closest,
        Math.hypot(P[3 * hips] - lowAt[0], P[3 * hips + 1] - low, P[3 * hips + 2] - lowAt[2]),
      );
      expect(hub.localRotations.every(Number.isFinite)).toBe(true);
    }
    console.log(
      `sitting: hips came within ${(closest * 100).toFixed(1)} cm of the seat point, seat amount reached ${seatMax.toFixed(3)}, max knee angle change per frame ${maxKneeStep.toFixed(2)} deg at ${(1 / clip.frameTime).toFixed(0)} fps`,
    );
    expect(closest).toBeLessThan(0.1); // the hips went down onto the seat
    expect(seatMax).toBeGreaterThan(0.8); // and the chair took over the hips height
    expect(maxKneeStep).toBeLessThan(15); // no snap: under 15 degrees per frame
  });
});
