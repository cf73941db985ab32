/**
 * Heel and toe contacts and the toe pivot (issue 20, items 1-2), on synthetic takes with known answers:
 * a foot that rolls heel -> flat -> toe while its source slides, a tiptoe stance, a heel-off the leg
 * cannot reach without turning the foot, a rig without toe joints; and the report's version-2 fields.
 */
import { quat, vec3 } from 'gl-matrix';
import {
  type CleanupResult,
  cleanupClip,
  type FloorEstimate,
  legBones,
  legTracks,
  VIRTUAL_TOE_DROP,
  VIRTUAL_TOE_LENGTH,
} from '../src/cleanup';
import { buildCleanupFile, CLEANUP_FILE_VERSION } from '../src/cleanup-report';
import { computeFootTracks, ruleContactProbabilities } from '../src/contact';
import {
  type Clip,
  createClip,
  forwardKinematics,
  HumanBodyBones as H,
  quat64,
  readFrame,
} from '../src/core';
import { makeHumanoid } from './helpers/humanoid';

const DEG = Math.PI / 180;
const FT = 1 / 60;
const L_THIGH = 0.45;
const L_SHIN = 0.42;
const TOE = [0, -0.06, 0.12]; // makeHumanoid's toe offset in the foot's frame

/** Rotation of v about +X by a (radians). */
function rotX(v: number[], a: number): number[] {
  const c = Math.cos(a);
  const s = Math.sin(a);
  return [v[0], v[1] * c - v[2] * s, v[1] * s + v[2] * c];
}

interface LegFrame {
  /** Thigh world pitch about X (negative: knee forward), knee flexion, foot world pitch (positive: heel up). */
  thigh: number;
  knee: number;
  foot: number;
  /** Wanted world toe position. */
  toe: number[];
}

/**
 * A take whose left leg follows `left(f)` (the hips are placed so the left toe lands where asked) and
 * whose right leg is held in the air (no contact) or, with `rightFlat`, stands flat on y = 0 (moving with
 * the hips).
 * Without toe joints (`toes: false`) `toe` places the point the toe joint would have.
 */
function take(
  frames: number,
  left: (f: number) => LegFrame,
  opts: { toes?: boolean; rightFlat?: boolean } = {},
): Clip {
  const s = makeHumanoid({ toes: opts.toes ?? true });
  const clip = createClip(s, frames, FT, 'heeltoe');
  const n = s.boneCount;
  const setX = (f: number, bone: number, a: number) => {
    const q = quat.setAxisAngle(quat64(), [1, 0, 0], a);
    clip.rotations.set(q, 4 * (f * n + bone));
  };
  for (let f = 0; f < frames; f++) {
    const l = left(f);
    setX(f, s.humanoid[H.LeftUpperLeg], l.thigh);
    setX(f, s.humanoid[H.LeftLowerLeg], l.knee);
    setX(f, s.humanoid[H.LeftFoot], l.foot - l.thigh - l.knee);
    // hips -> toe with these angles (hips rotation identity)
    const knee = rotX([0, -L_THIGH, 0], l.thigh);
    const shin = rotX([0, -L_SHIN, 0], l.thigh + l.knee);
    const toe = rotX(TOE, l.foot);
    const off = [0.1, -0.05 + knee[1] + shin[1] + toe[1], knee[2] + shin[2] + toe[2]];
    const hips = [l.toe[0] - off[0], l.toe[1] - off[1], l.toe[2] - off[2]];
    clip.translations.set(hips, 3 * (f * n + s.humanoid[H.Hips]));
    // the right leg: up in the air, or flat and still (its own hips offset does not matter: same hips)
    if (opts.rightFlat) {
      // knee bent (thigh -b, knee 2b) so the right ankle stands at the flat-foot height -TOE[1] above y 0
      const b = Math.acos(Math.min(1, (hips[1] - 0.05 + TOE[1]) / (L_THIGH + L_SHIN)));
      setX(f, s.humanoid[H.RightUpperLeg], -b);
      setX(f, s.humanoid[H.RightLowerLeg], 2 * b);
      setX(f, s.humanoid[H.RightFoot], -b);
    } else {
      setX(f, s.humanoid[H.RightUpperLeg], -70 * DEG);
      setX(f, s.humanoid[H.RightLowerLeg], 90 * DEG);
    }
  }
  return clip;
}

