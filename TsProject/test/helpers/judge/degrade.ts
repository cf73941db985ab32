/**
 * Degraded copies of a clean take for the foot-slide judge (issue 20): data nobody tuned on, with a frame
 * map back to the clean original so its reference contacts (./reference.ts) carry over. Each copy is BVH
 * text with the original's hierarchy (verbatim); only root position channels change, except for the
 * resampled copies, which rewrite every channel.
 *
 * Kinds (distances in metres in the take's world, converted to file units with the take's scale; "up" is
 * the take's up axis, h1/h2 the two other axes):
 * - `noise`: Gaussian noise, sigma 1 cm, on each root position axis, independently per frame (seeded
 *   mulberry32 + Box-Muller). The ground does not move.
 * - `drift`: the root drifts 5 cm/s horizontally along a seeded direction, plus 2 cm * sin(2 pi t / 5 s)
 *   vertically. The ground does not move (a drifting root: feet that stood still now slide).
 * - `shift`: the whole take moved by +0.5 m along h1, -0.3 m along h2 and +0.1 m up. The ground moves with
 *   it (another world origin).
 * - `fps25`, `fps30`: resampled to 25 or 30 frames per second over the same duration (frames at
 *   t = i / fps while t <= the last frame's time): every joint's rotation by slerp between the two nearest
 *   frames (shortest arc), then back to Euler angles in the joint's own channel order (the solution
 *   nearest the interpolated angles); position channels by linear interpolation. Not made when the take
 *   is already within 1 % of that rate.
 * - `uneven`: the whole body raised 0.2 m (along up) on a stretch of frames [a, b), as if the take had
 *   stepped onto a platform and off it again; the ground moves with the body on the stretch. a is the
 *   frame within 0.5 s of one third of the take where the fewest reference points (heels and toes, both
 *   feet) are in contact on both a - 1 and a (ties: nearest to one third), b likewise near two thirds. In
 *   runs and jumps that is a flight phase (nothing in contact); in walks one foot is always down, so that
 *   foot steps up or down 0.2 m in one frame: the copy records how many points were in contact there.
 * - `slide`: the feet slide while they are planted, as after retargeting onto other proportions: the
 *   root's horizontal travel from the first frame is stretched by 12 % (the body travels 1.12 times as
 *   far as the planted feet were placed for: a walk at 1.2 m/s slides each stance forward at ~0.14 m/s, a
 *   run at 3 m/s at ~0.36 m/s), plus a lateral sway of 3 cm * sin(2 pi t / 0.9 s) (at most 0.21 m/s)
 *   along the horizontal normal of the travel from the first to the last frame (a seeded direction when
 *   that travel is under 0.5 m). The same injection as the embedded default of `kind cleanup`
 *   (tools/make-sliding-sample.mjs). The ground does not move; the truth stays the clean take's
 *   reference contacts (identity frame map): the feet still carry the body there, they just slide.
 *
 * Frame maps: `map[i]` is the clean frame (fractional for resampled copies) that degraded frame i shows;
 * `groundRaise[i]` how far (metres, along up) the ground moved with the body at frame i. `mapReference`
 * gives the reference contacts on the copy's frames: contact of the nearest clean frame, resting level
 * interpolated and raised with the ground.
 */
import { type BvhText, writeBvhText } from './bvhText';
import { SIDES, type TakeFrame } from './legs';
import { FOOT_POINTS, type ReferenceContacts } from './reference';

export type DegradationKind = 'noise' | 'drift' | 'shift' | 'fps25' | 'fps30' | 'uneven' | 'slide';
export const DEGRADATIONS: readonly DegradationKind[] = [
  'noise',
  'drift',
  'shift',
  'fps25',
  'fps30',
  'uneven',
  'slide',
];

/** Numbers of the `slide` copy (see the module doc). */
export const SLIDE = {
  /** Factor on the root's horizontal travel from the first frame. */
  stretch: 1.12,
  /** Lateral sway amplitude, m. */
  sway: 0.03,
  /** Lateral sway period, s. */
  swayPeriod: 0.9,
  /** Under this much travel (first to last frame, m), the sway takes a seeded direction. */
  minTravel: 0.5,
} as const;

