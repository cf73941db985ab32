/**
 * The mocap comparison of issue 23 ("beside Kalidokit"): solvers given as {@link PoseSolve} functions
 * (test/helpers/kalidokitPose.ts) run on the same landmark recordings and judged on the same skeleton.
 * Used by test/mocap.kalidokit.test.ts (asserted facts about ours and the conversion) and by
 * `npm run bench -- mocap` (bench/mocapBench.ts: docs/mocap.md's tables).
 *
 * Figures (all from world joint positions / rotations by forward kinematics, internal frame, Y up):
 * - Direction error: the angle between a bone's direction and the take's (test/helpers/mocapJudge.ts: upper
 *   arm, forearm, thigh, shin = joint -> child joint, left and right averaged; spine = hip midpoint ->
 *   shoulder midpoint; head = the Head bone's forward), degrees, mean over frames; the truth turned into the
 *   solver's frame with the heading it reports.
 * - Hips path: mean horizontal distance of the Hips joint from the take's hip midpoint, both relative to
 *   frame 0, cm.
 * - Jitter: mean |x(f+1) - 2 x(f) + x(f-1)| of the wrist (Hand joint) and ankle (Foot joint) positions
 *   relative to the pelvis, mm per frame squared (VIBE's and TCMR's "Accel"; {@link jitterMm}); the take's own
 *   is given as the floor. Frame rates differ per take (7.5-15 fps here, 5 fps for the real squat).
 * - Foot sliding while standing: the mean horizontal speed of the ankle, cm/s, over the frame pairs where the
 *   take's ankle is in contact: within 5 cm of its lowest height in the take and slower than 20 cm/s (the
 *   "low and slow" rule of the foot-contact literature, e.g. the contact labels of Rempe et al. 2020).
 * - Legs leaving the frame: landmarks 25-32 (knees, ankles, heels, toes; with `hips`, also 23/24) get
 *   visibility 0.05, are moved 30 cm in the world landmarks (the judge's `drop`) and put below the image
 *   (y = 1.1) for a stretch; the largest per-frame ankle step (cm, world) into and during the stretch and the
 *   step when the legs come back (the take's own beside them), and the thigh / shin errors inside it.
 */
import { forwardKinematics, HumanBodyBones as H, type Skeleton } from '../../src/core';
import type { LandmarkRecording } from '../../src/puppet';
import type { PosedRun, PoseSolve } from './kalidokitPose';
import { JUDGED, type JudgedBone, loadTake, synthesize, type Take, type Truth } from './mocapJudge';

type V3 = [number, number, number];

/** Camera axes (x right, y down, z away) -> the run's frame `Ry(h) (x, -y, -z)`. */
function toFrame(v: V3, h: number): V3 {
  const x = v[0];
  const z = -v[2];
  return [x * Math.cos(h) + z * Math.sin(h), -v[1], -x * Math.sin(h) + z * Math.cos(h)];
}

/** Joint index per judged HumanBodyBones bone of a skeleton (its `humanoid` map). */
function joints(sk: Skeleton) {
  const j = (h: number) => {
    const b = sk.humanoid[h];
    if (b < 0) throw new Error(`mocapCompare: the skeleton has no HumanBodyBones ${h}`);
    return b;
  };
  return {
    hips: j(H.Hips),
    head: j(H.Head),
    ua: [j(H.LeftUpperArm), j(H.RightUpperArm)],
    la: [j(H.LeftLowerArm), j(H.RightLowerArm)],
    hand: [j(H.LeftHand), j(H.RightHand)],
    ul: [j(H.LeftUpperLeg), j(H.RightUpperLeg)],
    ll: [j(H.LeftLowerLeg), j(H.RightLowerLeg)],
    foot: [j(H.LeftFoot), j(H.RightFoot)],
  };
}

const at = (a: Float64Array, n: number, f: number, b: number): V3 => {
  const i = 3 * (n * f + b);
  return [a[i], a[i + 1], a[i + 2]];
};
const dirOf = (a: V3, b: V3): V3 => {
  const d: V3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const l = Math.hypot(d[0], d[1], d[2]);
  return [d[0] / l, d[1] / l, d[2] / l];
};
const angle = (a: V3, b: V3) =>
  (Math.acos(Math.max(-1, Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]))) * 180) / Math.PI;