const smooth = (u: number) => {
  const x = Math.min(1, Math.max(0, u));
  return x * x * (3 - 2 * x);
};

/** Floor through the toes at y = 0. */
const FLOOR: FloorEstimate = { normal: [0, 1, 0], d: 0, method: 'percentile' };
const ALPHA = 30 * DEG;

function probs(F: number, ranges: [number, number][]): Float32Array {
  const p = new Float32Array(F).fill(0.02);
  for (const [a, b] of ranges) p.fill(0.95, a, b);
  return p;
}

function tracks(clip: Clip) {
  const s = clip.skeleton;
  return legTracks(clip, { left: legBones(s, 'left'), right: legBones(s, 'right') });
}

const hdist = (a: Float64Array, ao: number, b: ArrayLike<number>, bo: number) =>
  Math.hypot(a[ao] - b[bo], a[ao + 2] - b[bo + 2]);
const dist3 = (a: Float64Array, ao: number, b: Float64Array, bo: number) =>
  Math.hypot(a[ao] - b[bo], a[ao + 1] - b[bo + 1], a[ao + 2] - b[bo + 2]);

/**
 * A rolling stance: heel strike (toes up, `heelOnly` frames), flat, heel-off (the heel rises 40 deg about
 * the toe); the source toe slides forward `slide` metres per frame all along (`hipsAhead`: the body moves
 * that much further each heel-off frame, so the leg cannot reach the anchored toe with the source foot),
 * then a swing. Heel contact [0, 40), toe contact [strike, 80).
 */
const ROLL = { F: 100, strike: 12, flat: 40, off: 80 };
function rolling(slide: number, opts: { toes?: boolean; hipsAhead?: number } = {}): Clip {
  const { strike, flat, off } = ROLL;
  let z = 0;
  const path: number[] = [];
  for (let f = 0; f < ROLL.F; f++) {
    path.push(z);
    z += f < off ? slide + (f >= flat ? (opts.hipsAhead ?? 0) : 0) : 0.01;
  }
  return take(
    ROLL.F,
    (f) => {
      let foot = 0;
      let y = 0;
      if (f < strike)
        foot = -15 * DEG * (1 - smooth(f / strike)); // toes up, heel on the floor
      else if (f >= flat && f < off) foot = 40 * DEG * smooth((f - flat) / (off - flat - 8));
      else if (f >= off) {
        foot = 20 * DEG;
        y = 0.15 * smooth((f - off) / 6);
      }
      // heel strike: the toe is up while the heel (ankle) is down: put the toe where the rotated foot puts it
      if (f < strike) y = rotX(TOE, foot)[1] - TOE[1];
      return { thigh: -ALPHA, knee: 2 * ALPHA, foot, toe: [0.1, y, path[f]] };
    },
    { toes: opts.toes },
  );
}

function rollingProbs() {
  const F = ROLL.F;
  return {
    probabilities: { left: probs(F, [[0, ROLL.off]]), right: probs(F, []) },
    points: {
      left: { heel: probs(F, [[0, ROLL.flat]]), toe: probs(F, [[ROLL.strike, ROLL.off]]) },
      right: { heel: probs(F, []), toe: probs(F, []) },
    },
  };
}

/**
 * The left toe point per frame of the source and the cleaned clip, by core forward kinematics (not the
 * cleanup's own helpers): the toe joint, or `ankle + R_foot * toeOffset` for a rig without one.
 */
function toeTracks(res: CleanupResult, src: Clip) {
  const s = src.skeleton;
  const n = s.boneCount;
  const toeBone = s.humanoid[H.LeftToes];
  const foot = s.humanoid[H.LeftFoot];
  const off = res.feet.left.toeOffset;
  const of = (clip: Clip) => {
    const out = new Float64Array(3 * clip.frameCount);
    const rot = new Float64Array(4 * n);
    const pos = new Float64Array(3 * n);
    const wr = new Float64Array(4 * n);
    const wp = new Float64Array(3 * n);
    for (let f = 0; f < clip.frameCount; f++) {
      readFrame(clip, f, rot, pos);
      forwardKinematics(s, rot, pos, wr, wp);
      if (toeBone >= 0) out.set(wp.subarray(3 * toeBone, 3 * toeBone + 3), 3 * f);
      else {
        const v = vec3.transformQuat(
          new Float64Array(3) as unknown as vec3,
          off as unknown as vec3,
          wr.subarray(4 * foot, 4 * foot + 4) as quat,
        );
        for (let k = 0; k < 3; k++) out[3 * f + k] = wp[3 * foot + k] + v[k];
      }
    }
    return out;
  };
  return { before: of(src), after: of(res.clip) };
}

