/**
 * The live retargeting hub: frame order, IK on four limbs, calibrations, live parameters, settings,
 * and allocation-free updates.
 */
import { quat } from 'gl-matrix';
import {
  angleBetween,
  type Clip,
  createClip,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  readFrame,
  type Skeleton,
} from '../src/core';
import { Retargeter } from '../src/retarget';
import { HubError, RetargetHub } from '../src/rig';
import { runAllocProbe } from './helpers/allocProbe';
import { hubProbe } from './helpers/hubProbe';
import { makeHumanoid } from './helpers/humanoid';

function frame(clip: Clip, f: number) {
  const n = clip.skeleton.boneCount;
  const rotations = new Float64Array(4 * n);
  const translations = new Float64Array(3 * n);
  readFrame(clip, f, rotations, translations);
  return { rotations, translations };
}

/** A clip of random poses around the rest pose (limbs moved up to `maxAngle` radians), rest at frame 0. */
function randomClip(s: Skeleton, frames: number, seed: number, maxAngle = 0.6): Clip {
  const clip = createClip(s, frames, 1 / 30, 'random');
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const q = quat64();
  const r = quat64();
  for (let f = 1; f < frames; f++) {
    for (let i = 0; i < s.boneCount; i++) {
      const axis = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
      const l = Math.hypot(axis[0], axis[1], axis[2]);
      quat.setAxisAngle(q, [axis[0] / l, axis[1] / l, axis[2] / l], (rnd() - 0.5) * 2 * maxAngle);
      (r as Float64Array).set(s.restRotations.subarray(4 * i, 4 * i + 4));
      quat.multiply(q, r, q);
      clip.rotations.set(q, 4 * (f * s.boneCount + i));
    }
    const h = s.humanoid[H.Hips];
    const o = 3 * (f * s.boneCount + h);
    clip.translations[o] = (rnd() - 0.5) * 2;
    clip.translations[o + 2] = (rnd() - 0.5) * 2;
  }
  return clip;
}

function world(s: Skeleton, rot: ArrayLike<number>, pos: ArrayLike<number>) {
  const r = new Float64Array(4 * s.boneCount);
  const p = new Float64Array(3 * s.boneCount);
  forwardKinematics(s, rot as Float64Array, pos as Float64Array, r, p);
  return { r, p };
}