/** `q v` for a unit quaternion [x, y, z, w]. */
function qrot(q: ArrayLike<number>, o: number, v: V3): V3 {
  const [x, y, z, w] = [q[o], q[o + 1], q[o + 2], q[o + 3]];
  const tx = 2 * (y * v[2] - z * v[1]);
  const ty = 2 * (z * v[0] - x * v[2]);
  const tz = 2 * (x * v[1] - y * v[0]);
  return [v[0] + w * tx + y * tz - z * ty, v[1] + w * ty + z * tx - x * tz, v[2] + w * tz + x * ty - y * tx];
}

/** The Head bone's forward in the rest pose's terms: R_world R_rest_world^-1 (0, 0, 1). */
function headForwards(run: PosedRun): V3[] {
  const sk = run.skeleton;
  const n = sk.boneCount;
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  forwardKinematics(sk, sk.restRotations, sk.restTranslations, wr, wp);
  const h = sk.humanoid[H.Head];
  const restFwd = qrot([-wr[4 * h], -wr[4 * h + 1], -wr[4 * h + 2], wr[4 * h + 3]], 0, [0, 0, 1]);
  return Array.from({ length: run.frames }, (_, f) => qrot(run.rotations, 4 * (n * f + h), restFwd));
}

/** Direction per judged bone per frame of a run (its own frame). */
export function runDirections(run: PosedRun): Record<JudgedBone, V3[]> {
  const n = run.skeleton.boneCount;
  const J = joints(run.skeleton);
  const P = (f: number, b: number) => at(run.positions, n, f, b);
  const out = Object.fromEntries(JUDGED.map((b) => [b, [] as V3[]])) as Record<JudgedBone, V3[]>;
  const head = headForwards(run);
  for (let f = 0; f < run.frames; f++) {
    for (const s of [0, 1]) {
      const side = s === 0 ? 'Left' : 'Right';
      out[`${side}UpperArm`].push(dirOf(P(f, J.ua[s]), P(f, J.la[s])));
      out[`${side}LowerArm`].push(dirOf(P(f, J.la[s]), P(f, J.hand[s])));
      out[`${side}UpperLeg`].push(dirOf(P(f, J.ul[s]), P(f, J.ll[s])));
      out[`${side}LowerLeg`].push(dirOf(P(f, J.ll[s]), P(f, J.foot[s])));
    }
    const m = (a: V3, b: V3): V3 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
    out.Spine.push(dirOf(m(P(f, J.ul[0]), P(f, J.ul[1])), m(P(f, J.ua[0]), P(f, J.ua[1]))));
    out.Head.push(head[f]);
  }
  return out;
}

/** Bone groups of the tables: left and right averaged. */
export const GROUPS = ['upper arm', 'forearm', 'thigh', 'shin', 'spine', 'head'] as const;
export type Group = (typeof GROUPS)[number];
const GROUP_BONES: Record<Group, JudgedBone[]> = {
  'upper arm': ['LeftUpperArm', 'RightUpperArm'],
  forearm: ['LeftLowerArm', 'RightLowerArm'],
  thigh: ['LeftUpperLeg', 'RightUpperLeg'],
  shin: ['LeftLowerLeg', 'RightLowerLeg'],
  spine: ['Spine'],
  head: ['Head'],
};

export interface Accuracy {
  /** Mean direction error per group, degrees. */
  groups: Record<Group, number>;
  /** Per judged bone, degrees. */
  bones: Record<JudgedBone, number>;
  hipsPathCm: number;
}

/** Direction errors and the hips path of a run against the synthetic truth (module header). */
export function accuracy(run: PosedRun, truth: Truth, keep: (f: number) => boolean = () => true): Accuracy {
  const dirs = runDirections(run);
  const bones = {} as Record<JudgedBone, number>;
  for (const b of JUDGED) {
    let s = 0;
    let c = 0;
    for (let f = 0; f < run.frames; f++)
      if (keep(f)) {
        s += angle(dirs[b][f], toFrame(truth.dirs[b][f], run.heading));
        c++;
      }
    bones[b] = s / Math.max(1, c);
  }
  const groups = Object.fromEntries(
    GROUPS.map((g) => [g, GROUP_BONES[g].reduce((a, b) => a + bones[b], 0) / GROUP_BONES[g].length]),
  ) as Record<Group, number>;
  const n = run.skeleton.boneCount;
  const hb = run.skeleton.humanoid[H.Hips];
  const h0 = at(run.positions, n, 0, hb);
  let path = 0;
  for (let f = 0; f < run.frames; f++) {
    const p = at(run.positions, n, f, hb);
    const t = toFrame(truth.hips[f], run.heading);
    path += Math.hypot(p[0] - h0[0] - t[0], p[2] - h0[2] - t[2]);
  }
  return { groups, bones, hipsPathCm: (100 * path) / run.frames };
}