describe('heel-off: the toe is pinned and the heel rises as in the source (the source toe slides)', () => {
  const clip = rolling(0.002);
  const res = cleanupClip({ clip, floor: FLOOR, ...rollingProbs() });
  const before = tracks(clip);
  const after = tracks(res.clip);
  const toe = toeTracks(res, clip);

  test('the pinned point: heel from the strike through the flat foot, toe during heel-off', () => {
    const pin = res.feet.left.pin;
    for (let f = 0; f < ROLL.flat; f++) expect(pin[f]).toBe(1);
    for (let f = ROLL.flat; f < ROLL.off; f++) expect(pin[f]).toBe(2);
    expect(res.feet.left.runs.map((r) => [r.point, r.start, r.end, r.from])).toEqual([
      ['heel', 0, ROLL.flat, 'median'],
      ['toe', ROLL.flat, ROLL.off, 'chained'],
    ]);
    // the union is today's per-foot segment
    expect(res.feet.left.segments.map((s) => [s.start, s.end])).toEqual([[0, ROLL.off]]);
  });

  test('the toe stays on its anchor within 1 mm through the heel-off (the source toe slides 8 cm)', () => {
    const run = res.feet.left.runs[1];
    expect(hdist(toe.before, 3 * (ROLL.off - 1), toe.before, 3 * ROLL.flat)).toBeGreaterThan(0.07);
    for (let f = ROLL.flat; f < ROLL.off; f++) {
      expect(hdist(toe.after, 3 * f, run.anchor, 0)).toBeLessThan(1e-3);
      expect(Math.abs(toe.after[3 * f + 1] - toe.before[3 * f + 1])).toBeLessThan(1e-3); // on the floor
    }
  });

  test('the heel rises exactly as in the source: the foot keeps its source rotation (no swing needed)', () => {
    const rise = before.left.ankle[3 * (ROLL.off - 9) + 1] - before.left.ankle[3 * ROLL.flat + 1];
    expect(rise).toBeGreaterThan(0.05);
    for (let f = ROLL.flat; f < ROLL.off; f++)
      expect(Math.abs(after.left.ankle[3 * f + 1] - before.left.ankle[3 * f + 1])).toBeLessThan(1e-3);
    expect(
      res.limits.filter((l) => l.start < ROLL.off && l.end > ROLL.flat && l.kind === 'outOfReach'),
    ).toEqual([]);
  });

  test('no joint steps when the pinned point changes (heel -> toe at frame 40), nor anywhere in the stance', () => {
    const joints = [
      [before.left.knee, after.left.knee],
      [before.left.ankle, after.left.ankle],
      [toe.before, toe.after],
    ] as const;
    for (const [b, a] of joints) {
      for (let f = 1; f < ROLL.off; f++) {
        const sa = dist3(a, 3 * f, a, 3 * f - 3);
        const sb = dist3(b, 3 * f, b, 3 * f - 3);
        // the output moves no more than the source does at that frame, plus 1 mm
        expect(sa).toBeLessThan(sb + 1e-3);
      }
      // at the switch the pinned point does not move at all
    }
    expect(dist3(toe.after, 3 * ROLL.flat, toe.after, 3 * (ROLL.flat - 1))).toBeLessThan(2e-4);
    expect(dist3(after.left.ankle, 3 * (ROLL.flat - 1), after.left.ankle, 3 * (ROLL.flat - 2))).toBeLessThan(
      2e-4,
    );
  });

  test('the metrics measure the pinned point: the heel slide and the toe slide both go to ~0', () => {
    const b = res.metrics.before.left;
    const a = res.metrics.after.left;
    expect(b.slideHeel).toBeGreaterThan(0.07);
    expect(b.slideToe).toBeGreaterThan(0.07);
    expect(a.slideHeel).toBeLessThan(0.002);
    expect(a.slideToe).toBeLessThan(0.002);
    expect(a.pinnedSlide).toBeCloseTo(a.slideHeel + a.slideToe, 12);
    // the version-1 figure stays the ankle's: it moves during the heel-off (the heel rises and turns
    // about the toe) while the toe, the supporting point, does not
    expect(a.slideTotal).toBeGreaterThan(a.pinnedSlide + 0.01);
  });
});