describe('RetargetHub frame order', () => {
  it('with IK off and no offsets, outputs what the retargeter outputs', () => {
    const src = makeHumanoid({ spineBones: 4 });
    const tgt = makeHumanoid({ pose: 'A', legs: 1.1, arms: 0.9 });
    const clip = randomClip(src, 20, 5);
    const hub = new RetargetHub(src, tgt, { ik: 'off', hipsMode: 'scaled' });
    hub.calibrate(frame(clip, 0));
    const r = new Retargeter(src, tgt, { hipsMode: 'scaled' });
    r.calibrate(frame(clip, 0));
    const or = new Float64Array(4 * tgt.boneCount);
    const op = new Float64Array(3 * tgt.boneCount);
    for (let f = 0; f < 20; f++) {
      const fr = frame(clip, f);
      hub.update(fr.rotations, fr.translations, 1 / 30);
      r.retargetPose(fr.rotations, fr.translations, or, op);
      for (let k = 0; k < or.length; k += 4) {
        expect(angleBetween(or.subarray(k, k + 4), hub.localRotations.subarray(k, k + 4))).toBeLessThan(1e-9);
      }
      for (let k = 0; k < op.length; k++)
        expect(Math.abs(op[k] - hub.localTranslations[k])).toBeLessThan(1e-9);
    }
  });

  it('with IK on, hands and feet reach the body-scaled source targets; onto itself the pose is unchanged', () => {
    const src = makeHumanoid();
    const clip = randomClip(src, 15, 9, 0.4);
    const hub = new RetargetHub(src, src, { ik: 'on', hipsMode: 'scaled' });
    hub.calibrate(frame(clip, 0));
    for (let f = 0; f < 15; f++) {
      const fr = frame(clip, f);
      hub.update(fr.rotations, fr.translations, 1 / 30);
      for (let l = 0; l < 4; l++) {
        const d = Math.hypot(
          hub.ikTargets[3 * l] - hub.ikReached[3 * l],
          hub.ikTargets[3 * l + 1] - hub.ikReached[3 * l + 1],
          hub.ikTargets[3 * l + 2] - hub.ikReached[3 * l + 2],
        );
        expect(d).toBeLessThan(1e-4); // same proportions: both arm and leg solvers reach
      }
      // onto itself the targets are where FK put them already: the pose is the source's, but for the
      // elbows, which near a straight arm lean toward the calibrated bend side (the solver's fallback
      // zone, 2% of the arm's length): within 1 cm
      const ws = world(src, fr.rotations, fr.translations);
      const wt = world(src, hub.localRotations, hub.localTranslations);
      const arms = new Set(
        [H.LeftUpperArm, H.LeftLowerArm, H.LeftHand, H.RightUpperArm, H.RightLowerArm, H.RightHand].map(
          (h) => src.humanoid[h],
        ),
      );
      for (let b = 0; b < src.boneCount; b++) {
        const d = Math.hypot(
          ws.p[3 * b] - wt.p[3 * b],
          ws.p[3 * b + 1] - wt.p[3 * b + 1],
          ws.p[3 * b + 2] - wt.p[3 * b + 2],
        );
        expect(d).toBeLessThan(arms.has(b) ? 0.01 : 1e-6);
        if (!arms.has(b)) {
          expect(
            angleBetween(
              fr.rotations.subarray(4 * b, 4 * b + 4),
              hub.localRotations.subarray(4 * b, 4 * b + 4),
            ),
          ).toBeLessThan(1e-6);
        }
      }
    }
  });

  it('applies the head rotation offset after IK, in the head frame, and leaves the body alone', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A' });
    const clip = randomClip(src, 3, 4);
    const a = new RetargetHub(src, tgt, { ik: 'on' });
    const b = new RetargetHub(src, tgt, { ik: 'on', settings: { headRotationOffset: [0, 30, 0] } });
    a.calibrate(frame(clip, 0));
    b.calibrate(frame(clip, 0));
    const fr = frame(clip, 2);
    a.update(fr.rotations, fr.translations, 0);
    b.update(fr.rotations, fr.translations, 0);
    const head = tgt.humanoid[H.Head];
    const wa = world(tgt, a.localRotations, a.localTranslations);
    const wb = world(tgt, b.localRotations, b.localTranslations);
    const qa = wa.r.subarray(4 * head, 4 * head + 4);
    const qb = wb.r.subarray(4 * head, 4 * head + 4);
    expect(angleBetween(qa, qb) * (180 / Math.PI)).toBeCloseTo(30, 6);
    for (let t = 0; t < tgt.boneCount; t++) {
      if (t === head) continue;
      expect(angleBetween(wa.r.subarray(4 * t, 4 * t + 4), wb.r.subarray(4 * t, 4 * t + 4))).toBeLessThan(
        1e-9,
      );
    }
    expect(() => b.setHeadRotationOffset(0, 181, 0)).toThrow(
      /headRotationOffset.y: 181 is outside -180..180/,
    );
  });
});