/**
 * World positions per frame of the wrists and ankles ([left wrist, right wrist, left ankle, right ankle]) and
 * of the pelvis (the hip joints' midpoint).
 */
export interface Ends {
  ends: V3[][];
  pelvis: V3[];
}
const midOf = (a: V3, b: V3): V3 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
export function runEnds(run: PosedRun): Ends {
  const n = run.skeleton.boneCount;
  const J = joints(run.skeleton);
  const track = (b: number) => Array.from({ length: run.frames }, (_, f) => at(run.positions, n, f, b));
  const l = track(J.ul[0]);
  const r = track(J.ul[1]);
  return {
    ends: [J.hand[0], J.hand[1], J.foot[0], J.foot[1]].map(track),
    pelvis: l.map((x, f) => midOf(x, r[f])),
  };
}
export function takeEnds(take: Take): Ends {
  const track = (h: number) => take.frames.map((f) => f.pos.get(h) as V3);
  const l = track(H.LeftUpperLeg);
  const r = track(H.RightUpperLeg);
  return {
    ends: [H.LeftHand, H.RightHand, H.LeftFoot, H.RightFoot].map(track),
    pelvis: l.map((x, f) => midOf(x, r[f])),
  };
}

/**
 * Mean |second difference| over the four end joints relative to the pelvis, mm / frame^2: VIBE's "Accel"
 * (Kocabas et al., CVPR 2020, eval: joints minus the pelvis = the hips' midpoint, then the mean norm of
 * x(f-1) - 2 x(f) + x(f+1), in mm), also reported by TCMR (Choi et al., CVPR 2021).
 */
export function jitterMm(e: Ends): number {
  let s = 0;
  let c = 0;
  const q = e.pelvis;
  for (const p of e.ends)
    for (let f = 1; f + 1 < p.length; f++) {
      let d2 = 0;
      for (let k = 0; k < 3; k++) {
        const a = p[f + 1][k] - q[f + 1][k] - 2 * (p[f][k] - q[f][k]) + (p[f - 1][k] - q[f - 1][k]);
        d2 += a * a;
      }
      s += Math.sqrt(d2);
      c++;
    }
  return (1000 * s) / Math.max(1, c);
}

/**
 * Contact frame pairs per ankle (f -> f + 1) from the take: both frames within `heightM` of the ankle's
 * lowest height in the take, horizontal speed below `speedMs` (module header).
 */
export function takeContacts(take: Take, heightM = 0.05, speedMs = 0.2): boolean[][] {
  return [H.LeftFoot, H.RightFoot].map((h) => {
    const p = take.frames.map((f) => f.pos.get(h) as V3);
    const low = Math.min(...p.map((x) => x[1]));
    return p.map((x, f) => {
      if (f + 1 >= p.length) return false;
      const y = p[f + 1];
      const v = Math.hypot(y[0] - x[0], y[2] - x[2]) * take.fps;
      return x[1] - low < heightM && y[1] - low < heightM && v < speedMs;
    });
  });
}

/** Mean horizontal ankle speed over the contact frame pairs, cm/s (`contacts` null: every pair). */
export function slidingCmS(e: Ends, fps: number, contacts: boolean[][] | null): number {
  let s = 0;
  let c = 0;
  for (const side of [0, 1]) {
    const p = e.ends[2 + side];
    for (let f = 0; f + 1 < p.length; f++)
      if (!contacts || contacts[side][f]) {
        s += Math.hypot(p[f + 1][0] - p[f][0], p[f + 1][2] - p[f][2]) * fps;
        c++;
      }
  }
  return (100 * s) / Math.max(1, c);
}