describe('rolling heel -> flat -> toe stays continuous for any slide and heel-off timing', () => {
  test.each([0, 0.001, 0.004])('slide %f m per frame: steps within 1 mm of the source', (slide) => {
    const clip = rolling(slide);
    const res = cleanupClip({ clip, floor: FLOOR, ...rollingProbs() });
    const b = tracks(clip);
    const a = tracks(res.clip);
    const t = toeTracks(res, clip);
    for (const [pb, pa] of [
      [b.left.hip, a.left.hip],
      [b.left.knee, a.left.knee],
      [b.left.ankle, a.left.ankle],
      [t.before, t.after],
    ] as const)
      for (let f = 1; f < ROLL.off; f++)
        expect(dist3(pa, 3 * f, pa, 3 * f - 3)).toBeLessThan(dist3(pb, 3 * f, pb, 3 * f - 3) + 1e-3);
  });

  test('a toe-first stance (forefoot landing, then the heel down): the heel anchor is chained from the toe', () => {
    const F = 70;
    let z = 0;
    const path: number[] = [];
    for (let f = 0; f < F; f++) {
      path.push(z);
      z += 0.003;
    }
    // toe down and heel up 30 deg for [0, 15), the heel comes down over [15, 30), flat after
    const clip = take(F, (f) => ({
      thigh: -ALPHA,
      knee: 2 * ALPHA,
      foot: 30 * DEG * (1 - smooth((f - 15) / 15)),
      toe: [0.1, 0, path[f]],
    }));
    const res = cleanupClip({
      clip,
      floor: FLOOR,
      probabilities: { left: probs(F, [[0, F]]), right: probs(F, []) },
      points: {
        left: { heel: probs(F, [[25, F]]), toe: probs(F, [[0, F]]) },
        right: { heel: probs(F, []), toe: probs(F, []) },
      },
    });
    expect(res.feet.left.runs.map((r) => [r.point, r.start, r.end, r.from])).toEqual([
      ['toe', 0, 25, 'median'],
      ['heel', 25, F, 'chained'],
    ]);
    const a = tracks(res.clip);
    const t = toeTracks(res, clip);
    // the ankle does not step when the heel takes over, and stays put after
    expect(dist3(a.left.ankle, 3 * 25, a.left.ankle, 3 * 24)).toBeLessThan(
      dist3(tracks(clip).left.ankle, 3 * 25, tracks(clip).left.ankle, 3 * 24) + 1e-3,
    );
    for (let f = 26; f < F; f++) expect(hdist(a.left.ankle, 3 * f, a.left.ankle, 3 * 25)).toBeLessThan(1e-3);
    for (let f = 1; f < 25; f++) expect(hdist(t.after, 3 * f, t.after, 0)).toBeLessThan(1e-3);
  });
});

