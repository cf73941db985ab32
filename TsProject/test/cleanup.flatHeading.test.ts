/**
 * The held heading of a flat foot (src/cleanup/pins.ts step 5; issue 20, the toe's remaining slide): a
 * stance with heel and toe both in contact keeps the foot's heading, so the toe no longer swings with the
 * source foot's yaw jitter about the pinned ankle, and carries it through the heel -> toe switch.
 *
 * Before this (the foot kept its source world rotation on a heel pin) the toe moved exactly as the source's
 * did: on CMU 001_08 (iClone, 60 fps, a child climbing, 0.1-0.4 m/s of per-frame jitter at the feet) the
 * judge's toe slide on the frames where its reference calls the toe the supporting point was 41.6 cm in
 * the source and 52.2 cm after cleanup. Synthetic takes with known answers here; the real take below
 * (skipped with the reason printed when ../shared/data is absent).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { quat } from 'gl-matrix';
import { cleanupClip, FLAT_YAW_CAP, type FloorEstimate, legBones, legTracks } from '../src/cleanup';
import { type Clip, createClip, HumanBodyBones as H, quat64 } from '../src/core';
import { runAllocProbe } from './helpers/allocProbe';
import { makeHumanoid } from './helpers/humanoid';

const DEG = Math.PI / 180;
const FT = 1 / 60;
const L_THIGH = 0.45;
const L_SHIN = 0.42;
const TOE = [0, -0.06, 0.12]; // makeHumanoid's toe offset in the foot's frame
const ALPHA = 30 * DEG;
const F = 90;
/** Heel contact [0, HEEL_END), toe contact [0, TOE_END): flat foot, then heel-off on the toe. */
const HEEL_END = 45;
const TOE_END = 70;
const FLOOR: FloorEstimate = { normal: [0, 1, 0], d: 0, method: 'percentile' };

function rotX(v: number[], a: number): number[] {
  const c = Math.cos(a);
  const s = Math.sin(a);
  return [v[0], v[1] * c - v[2] * s, v[1] * s + v[2] * c];
}

/**
 * A take whose left foot stands flat with its ankle sliding forward 1 mm per frame while the foot turns
 * about the vertical through the ankle by `yaw(f)` (radians); the right leg is held up in the air.
 */
function yawingTake(yaw: (f: number) => number): Clip {
  const s = makeHumanoid({ toes: true });
  const clip = createClip(s, F, FT, 'flat-heading');
  const n = s.boneCount;
  const knee = rotX([0, -L_THIGH, 0], -ALPHA);
  const shin = rotX([0, -L_SHIN, 0], ALPHA);
  for (let f = 0; f < F; f++) {
    const set = (bone: number, q: Float64Array | quat) => clip.rotations.set(q, 4 * (f * n + bone));
    set(s.humanoid[H.LeftUpperLeg], quat.setAxisAngle(quat64(), [1, 0, 0], -ALPHA));
    set(s.humanoid[H.LeftLowerLeg], quat.setAxisAngle(quat64(), [1, 0, 0], 2 * ALPHA));
    // foot world = yaw about Y; its parent (the shin) is turned by -alpha + 2 alpha = alpha about X
    const foot = quat.setAxisAngle(quat64(), [1, 0, 0], -ALPHA);
    quat.multiply(foot, foot, quat.setAxisAngle(quat64(), [0, 1, 0], yaw(f)));
    set(s.humanoid[H.LeftFoot], foot);
    set(s.humanoid[H.RightUpperLeg], quat.setAxisAngle(quat64(), [1, 0, 0], -70 * DEG));
    set(s.humanoid[H.RightLowerLeg], quat.setAxisAngle(quat64(), [1, 0, 0], 90 * DEG));
    // hips so that the flat foot's toe is on y = 0 and the ankle slides 1 mm per frame along +Z
    const hipsY = -(-0.05 + knee[1] + shin[1] + TOE[1]);
    clip.translations.set([0, hipsY, 0.001 * f - knee[2] - shin[2]], 3 * (f * n + s.humanoid[H.Hips]));
  }
  return clip;
}

function probs(ranges: [number, number][]): Float32Array {
  const p = new Float32Array(F).fill(0.02);
  for (const [a, b] of ranges) p.fill(0.95, a, b);
  return p;
}

function clean(clip: Clip) {
  const none = probs([]);
  return cleanupClip({
    clip,
    floor: FLOOR,
    probabilities: { left: probs([[0, TOE_END]]), right: none },
    points: {
      left: { heel: probs([[0, HEEL_END]]), toe: probs([[0, TOE_END]]) },
      right: { heel: none, toe: none },
    },
  });
}