/** Largest per-frame ankle displacement (either ankle, world) over the steps into frames [from, to), cm. */
export function maxAnkleJumpCm(e: Ends, from: number, to: number): number {
  let m = 0;
  for (const p of [e.ends[2], e.ends[3]])
    for (let f = Math.max(1, from); f < Math.min(p.length, to); f++)
      m = Math.max(m, Math.hypot(p[f][0] - p[f - 1][0], p[f][1] - p[f - 1][1], p[f][2] - p[f - 1][2]));
  return 100 * m;
}

/** Synthetic landmarks with the legs (and with `hips`, the hips too) out of the frame in [from, to). */
export function legsOutOfFrame(take: Take, from: number, to: number, hips: boolean) {
  const ids = [25, 26, 27, 28, 29, 30, 31, 32];
  if (hips) ids.unshift(23, 24);
  const s = synthesize(take, { drop: { landmarks: ids, from, to } });
  for (let f = from; f < to; f++) for (const i of ids) (s.rec.frames[f].landmarks ?? [])[i].y = 1.1;
  return s;
}

/** One solver's figures over the comparison's inputs. */
export interface SolverFigures {
  name: string;
  /** Per take: clean and 1 cm noise. */
  clean: Accuracy[];
  noisy: Accuracy[];
  /** Jitter on the noisy synthetic takes (mean over takes) and on the real squat, mm / frame^2. */
  jitterNoisy: number;
  jitterSquat: number;
  /** Jitter on the clean synthetic takes (mean over takes), mm / frame^2. */
  jitterClean: number;
  /**
   * Foot sliding on contact frames of the clean and noisy synthetic takes (mean over takes), and on the real
   * squat (every frame: the feet stay put), cm/s.
   */
  slidingClean: number;
  slidingNoisy: number;
  slidingSquat: number;
  /**
   * Legs out of the frame [knees down, hips down]: the largest ankle step (cm) into and during the stretch,
   * the step when the legs come back, the thigh and shin errors inside (degrees).
   */
  legsOut: { inCm: number; backCm: number; shinDeg: number; thighDeg: number }[];
}

export interface ComparisonInput {
  /** Takes (test/helpers/mocapJudge.ts `loadTake` options with the file path). */
  takes: { file: string; every: number; max: number; unitScale?: number }[];
  /** The real MediaPipe squat recording (null: left out). */
  squat: LandmarkRecording | null;
  solvers: { name: string; solve: PoseSolve }[];
  /** The legs leave the frame in these frames of the first take. */
  legsOut?: { from: number; to: number };
}