describe('tiptoe: a toe-only contact never brings the heel down', () => {
  const F = 80;
  const clip = take(
    F,
    (f) => ({ thigh: -ALPHA, knee: 2 * ALPHA, foot: 35 * DEG, toe: [0.1, 0, 0.002 * f] }),
    { rightFlat: true },
  );
  const before = tracks(clip);

  test('the detector splits the foot: the toe carries the contact, the heel none', () => {
    const est = ruleContactProbabilities(computeFootTracks(clip));
    const { heel, toe } = est.points.left;
    for (let f = 5; f < F - 5; f++) {
      expect(toe[f]).toBeGreaterThan(0.7);
      expect(heel[f]).toBeLessThan(0.3);
      expect(Math.max(heel[f], toe[f])).toBe(est.left[f]);
    }
  });

  test('the toe is pinned within 1 mm and the heel stays as high as in the source', () => {
    const res = cleanupClip({
      clip,
      floor: FLOOR,
      probabilities: { left: probs(F, [[0, F]]), right: probs(F, []) },
      points: {
        left: { heel: probs(F, []), toe: probs(F, [[0, F]]) },
        right: { heel: probs(F, []), toe: probs(F, []) },
      },
    });
    const after = tracks(res.clip);
    const t = toeTracks(res, clip);
    const heelUp = before.left.ankle[1] - before.left.toe![1];
    expect(heelUp).toBeGreaterThan(0.1);
    for (let f = 0; f < F; f++) {
      expect(res.feet.left.pin[f]).toBe(2);
      expect(hdist(t.after, 3 * f, t.after, 0)).toBeLessThan(1e-3);
      expect(after.left.ankle[3 * f + 1]).toBeGreaterThan(before.left.ankle[3 * f + 1] - 1e-3);
    }
  });
});

describe('out of reach: the foot turns about the toe (the heel rises more), the toe stays', () => {
  // the body runs 6 mm per frame further ahead than the toe during the heel-off: the anchored toe falls
  // 24 cm behind the source's, beyond what the leg reaches with the source's foot
  const clip = rolling(0.002, { hipsAhead: 0.006 });
  const res = cleanupClip({ clip, floor: FLOOR, ...rollingProbs() });
  const before = tracks(clip);
  const after = tracks(res.clip);
  const t = toeTracks(res, clip);

  test('toe within 1 mm of its anchor while the swing stays under 30 deg; heel never lower than the source', () => {
    const run = res.feet.left.runs[1];
    let higher = 0;
    for (let f = ROLL.flat; f < ROLL.off; f++) {
      const err = hdist(t.after, 3 * f, run.anchor, 0);
      const up = after.left.ankle[3 * f + 1] - before.left.ankle[3 * f + 1];
      // the travel guard (issue 20, item 6) lets the contact go where the source travels more than it
      // allows inside this stance (listed for review): there the foot ramps back to the source
      const letGo = res.feet.left.review.some((r) => r.reason === 'travel' && r.start <= f && r.end > f);
      expect(up).toBeGreaterThan(letGo ? -2e-3 : -1e-3);
      higher = Math.max(higher, up);
      // off the anchor only where the leg cannot reach, or where the guard let the contact go
      if (err > 1e-3)
        expect(res.limits.some((l) => l.kind === 'outOfReach' && l.start <= f && l.end > f) || letGo).toBe(
          true,
        );
    }
    // the leg could not reach without the foot turning: the heel went up by more than 1 cm somewhere
    expect(higher).toBeGreaterThan(0.01);
    const pinned = Array.from({ length: ROLL.off - ROLL.flat }, (_, i) =>
      hdist(t.after, 3 * (ROLL.flat + i), run.anchor, 0),
    );
    // (the guard lets the last ~15 frames of the 40 go: the stance travels 40 cm, more than its 29 cm)
    expect(pinned.filter((e) => e < 1e-3).length).toBeGreaterThan(20);
  });

  test('no over-straightening: the hip-ankle distance never exceeds the source + 1 % of the leg (+ 0.1 mm)', () => {
    for (let f = 0; f < ROLL.F; f++) {
      const db = dist3(before.left.hip, 3 * f, before.left.ankle, 3 * f);
      const da = dist3(after.left.hip, 3 * f, after.left.ankle, 3 * f);
      expect(da).toBeLessThan(db + 0.01 * (L_THIGH + L_SHIN) + 1e-4);
    }
  });
});