function tracks(clip: Clip) {
  const s = clip.skeleton;
  return legTracks(clip, { left: legBones(s, 'left'), right: legBones(s, 'right') }).left;
}

const hstep = (a: Float64Array, f: number) =>
  Math.hypot(a[3 * f] - a[3 * f - 3], a[3 * f + 2] - a[3 * f - 1]);
const dist3 = (a: Float64Array, b: Float64Array, f: number, g = f) =>
  Math.hypot(a[3 * f] - b[3 * g], a[3 * f + 1] - b[3 * g + 1], a[3 * f + 2] - b[3 * g + 2]);
/** Horizontal heading of ankle -> toe at frame f, radians about +Y (atan2 of x over z). */
const heading = (t: ReturnType<typeof tracks>, f: number) =>
  Math.atan2(
    (t.toe as Float64Array)[3 * f] - t.ankle[3 * f],
    (t.toe as Float64Array)[3 * f + 2] - t.ankle[3 * f + 2],
  );

describe('a flat foot whose source yaw jitters +-4 deg about the pinned ankle', () => {
  const jitter = (f: number) => 4 * DEG * Math.sin(1.7 * f);
  const clip = yawingTake(jitter);
  const res = clean(clip);
  const before = tracks(clip);
  const after = tracks(res.clip);
  const full: number[] = [];
  for (let f = 1; f < TOE_END; f++)
    if (res.feet.left.weight[f] === 1 && res.feet.left.weight[f - 1] === 1) full.push(f);

  test('the take is what it says: heel pinned, then the toe; the source toe swings several cm', () => {
    expect(res.feet.left.runs.map((r) => [r.point, r.start, r.end])).toEqual([
      ['heel', 0, HEEL_END],
      ['toe', HEEL_END, TOE_END],
    ]);
    expect(res.feet.left.runs.every((r) => r.heading !== null)).toBe(true);
    expect(full.length).toBeGreaterThan(50);
    let path = 0;
    for (const f of full) path += hstep(before.toe as Float64Array, f);
    expect(path).toBeGreaterThan(0.2);
  });

  test('the toe holds still through the flat foot and the heel-off (today: it swung as the source did)', () => {
    let path = 0;
    for (const f of full) {
      const s = hstep(after.toe as Float64Array, f);
      expect(s).toBeLessThan(1e-3);
      path += s;
    }
    expect(path).toBeLessThan(0.01);
  });

  test('the ankle stays pinned on the heel run and does not step at the heel -> toe switch', () => {
    for (const f of full) {
      // the ankle moves no more than its source does, plus 1 mm (the source ankle slides 1 mm per frame)
      expect(dist3(after.ankle, after.ankle, f, f - 1)).toBeLessThan(
        dist3(before.ankle, before.ankle, f, f - 1) + 1e-3,
      );
      if (f < HEEL_END) expect(hstep(after.ankle, f)).toBeLessThan(1e-4);
    }
  });

  test('the foot turns at most FLAT_YAW_CAP from the source; heights are the source minus the lift', () => {
    for (let f = 0; f < F; f++) {
      let d = heading(after, f) - heading(before, f);
      d = Math.atan2(Math.sin(d), Math.cos(d));
      expect(Math.abs(d)).toBeLessThanOrEqual(FLAT_YAW_CAP + 1e-6);
      // a turn about up moves nothing up or down
      expect(
        Math.abs((after.toe as Float64Array)[3 * f + 1] - (before.toe as Float64Array)[3 * f + 1]),
      ).toBeLessThan(0.006);
    }
  });
});

describe('a deliberate pivot on a flat foot (the source turns 60 deg) is followed beyond the cap', () => {
  const turn = (f: number) => (60 * DEG * Math.min(f, TOE_END)) / TOE_END;
  const clip = yawingTake(turn);
  const res = clean(clip);
  const before = tracks(clip);
  const after = tracks(res.clip);

  test('the heading is held at most FLAT_YAW_CAP away from the source, and no joint steps 3 cm beyond it', () => {
    for (let f = 0; f < F; f++) {
      let d = heading(after, f) - heading(before, f);
      d = Math.atan2(Math.sin(d), Math.cos(d));
      expect(Math.abs(d)).toBeLessThanOrEqual(FLAT_YAW_CAP + 1e-6);
      if (f === 0) continue;
      for (const [a, b] of [
        [after.knee, before.knee],
        [after.ankle, before.ankle],
        [after.toe, before.toe],
      ] as [Float64Array, Float64Array][])
        expect(dist3(a, a, f, f - 1) - dist3(b, b, f, f - 1)).toBeLessThan(0.03);
    }
  });
});