export interface Comparison {
  solvers: SolverFigures[];
  /** The take's own figures: jitter and sliding of the truth (the floor), its largest ankle steps (as `legsOut`). */
  take: { jitter: number; sliding: number; legsInCm: number; legsBackCm: number; contactPairs: number };
  takeNames: string[];
  squatFrames: number;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Run every solver on every input (module header). */
export function compareSolvers(input: ComparisonInput): Comparison {
  const takes = input.takes.map((t) => loadTake(t.file, t));
  const clean = takes.map((t) => synthesize(t));
  const noisy = takes.map((t) => synthesize(t, { noiseM: 0.01, seed: 7 }));
  const contacts = takes.map((t) => takeContacts(t));
  const lo = input.legsOut ?? { from: 40, to: 70 };
  const legs = [false, true].map((hips) => legsOutOfFrame(takes[0], lo.from, lo.to, hips));
  const inside = (f: number) => f >= lo.from && f < lo.to;
  const solvers = input.solvers.map(({ name, solve }): SolverFigures => {
    const cleanRuns = clean.map((s) => solve(s.rec));
    const noisyRuns = noisy.map((s) => solve(s.rec));
    const squatRun = input.squat ? solve(input.squat) : null;
    return {
      name,
      clean: cleanRuns.map((r, i) => accuracy(r, clean[i].truth)),
      jitterClean: mean(cleanRuns.map((r) => jitterMm(runEnds(r)))),
      slidingClean: mean(cleanRuns.map((r, i) => slidingCmS(runEnds(r), takes[i].fps, contacts[i]))),
      noisy: noisyRuns.map((r, i) => accuracy(r, noisy[i].truth)),
      jitterNoisy: mean(noisyRuns.map((r) => jitterMm(runEnds(r)))),
      jitterSquat: squatRun ? jitterMm(runEnds(squatRun)) : Number.NaN,
      slidingNoisy: mean(noisyRuns.map((r, i) => slidingCmS(runEnds(r), takes[i].fps, contacts[i]))),
      slidingSquat:
        squatRun && input.squat ? slidingCmS(runEnds(squatRun), squatFps(input.squat), null) : Number.NaN,
      legsOut: legs.map((s) => {
        const r = solve(s.rec);
        const a = accuracy(r, s.truth, inside);
        const e = runEnds(r);
        return {
          inCm: maxAnkleJumpCm(e, lo.from, lo.to),
          backCm: maxAnkleJumpCm(e, lo.to, lo.to + 1),
          shinDeg: a.groups.shin,
          thighDeg: a.groups.thigh,
        };
      }),
    };
  });
  const te = takes.map(takeEnds);
  return {
    solvers,
    take: {
      jitter: mean(te.map(jitterMm)),
      sliding: mean(te.map((e, i) => slidingCmS(e, takes[i].fps, contacts[i]))),
      legsInCm: maxAnkleJumpCm(te[0], lo.from, lo.to),
      legsBackCm: maxAnkleJumpCm(te[0], lo.to, lo.to + 1),
      contactPairs: contacts.reduce(
        (a, c) => a + c[0].filter(Boolean).length + c[1].filter(Boolean).length,
        0,
      ),
    },
    takeNames: takes.map((t) => `${t.name} (${t.frames.length} frames at ${t.fps.toFixed(1)} fps)`),
    squatFrames: input.squat?.frames.length ?? 0,
  };
}

function squatFps(rec: LandmarkRecording): number {
  const t = rec.frames.map((f) => f.timestampMs);
  return ((t.length - 1) * 1000) / (t[t.length - 1] - t[0]);
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');

/** The tables (markdown) of a comparison, as docs/mocap.md shows them. */
export function comparisonTables(c: Comparison): string {
  const out: string[] = [];
  out.push(
    `Takes: ${c.takeNames.join('; ')}. Mean direction error, degrees (left and right averaged, mean over the takes); hips path, cm.`,
    '',
    `| solver | landmarks | ${GROUPS.join(' | ')} | hips path |`,
    `| --- | --- | ${GROUPS.map(() => '---').join(' | ')} | --- |`,
  );
  for (const [label, key] of [
    ['clean', 'clean'],
    ['1 cm noise', 'noisy'],
  ] as const)
    for (const s of c.solvers) {
      const a = s[key];
      out.push(
        `| ${s.name} | ${label} | ${GROUPS.map((g) => f2(mean(a.map((x) => x.groups[g])))).join(' | ')} | ${f1(mean(a.map((x) => x.hipsPathCm)))} |`,
      );
    }
  out.push(
    '',
    `Jitter (mean |second difference| of wrists and ankles relative to the pelvis, mm/frame², VIBE's Accel) and foot sliding while standing (ankle horizontal speed, cm/s: on the take's contact frames, ${c.take.contactPairs} frame pairs, for the synthetic takes; every frame of the real squat, whose feet stay put). Legs out of the frame: the first take, frames 40-69 (3 s): the largest per-frame ankle step (world, cm) into and during the stretch / when the legs come back, and the mean thigh / shin error inside it, degrees.`,
    '',
    '| solver | jitter: clean / 1 cm noise / real squat | sliding: clean / 1 cm noise / real squat | knees down out of frame: ankle step in / back, thigh / shin | hips down out of frame: ankle step in / back, thigh / shin |',
    '| --- | --- | --- | --- | --- |',
    `| the take (truth) | ${f1(c.take.jitter)} / ${f1(c.take.jitter)} / - | ${f1(c.take.sliding)} / ${f1(c.take.sliding)} / - | ${f1(c.take.legsInCm)} / ${f1(c.take.legsBackCm)}, 0 / 0 | ${f1(c.take.legsInCm)} / ${f1(c.take.legsBackCm)}, 0 / 0 |`,
  );
  for (const s of c.solvers)
    out.push(
      `| ${s.name} | ${f1(s.jitterClean)} / ${f1(s.jitterNoisy)} / ${f1(s.jitterSquat)} | ${f1(s.slidingClean)} / ${f1(s.slidingNoisy)} / ${f1(s.slidingSquat)} | ${s.legsOut.map((l) => `${f1(l.inCm)} / ${f1(l.backCm)}, ${f1(l.thighDeg)} / ${f1(l.shinDeg)}`).join(' | ')} |`,
    );
  return out.join('\n');
}