describe('a rig without toe joints pins a virtual toe', () => {
  const clip = rolling(0.002, { toes: false });
  const res = cleanupClip({ clip, floor: FLOOR, ...rollingProbs() });

  test('the virtual toe: 0.15 L ahead along the stance direction, 0.04 L down, in the foot frame', () => {
    expect(res.feet.left.toePoint).toBe('virtual');
    const off = res.feet.left.toeOffset as [number, number, number];
    const L = res.legLength;
    expect(Math.hypot(...off)).toBeCloseTo(VIRTUAL_TOE_LENGTH * L, 9);
    // the foot is flat and points +Z on the stance frames: forward is +Z, up +Y in the foot's frame
    const reach = Math.sqrt(VIRTUAL_TOE_LENGTH ** 2 - VIRTUAL_TOE_DROP ** 2) * L;
    expect(Math.abs(off[0])).toBeLessThan(1e-9);
    // the heel-off frames under 3 cm of rise count as stance too: a few degrees of pitch at most
    const ang = Math.atan2(-off[1], off[2]) - Math.atan2(VIRTUAL_TOE_DROP, reach / L);
    expect(Math.abs(ang)).toBeLessThan(3 * DEG);
  });

  test('the virtual toe stays within 1 mm during the heel-off', () => {
    const t = toeTracks(res, clip);
    const run = res.feet.left.runs[1];
    expect(run.point).toBe('toe');
    for (let f = ROLL.flat; f < ROLL.off; f++)
      expect(hdist(t.after, 3 * f, run.anchor, 0)).toBeLessThan(1e-3);
  });

  test('the detector has a toe channel there too (computeFootTracks: toePoint, toeVirtual)', () => {
    const tr = computeFootTracks(clip);
    expect(tr.left.toe).toBeNull();
    expect(tr.left.toeVirtual).toBe(true);
    const p = tr.left.toePoint as Float64Array;
    const f = 20;
    expect(dist3(p, 3 * f, tr.left.ankle, 3 * f)).toBeCloseTo(VIRTUAL_TOE_LENGTH * tr.legLength, 6);
    const est = ruleContactProbabilities(tr);
    expect(est.points.left.toe[60]).toBeGreaterThan(0.7);
    expect(est.points.left.heel[60]).toBeLessThan(0.3);
  });
});

describe('cleanup.json version 2: heel and toe channels beside the version-1 per-foot fields', () => {
  const clip = rolling(0.002);
  const res = cleanupClip({ clip, floor: FLOOR, ...rollingProbs() });
  const file = buildCleanupFile({
    input: 'in.bvh',
    output: 'out.bvh',
    source: clip,
    result: res,
    model: 'rule',
    reviewBand: [0.45, 0.65],
    rootCorrection: false,
  });
  const json = JSON.parse(JSON.stringify(file));

  test('version 2; feet.<side>.heel / toe / pin; legs.<side>.toePoint', () => {
    expect(CLEANUP_FILE_VERSION).toBe(2);
    expect(json.version).toBe(2);
    const foot = json.feet.left;
    for (const k of ['heel', 'toe']) {
      expect(Object.keys(foot[k]).sort()).toEqual(['contact', 'probability', 'review', 'segments', 'short']);
      expect(foot[k].probability).toHaveLength(ROLL.F);
    }
    expect(foot.heel.segments.map((s: { start: number; end: number }) => [s.start, s.end])).toEqual([
      [0, ROLL.flat],
    ]);
    expect(foot.toe.segments).toEqual([
      expect.objectContaining({ start: ROLL.strike, end: ROLL.off, pinnedFrames: ROLL.off - ROLL.flat }),
    ]);
    expect(foot.pin.slice(ROLL.flat - 1, ROLL.flat + 1)).toEqual([1, 2]);
    expect(json.legs.left.toePoint).toBe('joint');
    expect(json.legs.left.toeOffset).toBeNull();
  });

  test('the version-1 fields are still there and are the union', () => {
    const foot = json.feet.left;
    for (const k of ['probability', 'contact', 'segments', 'review', 'short']) expect(foot).toHaveProperty(k);
    expect(foot.segments).toHaveLength(1);
    // version 1's segment fields (and the local ground's `level`, also added in issue 20)
    expect(Object.keys(foot.segments[0]).sort()).toEqual(
      ['anchor', 'ankleHeight', 'end', 'ground', 'level', 'lift', 'start'].sort(),
    );
    for (let f = 0; f < ROLL.F; f++) {
      expect(foot.contact[f]).toBe(foot.heel.contact[f] || foot.toe.contact[f] ? 1 : 0);
      expect(foot.contact[f]).toBe(foot.pin[f] ? 1 : 0);
    }
    // the union segment's anchor is its heel run's (the ankle's), as version 1 had it
    expect(foot.segments[0].anchor).toEqual(foot.heel.segments[0].anchor);
  });
});