describe('per-frame step with a held heading', () => {
  test('FootPinner.apply allocates nothing on heel and toe rows that hold a heading', () => {
    const helper = require.resolve('./helpers/humanoid');
    const src = path.resolve(__dirname, '../src');
    const r = runAllocProbe(`
      import { quat } from 'gl-matrix';
      import { makeHumanoid } from ${JSON.stringify(helper)};
      import { createClip, HumanBodyBones as H } from ${JSON.stringify(`${src}/core`)};
      import { FootPinner, legBones, segmentWeights, ToePivot } from ${JSON.stringify(`${src}/cleanup`)};
      import { LegDLS } from ${JSON.stringify(`${src}/ik`)};
      const s = makeHumanoid();
      const F = 60;
      const clip = createClip(s, F, 1 / 60);
      const n = s.boneCount;
      for (let f = 0; f < F; f++) {
        clip.translations[3 * (f * n + s.humanoid[H.Hips]) + 2] = 0.02 * f;
        for (const b of [s.humanoid[H.LeftFoot], s.humanoid[H.RightFoot]])
          clip.rotations.set(quat.setAxisAngle(quat.create(), [0, 1, 0], 0.1 * Math.sin(f)), 4 * (f * n + b));
      }
      const out = { ...clip, rotations: clip.rotations.slice(), translations: clip.translations.slice() };
      const leg = (foot, run) => {
        const { weight, segment } = segmentWeights([{ start: 10, end: 50 }], F, 4);
        return { bones: legBones(s, foot), weight, segment, segments: new Float64Array(run),
          heading: new Float64Array([0.2, 0, 0.98]),
          hinge: new Float64Array([1, 0, 0]), solver: new LegDLS(), limitKind: new Uint8Array(F), pinError: new Float32Array(F),
          toeOffset: null, pivot: new ToePivot() };
      };
      const left = leg('left', [0.05, 0.1, 0.6, 0.1, 0, 0, 0]);
      const right = leg('right', [-0.1, 0.02, 0.0, 0.02, 0, 0.02, 1]);
      const pinner = new FootPinner(clip, out, [left, right], { normal: [0, 1, 0], d: 0, method: 'percentile' }, null, 0.02);
      let f = 10;
      result.apply = bytesPerCall(() => { pinner.apply(f); f = f === 49 ? 10 : f + 1; }, 5000);
      let turned = 0;
      for (let g = 10; g < 50; g++) {
        pinner.apply(g);
        const i = 4 * (g * n + s.humanoid[H.LeftFoot]);
        if (Math.abs(out.rotations[i + 1] - clip.rotations[i + 1]) > 1e-6) turned++;
      }
      result.turned = turned;
    `);
    expect(r.apply).toBeLessThan(16);
    // the heading branch ran inside the measured loop (the left foot was turned)
    expect(r.turned).toBeGreaterThan(20);
  });
});

const SHARED = path.resolve(__dirname, '../../../shared/data');
const TAKE_0108 = path.join(SHARED, 'cmu-locomotion/iclone-ccbase/001_08.bvh');

describe('real data: CMU 001_08 (iClone, 60 fps, jittery feet)', () => {
  const have = fs.existsSync(TAKE_0108);
  if (!have) console.log(`skipped: ${TAKE_0108} is absent (the shared data is not here)`);
  (have ? test : test.skip)(
    'with the teacher contacts, the toe of a flat foot moves less than half as much as the source toe',
    async () => {
      const { cleanTake } = await import('../src/cli/cleanupRun');
      const o = await cleanTake(
        { input: TAKE_0108, model: 'teacher', outBvh: '/tmp/unused.bvh' },
        { html: false },
      );
      const s = o.source.skeleton;
      const b = legTracks(o.source, { left: legBones(s, 'left'), right: legBones(s, 'right') });
      const a = legTracks(o.result.clip, { left: legBones(s, 'left'), right: legBones(s, 'right') });
      let src = 0;
      let out = 0;
      for (const side of ['left', 'right'] as const) {
        const fc = o.result.feet[side];
        for (let f = 1; f < o.source.frameCount; f++) {
          // heel-pinned frames at full weight whose toe is in contact too (a flat foot)
          if (!(fc.pin[f] === 1 && fc.pin[f - 1] === 1 && fc.toe.contact[f] && fc.toe.contact[f - 1]))
            continue;
          if (fc.weight[f] !== 1 || fc.weight[f - 1] !== 1) continue;
          src += hstep(b[side].toe as Float64Array, f);
          out += hstep(a[side].toe as Float64Array, f);
        }
      }
      console.log(
        `CMU 001_08 flat-foot toe path: source ${(src * 100).toFixed(1)} cm, cleaned ${(out * 100).toFixed(1)} cm`,
      );
      expect(src).toBeGreaterThan(0.5);
      expect(out).toBeLessThan(0.5 * src);
    },
  );
});