/** A degraded copy of a clean take. */
export interface DegradedCopy {
  kind: DegradationKind;
  /** BVH text: the original's hierarchy, the degraded motion. */
  text: string;
  frameCount: number;
  /** Seconds. */
  frameTime: number;
  /** `Float64Array(frameCount)`: the clean frame shown by each frame (fractional when resampled). */
  map: Float64Array;
  /** `Float64Array(frameCount)`: metres the ground moved up with the body at each frame. */
  groundRaise: Float64Array;
  /** What was done, in words (with the chosen frames where it matters). */
  note: string;
}

/** Deterministic PRNG (mulberry32), uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples from a uniform PRNG (Box-Muller). */
export function gaussian(rand: () => number): () => number {
  return () => {
    const u = Math.max(rand(), 1e-300);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
}

/** A small string hash (FNV-1a) for per-take seeds. */
export function hashSeed(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** Channel columns of the root's X, Y, Z position. */
function rootPositionColumns(bvh: BvhText): [number, number, number] {
  const root = bvh.joints.findIndex((j) => j.parent < 0);
  const j = bvh.joints[root];
  const cols = [0, 1, 2].map((a) => {
    const k = j.channels.indexOf(`${'XYZ'[a]}position`);
    if (k < 0)
      throw new Error(
        `${bvh.fileName}: the root ${j.name} has no ${'XYZ'[a]}position channel; root degradations need all three`,
      );
    return j.firstChannel + k;
  });
  return cols as [number, number, number];
}

/** Copy of `values` with a world offset (metres, per frame) added to the root position channels. */
function offsetRoot(bvh: BvhText, scale: number, offset: (f: number, out: number[]) => void): Float64Array {
  const cols = rootPositionColumns(bvh);
  const v = bvh.values.slice();
  const C = bvh.channelCount;
  const o = [0, 0, 0];
  for (let f = 0; f < bvh.frameCount; f++) {
    offset(f, o);
    for (let a = 0; a < 3; a++) v[f * C + cols[a]] += o[a] / scale;
  }
  return v;
}

function identityMap(F: number): Float64Array {
  const m = new Float64Array(F);
  for (let f = 0; f < F; f++) m[f] = f;
  return m;
}

function copyOf(
  bvh: BvhText,
  kind: DegradationKind,
  values: Float64Array,
  frameTime: number,
  map: Float64Array,
  groundRaise: Float64Array,
  note: string,
): DegradedCopy {
  return {
    kind,
    text: writeBvhText(bvh, values, frameTime),
    frameCount: map.length,
    frameTime,
    map,
    groundRaise,
    note,
  };
}

// ---------------------------------------------------------------------------------------------
// Rotations for resampling

type Quat = [number, number, number, number];

function quatMul(a: Quat, b: Quat): Quat {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

/** Quaternion of intrinsic rotations about `axes` (0 X, 1 Y, 2 Z) by `deg`, composed in that order. */
export function eulerToQuat(axes: readonly number[], deg: readonly number[]): Quat {
  let q: Quat = [0, 0, 0, 1];
  for (let i = 0; i < axes.length; i++) {
    const h = (deg[i] * Math.PI) / 360;
    const r: Quat = [0, 0, 0, Math.cos(h)];
    r[axes[i]] = Math.sin(h);
    q = quatMul(q, r);
  }
  return q;
}

export function slerp(a: Quat, b: Quat, t: number): Quat {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const bb: Quat = d < 0 ? [-b[0], -b[1], -b[2], -b[3]] : [...b];
  d = Math.abs(d);
  let wa = 1 - t;
  let wb = t;
  if (d < 0.9999995) {
    const th = Math.acos(Math.min(1, d));
    const s = Math.sin(th);
    wa = Math.sin((1 - t) * th) / s;
    wb = Math.sin(t * th) / s;
  }
  const q: Quat = [0, 0, 0, 0];
  for (let i = 0; i < 4; i++) q[i] = wa * a[i] + wb * bb[i];
  const n = Math.hypot(q[0], q[1], q[2], q[3]);
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

function quatToMatrix(q: Quat): number[][] {
  const [x, y, z, w] = q;
  return [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
}

const wrapNear = (a: number, ref: number) => a + 360 * Math.round((ref - a) / 360);

/**
 * Euler angles (degrees) about three distinct `axes`, composed in that order, of the rotation `q`: of the
 * two solutions, the one nearest `near` after moving each angle by whole turns. Null when the
 * decomposition does not reproduce `q` (gimbal lock).
 * Formulas: for R = R_i(a) R_j(b) R_k(c) with s = +1 when (i, j, k) is a cyclic order of (X, Y, Z), else
 * -1: b = asin(s R[i][k]), a = atan2(-s R[j][k], R[k][k]), c = atan2(-s R[i][j], R[i][i]); the other
 * solution is (a + 180, 180 - b, c + 180).
 */
export function quatToEuler(q: Quat, axes: readonly number[], near: readonly number[]): number[] | null {
  const [i, j, k] = axes;
  const s = (j - i + 3) % 3 === 1 ? 1 : -1;
  const R = quatToMatrix(q);
  const D = 180 / Math.PI;
  const b = Math.asin(Math.max(-1, Math.min(1, s * R[i][k]))) * D;
  const a = Math.atan2(-s * R[j][k], R[k][k]) * D;
  const c = Math.atan2(-s * R[i][j], R[i][i]) * D;
  const cands = [
    [a, b, c],
    [a + 180, 180 - b, c + 180],
  ].map((e) => e.map((x, n) => wrapNear(x, near[n])));
  const err = (e: number[]) => e.reduce((acc, x, n) => acc + (x - near[n]) ** 2, 0);
  const best = err(cands[0]) <= err(cands[1]) ? cands[0] : cands[1];
  const back = eulerToQuat(axes, best);
  const dot = Math.abs(back[0] * q[0] + back[1] * q[1] + back[2] * q[2] + back[3] * q[3]);
  return dot > 1 - 1e-9 ? best : null;
}

/**
 * The take resampled to `fps` (see the module doc).
 * @returns values and the fractional clean frame of each new frame.
 */
export function resampleValues(bvh: BvhText, fps: number): { values: Float64Array; map: Float64Array } {
  const F = bvh.frameCount;
  const C = bvh.channelCount;
  const duration = (F - 1) * bvh.frameTime;
  const n = Math.floor(duration * fps + 1e-9) + 1;
  const map = new Float64Array(n);
  const values = new Float64Array(n * C);
  const joints = bvh.joints.map((j) => {
    const rot: number[] = [];
    const axes: number[] = [];
    j.channels.forEach((c, k) => {
      if (c.endsWith('rotation')) {
        rot.push(j.firstChannel + k);
        axes.push(c.charCodeAt(0) - 88);
      }
    });
    const slerpable = axes.length === 3 && new Set(axes).size === 3;
    return { rot, axes, slerpable };
  });
  for (let i = 0; i < n; i++) {
    const x = Math.min(F - 1, i / fps / bvh.frameTime);
    map[i] = x;
    const f0 = Math.floor(x);
    const f1 = Math.min(F - 1, f0 + 1);
    const t = x - f0;
    // linear first (positions, and the reference angles for the Euler solution)
    for (let c = 0; c < C; c++)
      values[i * C + c] = (1 - t) * bvh.values[f0 * C + c] + t * bvh.values[f1 * C + c];
    if (t === 0) continue;
    for (const j of joints) {
      if (!j.slerpable) continue;
      const e0 = j.rot.map((c) => bvh.values[f0 * C + c]);
      const e1 = j.rot.map((c) => bvh.values[f1 * C + c]);
      const q = slerp(eulerToQuat(j.axes, e0), eulerToQuat(j.axes, e1), t);
      const near = t < 0.5 ? e0 : e1; // the nearer frame's angles: no jump of whole turns between frames
      const e = quatToEuler(q, j.axes, near);
      if (e) for (let k = 0; k < 3; k++) values[i * C + j.rot[k]] = e[k];
    }
  }
  return { values, map };
}

/** Frames (of f-1 and f) where points are in reference contact on both frames. */
function contactsAcross(ref: ReferenceContacts, f: number): number {
  let n = 0;
  for (const side of SIDES)
    for (const p of FOOT_POINTS)
      if (ref.points[side][p].contact[f] && ref.points[side][p].contact[f - 1]) n++;
  return n;
}

function quietFrame(
  ref: ReferenceContacts,
  target: number,
  halfWindow: number,
): { frame: number; contacts: number } {
  const F = ref.frameCount;
  let best = -1;
  let bestN = Number.POSITIVE_INFINITY;
  for (let f = Math.max(1, target - halfWindow); f <= Math.min(F - 1, target + halfWindow); f++) {
    const n = contactsAcross(ref, f);
    if (n < bestN || (n === bestN && Math.abs(f - target) < Math.abs(best - target))) {
      best = f;
      bestN = n;
    }
  }
  return { frame: best, contacts: bestN };
}

/**
 * One degraded copy of a clean take.
 * @param frame how the take was read (./legs.ts `legTrack`).
 * @param ref the clean take's reference contacts (for `uneven`).
 * @param seed PRNG seed for `noise` and `drift`.
 * @returns the copy, or null for a resampling to the take's own rate.
 * @throws Error when the root lacks a position channel (root degradations).
 */
export function degradedCopy(
  bvh: BvhText,
  frame: TakeFrame,
  ref: ReferenceContacts,
  kind: DegradationKind,
  seed = 1,
): DegradedCopy | null {
  const F = bvh.frameCount;
  const up = frame.up;
  const [h1, h2] = [0, 1, 2].filter((a) => a !== up.axis);
  const zeros = new Float64Array(F);
  if (kind === 'noise') {
    const g = gaussian(mulberry32(seed));
    const v = offsetRoot(bvh, frame.scale, (_f, o) => {
      for (let a = 0; a < 3; a++) o[a] = 0.01 * g();
    });
    return copyOf(
      bvh,
      kind,
      v,
      bvh.frameTime,
      identityMap(F),
      zeros,
      'root position + N(0, 1 cm) per axis and frame',
    );
  }
  if (kind === 'drift') {
    const ang = 2 * Math.PI * mulberry32(seed)();
    const v = offsetRoot(bvh, frame.scale, (f, o) => {
      const t = f * bvh.frameTime;
      o[h1] = 0.05 * t * Math.cos(ang);
      o[h2] = 0.05 * t * Math.sin(ang);
      o[up.axis] = up.sign * 0.02 * Math.sin((2 * Math.PI * t) / 5);
    });
    return copyOf(
      bvh,
      kind,
      v,
      bvh.frameTime,
      identityMap(F),
      zeros,
      'root drifts 5 cm/s horizontally, 2 cm vertical sine (5 s)',
    );
  }
  if (kind === 'shift') {
    const v = offsetRoot(bvh, frame.scale, (_f, o) => {
      o[h1] = 0.5;
      o[h2] = -0.3;
      o[up.axis] = up.sign * 0.1;
    });
    return copyOf(
      bvh,
      kind,
      v,
      bvh.frameTime,
      identityMap(F),
      new Float64Array(F).fill(0.1),
      'whole take moved (0.5, -0.3) m horizontally, 0.1 m up',
    );
  }
  if (kind === 'fps25' || kind === 'fps30') {
    const fps = kind === 'fps25' ? 25 : 30;
    if (Math.abs(1 / bvh.frameTime / fps - 1) < 0.01) return null;
    const { values, map } = resampleValues(bvh, fps);
    return copyOf(
      bvh,
      kind,
      values,
      1 / fps,
      map,
      new Float64Array(map.length),
      `resampled ${(1 / bvh.frameTime).toFixed(1)} -> ${fps} fps (slerp, lerp)`,
    );
  }
  if (kind === 'slide') {
    const cols = rootPositionColumns(bvh);
    const C = bvh.channelCount;
    const at = (f: number, a: number) => bvh.values[f * C + cols[a]] * frame.scale;
    const d1 = at(F - 1, h1) - at(0, h1);
    const d2 = at(F - 1, h2) - at(0, h2);
    const travel = Math.hypot(d1, d2);
    let n1: number;
    let n2: number;
    if (travel >= SLIDE.minTravel) {
      n1 = -d2 / travel;
      n2 = d1 / travel;
    } else {
      const ang = 2 * Math.PI * mulberry32(seed)();
      n1 = Math.cos(ang);
      n2 = Math.sin(ang);
    }
    const v = offsetRoot(bvh, frame.scale, (f, o) => {
      const t = f * bvh.frameTime;
      const sway = SLIDE.sway * Math.sin((2 * Math.PI * t) / SLIDE.swayPeriod);
      o[h1] = (SLIDE.stretch - 1) * (at(f, h1) - at(0, h1)) + sway * n1;
      o[h2] = (SLIDE.stretch - 1) * (at(f, h2) - at(0, h2)) + sway * n2;
      o[up.axis] = 0;
    });
    return copyOf(
      bvh,
      kind,
      v,
      bvh.frameTime,
      identityMap(F),
      zeros,
      `root travel stretched x${SLIDE.stretch} horizontally (${travel.toFixed(2)} m first to last frame), ` +
        `${SLIDE.sway * 100} cm lateral sway (${SLIDE.swayPeriod} s)${travel >= SLIDE.minTravel ? '' : ' along a seeded direction'}`,
    );
  }
  // uneven
  const half = Math.max(1, Math.round(0.5 / bvh.frameTime));
  const a = quietFrame(ref, Math.round(F / 3), half);
  const b = quietFrame(ref, Math.round((2 * F) / 3), half);
  const raise = new Float64Array(F);
  for (let f = a.frame; f < b.frame; f++) raise[f] = 0.2;
  const v = offsetRoot(bvh, frame.scale, (f, o) => {
    o[0] = 0;
    o[1] = 0;
    o[2] = 0;
    o[up.axis] = up.sign * raise[f];
  });
  return copyOf(
    bvh,
    kind,
    v,
    bvh.frameTime,
    identityMap(F),
    raise,
    `body raised 0.2 m on frames [${a.frame}, ${b.frame}) (points in contact across the edges: ${a.contacts}, ${b.contacts})`,
  );
}

/** All degraded copies of a clean take (resamplings to its own rate left out). */
export function degradedCopies(
  bvh: BvhText,
  frame: TakeFrame,
  ref: ReferenceContacts,
  seed = 1,
): DegradedCopy[] {
  const out: DegradedCopy[] = [];
  for (const kind of DEGRADATIONS) {
    const c = degradedCopy(bvh, frame, ref, kind, seed);
    if (c) out.push(c);
  }
  return out;
}

/** The clean reference carried over to a copy's frames (see the module doc). */
export function mapReference(
  ref: ReferenceContacts,
  copy: Pick<DegradedCopy, 'map' | 'groundRaise'>,
): ReferenceContacts {
  const n = copy.map.length;
  const F = ref.frameCount;
  const points = {} as ReferenceContacts['points'];
  for (const side of SIDES) {
    points[side] = {} as ReferenceContacts['points'][typeof side];
    for (const p of FOOT_POINTS) {
      const src = ref.points[side][p];
      const contact = new Uint8Array(n);
      const groundLevel = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = copy.map[i];
        const f0 = Math.min(F - 1, Math.floor(x));
        const f1 = Math.min(F - 1, f0 + 1);
        const t = x - f0;
        contact[i] = src.contact[Math.min(F - 1, Math.round(x))];
        groundLevel[i] = (1 - t) * src.groundLevel[f0] + t * src.groundLevel[f1] + copy.groundRaise[i];
      }
      points[side][p] = { contact, groundLevel };
    }
  }
  return { frameCount: n, points };
}