describe('RetargetHub live parameters and calibration', () => {
  it('avatar scale applies without recalibration: hips height scales, outputScales report it', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ legs: 1.2 });
    const clip = randomClip(src, 2, 3);
    const hub = new RetargetHub(src, tgt, { ik: 'on', hipsMode: 'scaled' });
    hub.calibrate(frame(clip, 0));
    const fr = frame(clip, 0);
    hub.update(fr.rotations, fr.translations, 0);
    const hips = tgt.humanoid[H.Hips];
    const y1 = hub.localTranslations[3 * hips + 1];
    hub.setAvatarScale(1.5);
    hub.update(fr.rotations, fr.translations, 0);
    expect(hub.localTranslations[3 * hips + 1]).toBeCloseTo(1.5 * y1, 9);
    expect(Array.from(hub.outputScales)).toEqual([1.5, 1]);
    hub.setHeadScale(2);
    hub.update(fr.rotations, fr.translations, 0);
    expect(hub.outputScales[1]).toBe(2);
    expect(() => hub.setAvatarScale(3.5)).toThrow(/avatarScale: 3.5 is outside 0.1..3/);
    expect(() => hub.setHeadScale(0)).toThrow(/headScale/);
  });

  it('calibrate head forward: the head as it is becomes the reference head', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A' });
    const rest = {
      rotations: Float64Array.from(src.restRotations),
      translations: Float64Array.from(src.restTranslations),
    };
    const hub = new RetargetHub(src, tgt, { ik: 'off' });
    hub.calibrate(rest);
    const turned = { rotations: Float64Array.from(rest.rotations), translations: rest.translations };
    const h = src.humanoid[H.Head];
    quat.setAxisAngle(turned.rotations.subarray(4 * h, 4 * h + 4), [0, 1, 0], 0.7); // head turned 40 deg
    hub.update(turned.rotations, turned.translations, 0);
    hub.calibrateHeadForward();
    hub.update(turned.rotations, turned.translations, 0);
    const th = tgt.humanoid[H.Head];
    const ref = hub.retargeter.targetReference!.localRotations.subarray(4 * th, 4 * th + 4);
    expect(angleBetween(hub.localRotations.subarray(4 * th, 4 * th + 4), ref)).toBeLessThan(1e-9);
  });

  it('auto-calibrate-all sets the scale from the neck heights (clamped) and returns settings to save', () => {
    const src = makeHumanoid({ scale: 1.2 });
    const tgt = makeHumanoid();
    const rest = {
      rotations: Float64Array.from(src.restRotations),
      translations: Float64Array.from(src.restTranslations),
    };
    const hub = new RetargetHub(src, tgt, { ik: 'off' });
    const s = hub.autoCalibrateAll(rest);
    expect(s.avatarScale).toBeCloseTo(1.2, 6);
    const tiny = new RetargetHub(makeHumanoid({ scale: 0.01 }), tgt, { ik: 'off' });
    const tr = tiny.source;
    expect(
      tiny.autoCalibrateAll({ rotations: tr.restRotations, translations: tr.restTranslations }).avatarScale,
    ).toBe(0.1);
  });

  it('I-pose calibration takes the frame as is and keeps the finger calibration', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A' });
    const rest = {
      rotations: Float64Array.from(src.restRotations),
      translations: Float64Array.from(src.restTranslations),
    };
    const hub = new RetargetHub(src, tgt, { ik: 'off' });
    hub.calibrate(rest);
    const finger = tgt.humanoid[H.LeftMiddleProximal];
    const before = new Float64Array(4);
    hub.retargeter.getOffset(finger, before);
    // the performer in an I-pose (arms down) with bent fingers
    const ipose = { rotations: Float64Array.from(rest.rotations), translations: rest.translations };
    for (const [side, sign] of [
      ['Left', -1],
      ['Right', 1],
    ] as const) {
      const ua = src.humanoid[H[`${side}UpperArm`]];
      quat.setAxisAngle(ipose.rotations.subarray(4 * ua, 4 * ua + 4), [0, 0, 1], (sign * Math.PI) / 2);
    }
    const sf = src.humanoid[H.LeftMiddleProximal];
    quat.setAxisAngle(ipose.rotations.subarray(4 * sf, 4 * sf + 4), [0, 0, 1], -1.2);
    hub.calibrateIPose(ipose);
    const after = new Float64Array(4);
    hub.retargeter.getOffset(finger, after);
    expect(angleBetween(before, after)).toBeLessThan(1e-12);
    // the I-pose frame gives the avatar's canonical I-pose: upper arms straight down
    hub.update(ipose.rotations, ipose.translations, 0);
    const w = world(tgt, hub.localRotations, hub.localTranslations);
    const a = tgt.humanoid[H.LeftUpperArm];
    const b = tgt.humanoid[H.LeftLowerArm];
    const d = [w.p[3 * b] - w.p[3 * a], w.p[3 * b + 1] - w.p[3 * a + 1], w.p[3 * b + 2] - w.p[3 * a + 2]];
    const l = Math.hypot(d[0], d[1], d[2]);
    expect(d[1] / l).toBeCloseTo(-1, 6);
    // reset goes back to the T-pose calibration
    hub.resetCalibration();
    expect(hub.retargeter.options.referencePose).toBe('T');
  });

  it('fingers the source does not drive: a preset shows, then a disabled hand or rotation mode gives back the reference', () => {
    const src = makeHumanoid({ fingers: false });
    const tgt = makeHumanoid({ pose: 'A' });
    const clip = randomClip(src, 6, 7, 0.3);
    const hub = new RetargetHub(src, tgt, { ik: 'off', fingers: 'none' });
    hub.calibrate(frame(clip, 0));
    const bones = [H.LeftMiddleProximal, H.LeftMiddleIntermediate, H.RightMiddleProximal].map(
      (b) => tgt.humanoid[b],
    );
    const local = (b: number) => Array.from(hub.localRotations.subarray(4 * b, 4 * b + 4));
    const f1 = frame(clip, 1);
    hub.update(f1.rotations, f1.translations, 1 / 30);
    const reference = bones.map(local);
    hub.fingers.applyPreset('left', 'rock');
    hub.fingers.applyPreset('right', 'rock');
    hub.update(f1.rotations, f1.translations, 1 / 30);
    for (let i = 0; i < bones.length; i++)
      expect(angleBetween(local(bones[i]), reference[i])).toBeGreaterThan(0.3);
    // left hand off: its fingers go back to the reference at once, the right hand keeps the preset
    hub.fingers.setEnabled('left', false);
    hub.update(f1.rotations, f1.translations, 1 / 30);
    expect(angleBetween(local(bones[0]), reference[0])).toBeLessThan(1e-12);
    expect(angleBetween(local(bones[1]), reference[1])).toBeLessThan(1e-12);
    expect(angleBetween(local(bones[2]), reference[2])).toBeGreaterThan(0.3);
    // rotation mode: nothing to copy from this source, so the reference everywhere
    hub.fingers.setMode('rotation');
    hub.update(f1.rotations, f1.translations, 1 / 30);
    for (let i = 0; i < bones.length; i++)
      expect(angleBetween(local(bones[i]), reference[i])).toBeLessThan(1e-12);
    // and a recalibration keeps them there
    hub.calibrate(frame(clip, 0));
    hub.update(f1.rotations, f1.translations, 1 / 30);
    for (let i = 0; i < bones.length; i++)
      expect(angleBetween(local(bones[i]), reference[i])).toBeLessThan(1e-12);
  });

  it('settings: export, apply on a fresh hub gives the same output; bad settings change nothing', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A', legs: 1.1 });
    const clip = randomClip(src, 4, 8);
    const a = new RetargetHub(src, tgt, { ik: 'on' });
    a.calibrate(frame(clip, 0));
    a.setAvatarScale(1.3);
    a.setHeadRotationOffset(10, -20, 5);
    a.setFootOffset('left', 0.05, -0.02);
    a.setFloorHeight(0.1);
    const saved = a.exportSettings();
    expect(Object.keys(saved.rotationOffsets).length).toBeGreaterThan(10);
    const b = new RetargetHub(src, tgt, { ik: 'on' });
    b.calibrate(frame(clip, 0));
    b.applySettings(saved);
    const fr = frame(clip, 3);
    a.update(fr.rotations, fr.translations, 0);
    b.update(fr.rotations, fr.translations, 0);
    for (let k = 0; k < a.localRotations.length; k++)
      expect(b.localRotations[k]).toBeCloseTo(a.localRotations[k], 9);
    for (let k = 0; k < a.localTranslations.length; k++)
      expect(b.localTranslations[k]).toBeCloseTo(a.localTranslations[k], 9);
    const bad = {
      ...saved,
      rotationOffsets: { NoSuchBone: [0, 0, 0, 1] as [number, number, number, number] },
    };
    expect(() => b.applySettings(bad)).toThrow(/rotationOffsets: no bone named NoSuchBone/);
    expect(() => b.applySettings({ ...saved, avatarScale: 9 })).toThrow(HubError);
    expect(b.settings.avatarScale).toBe(1.3);
  });

  it('floor height lifts hips and feet together; foot offsets move the foot targets in foot axes, in/out mirrored', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A' });
    const rest = {
      rotations: Float64Array.from(src.restRotations),
      translations: Float64Array.from(src.restTranslations),
    };
    const hub = new RetargetHub(src, tgt, { ik: 'on' });
    hub.calibrate(rest);
    hub.update(rest.rotations, rest.translations, 0);
    const base = Float64Array.from(hub.ikTargets);
    hub.setFloorHeight(0.2);
    hub.update(rest.rotations, rest.translations, 0);
    for (let l = 0; l < 4; l++) {
      expect(hub.ikTargets[3 * l + 1] - base[3 * l + 1]).toBeCloseTo(0.2, 9);
      expect(hub.ikTargets[3 * l + 1] - hub.ikReached[3 * l + 1]).toBeCloseTo(0, 6);
    }
    hub.setFloorHeight(0);
    hub.setFootOffset('left', 0.1, 0.05); // 10 cm toward the toes (+Z), 5 cm outward (+X for the left foot)
    hub.setFootOffset('right', 0, 0.05); // 5 cm outward (-X for the right foot)
    hub.update(rest.rotations, rest.translations, 0);
    expect(hub.ikTargets[6] - base[6]).toBeCloseTo(0.05, 9);
    expect(hub.ikTargets[8] - base[8]).toBeCloseTo(0.1, 9);
    expect(hub.ikTargets[9] - base[9]).toBeCloseTo(-0.05, 9);
    expect(hub.ikTargets[11] - base[11]).toBeCloseTo(0, 9);
    expect(() => hub.setFootOffset('left', 0.6, 0)).toThrow(/footOffsets.left.frontBack: 0.6 is outside/);
  });

  it('bad input is an error naming the field and changes nothing (calibration frames, setters, options, arrays)', () => {
    const src = makeHumanoid();
    const tgt = makeHumanoid({ pose: 'A' });
    const clip = randomClip(src, 4, 3, 0.3);
    const hub = new RetargetHub(src, tgt, { ik: 'on' });
    hub.calibrate(frame(clip, 0));
    const f1 = frame(clip, 1);
    hub.update(f1.rotations, f1.translations, 1 / 30);
    const before = Float64Array.from(hub.localRotations);
    const settings = JSON.stringify(hub.exportSettings());
    // a NaN in a calibration frame: refused, naming the bone; the calibration in force is kept
    const bad = frame(clip, 2);
    const arm = src.humanoid[H.LeftUpperArm];
    bad.rotations[4 * arm + 1] = Number.NaN;
    const armName = src.names[arm];
    for (const call of [
      () => hub.calibrateIPose(bad),
      () => hub.calibrateOnFrame(bad, 'T'),
      () => hub.calibrate(bad),
      () => hub.autoCalibrateAll(bad),
    ])
      expect(call).toThrow(new RegExp(`frame\\.rotations\\[${armName}\\]\\.y is NaN`));
    const short = { rotations: f1.rotations.subarray(4), translations: f1.translations };
    expect(() => hub.calibrateIPose(short)).toThrow(/frame\.rotations has length/);
    // setters: wrong types and ranges
    expect(() => hub.setAvatarScale('2' as unknown as number)).toThrow(
      /avatarScale: need a finite number, got the text '2'/,
    );
    expect(() => hub.setAvatarScale(5)).toThrow(/avatarScale: 5 is outside 0.1..3/);
    expect(() => hub.setHeadRotationOffset('90' as unknown as number, 0, 0)).toThrow(
      /headRotationOffset.x: need a finite number/,
    );
    expect(() => hub.setFootOffset('middle' as 'left', 0.1, 0)).toThrow(
      /footOffsets side: the text 'middle' is not one of/,
    );
    expect(() => hub.setFloorHeight(Number.NaN)).toThrow(/floorHeight: need a finite number, got NaN/);
    expect(JSON.stringify(hub.exportSettings())).toBe(settings);
    // per-frame arrays of the wrong length
    expect(() => hub.update(f1.rotations.subarray(4), f1.translations, 0)).toThrow(
      /update: source rotations\/translations have lengths/,
    );
    expect(() => hub.update(null as unknown as Float64Array, f1.translations, 0)).toThrow(/update: /);
    hub.update(f1.rotations, f1.translations, 1 / 30);
    for (let i = 0; i < before.length; i++) expect(hub.localRotations[i]).toBeCloseTo(before[i], 9);
    // options
    expect(() => new RetargetHub(src, tgt, { ik: 'sometimes' as 'on' })).toThrow(
      /options.ik: the text 'sometimes' is not one of/,
    );
    expect(() => new RetargetHub(src, tgt, { hipsMode: 'float' as 'room' })).toThrow(/options.hipsMode/);
    expect(() => new RetargetHub(src, tgt, { sourceUp: 'up' as '+y' })).toThrow(/options.sourceUp/);
    expect(() => new RetargetHub(src, tgt, { sourceContactHeight: Number.NaN })).toThrow(
      /options.sourceContactHeight/,
    );
    // frames of a clip
    expect(() => RetargetHub.frameOf(clip, -1)).toThrow(/frameOf: frame -1 is outside 0..3/);
    expect(() => RetargetHub.frameOf(clip, 4)).toThrow(/frameOf: frame 4 is outside/);
  });

  it('update before calibrate is an error', () => {
    const s = makeHumanoid();
    const hub = new RetargetHub(s, s);
    expect(() => hub.update(s.restRotations, s.restTranslations, 0)).toThrow(/before calibrate/);
  });
});

describe('RetargetHub per-frame cost', () => {
  it('update allocates nothing with four-limb IK, fingers (preset) and props on (plain Node process)', () => {
    const r = runAllocProbe(hubProbe(3000));
    expect(r.update).toBeLessThan(1);
  });
});
