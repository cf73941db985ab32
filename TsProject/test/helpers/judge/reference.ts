/**
 * The reference contact definition of the foot-slide judge (issue 20). It is written down here so it can
 * be quoted (model card, README) and implemented apart from every detector it judges (src/contact's rule
 * and model, src/cleanup, any teacher): it reads the judge's own forward kinematics (./legs.ts) and
 * nothing of src.
 *
 * ## Reference contacts (quotable)
 *
 * Points, per side: the heel is the ankle joint; the toe is the toe joint (or, without one, the mean of
 * the foot joint's children and End Sites, see ./legs.ts). Heights are along the take's up axis,
 * "horizontal" is the plane normal to it; metres, seconds.
 *
 * 1. Velocity. v(f) = (p(f + k) - p(f - k)) / (t(f + k) - t(f - k)) with k = max(1, round(fps / 30))
 *    (a centred difference over about 67 ms, indices clamped at the ends), so per-frame jitter of a few
 *    millimetres does not read as motion at 120 fps.
 * 2. Still. A frame is still for a point when its horizontal speed and its vertical speed are both below
 *    0.25 m/s.
 * 3. Local resting level. L(f) = the lowest height of the point over its still frames within 0.25 s of f
 *    (undefined when it has none). The window is shorter than a step's swing (0.35-0.5 s in walks and
 *    runs), so a foot stepping onto a raised surface rests at the raised level from its first still frame
 *    there: raised ground is allowed, no single floor is assumed.
 * 4. Near the ground. L(f) must be at most 0.30 m above G(f), the lowest still height of any of the four
 *    points (both heels, both toes) within 1 s of f: a foot held still in the air higher than that (a
 *    held kick, an arabesque) is not resting; one held lower cannot be told from a foot on a 30 cm step
 *    by kinematics alone and counts as a contact on raised ground.
 * 5. Contact. The point is in contact at f when f is still for it and its height is within 0.04 m above
 *    L(f) (and 4. holds). Runs of contact frames shorter than 0.06 s (n frames last n / fps seconds) are
 *    dropped: a ballistic foot is slower than 0.25 m/s for at most 2 x 0.25 / 9.81 = 0.051 s at the top
 *    of a hop. (0.06 s is 2 frames at 25-30 fps, 4 at 60, 8 at 120: a running foot's heel or toe is
 *    still for only 2-3 frames at 30 fps.)
 * 6. A foot is in contact when its heel or its toe is. The supporting point of a foot is its heel while
 *    the heel is in contact, else its toe while the toe is in contact.
 *
 * Robustness: windows are in seconds (the same contacts at 25, 30, 60 or 120 fps up to a frame); the
 * level is local in time, so slow root drift or a raised stretch moves it with the take; the reference is
 * computed on the CLEAN take only, and degraded copies (./degrade.ts) are judged against the clean
 * original's contacts carried over through their frame maps, never against contacts read from the
 * degraded motion.
 *
 * The level used to measure penetration, `groundLevel`, is L(f) where it is defined and otherwise the
 * L of the nearest frame in time that has one (a foot in the air is held to the level it last or next
 * rests at).
 *
 * What it finds on the shared takes (checked frame by frame on printed heights and speeds): in the
 * Bandai walk each stance is one contact run per point (left foot frames 45-59 of a 32-frame cycle, the
 * heel supporting to frame 56, then the toe); the feet of the 33 takes are in contact on 5-100 % of the
 * frames (a high-kick dance 5-10 %, a standing basketball dribble 98-100 %); CMU 001_08 (iClone) has
 * contacts on the ground and on a platform 0.9 m up the child climbs onto, CMU 01_14 on the ground and
 * 1.45 m up where the feet hook over a bar. Known limits: a heel held still on tiptoe for more than
 * 0.25 s becomes a heel contact at the raised level (the toe is in contact too, so the foot's contact is
 * right; only the supporting point is the heel); a 30 fps run's stance is 2-3 still frames per point.
 */
import { type LegTrack, SIDES, type Side } from './legs';

/** The two points of a foot. */
export type FootPoint = 'heel' | 'toe';
export const FOOT_POINTS: readonly FootPoint[] = ['heel', 'toe'];

/** Numbers of the definition (see the module doc). */
export const REFERENCE = {
  /** Centred-difference half window, seconds (k = max(1, round(fps * this))). */
  velocityHalfWindow: 1 / 30,
  /** Still: horizontal and vertical speed below this, m/s. */
  stillSpeed: 0.25,
  /** Window of the local resting level, +- seconds. */
  levelWindow: 0.25,
  /** Contact: height at most this above the local resting level, m. */
  levelTolerance: 0.04,
  /** Window of the lowest level of all four points, +- seconds. */
  groundWindow: 1,
  /** The resting level at most this above the lowest level of all four points, m. */
  raisedGroundMax: 0.3,
  /** Contact runs shorter than this are dropped, seconds. */
  minContact: 0.06,
} as const;

/** Reference contacts of one point. */
export interface PointContact {
  /** `Uint8Array(frameCount)`: 1 in contact. */
  contact: Uint8Array;
  /** `Float64Array(frameCount)`: the resting level along up, metres (NaN where the point is never still). */
  groundLevel: Float64Array;
}

/** Reference contacts of a take. */
export interface ReferenceContacts {
  frameCount: number;
  points: Record<Side, Record<FootPoint, PointContact>>;
}

const height = (track: LegTrack, p: Float64Array, f: number) => track.up.sign * p[3 * f + track.up.axis];

/** Still frames of a point (rule 2) and their heights. */
function stillFrames(track: LegTrack, p: Float64Array): { still: Uint8Array; h: Float64Array } {
  const F = track.frameCount;
  const fps = 1 / track.frameTime;
  const k = Math.max(1, Math.round(fps * REFERENCE.velocityHalfWindow));
  const ax = track.up.axis;
  const still = new Uint8Array(F);
  const h = new Float64Array(F);
  for (let f = 0; f < F; f++) {
    h[f] = height(track, p, f);
    const a = Math.max(0, f - k);
    const b = Math.min(F - 1, f + k);
    if (b === a) continue;
    const dt = (b - a) * track.frameTime;
    let h2 = 0;
    let v = 0;
    for (let c = 0; c < 3; c++) {
      const d = (p[3 * b + c] - p[3 * a + c]) / dt;
      if (c === ax) v = Math.abs(d);
      else h2 += d * d;
    }
    still[f] = Math.sqrt(h2) < REFERENCE.stillSpeed && v < REFERENCE.stillSpeed ? 1 : 0;
  }
  return { still, h };
}

/** Sliding minimum of `h` over frames with `mask` set, within +-`w` frames; NaN where none. */
function windowMin(h: Float64Array, mask: Uint8Array, w: number): Float64Array {
  const F = h.length;
  const out = new Float64Array(F).fill(Number.NaN);
  // monotone deque of indices with increasing h
  const dq = new Int32Array(F);
  let head = 0;
  let tail = 0;
  let next = 0;
  for (let f = 0; f < F; f++) {
    const hi = Math.min(F - 1, f + w);
    for (; next <= hi; next++) {
      if (!mask[next]) continue;
      while (tail > head && h[dq[tail - 1]] >= h[next]) tail--;
      dq[tail++] = next;
    }
    while (tail > head && dq[head] < f - w) head++;
    if (tail > head) out[f] = h[dq[head]];
  }
  return out;
}

/** Drop runs of 1 shorter than `minFrames` frames. */
function dropShortRuns(c: Uint8Array, minFrames: number): void {
  const F = c.length;
  let f = 0;
  while (f < F) {
    if (!c[f]) {
      f++;
      continue;
    }
    let e = f;
    while (e < F && c[e]) e++;
    if (e - f < minFrames) c.fill(0, f, e);
    f = e;
  }
}

/** `groundLevel`: L where defined, else the L of the nearest frame that has one. */
function fillNearest(L: Float64Array): Float64Array {
  const F = L.length;
  const out = new Float64Array(F).fill(Number.NaN);
  let last = -1;
  const prevIdx = new Int32Array(F).fill(-1);
  for (let f = 0; f < F; f++) {
    if (!Number.isNaN(L[f])) last = f;
    prevIdx[f] = last;
  }
  let nxt = -1;
  for (let f = F - 1; f >= 0; f--) {
    if (!Number.isNaN(L[f])) nxt = f;
    const p = prevIdx[f];
    if (p < 0 && nxt < 0) continue;
    const use = p < 0 ? nxt : nxt < 0 ? p : f - p <= nxt - f ? p : nxt;
    out[f] = L[use];
  }
  return out;
}

/**
 * Reference contacts of a clean take (definition in the module doc).
 * @param track the take's leg points (./legs.ts `legTrack`), metres, file axes.
 */
export function referenceContacts(track: LegTrack): ReferenceContacts {
  const F = track.frameCount;
  const fps = 1 / track.frameTime;
  const wLevel = Math.max(0, Math.round(REFERENCE.levelWindow * fps));
  const wGround = Math.max(0, Math.round(REFERENCE.groundWindow * fps));
  const minFrames = Math.max(1, Math.ceil(REFERENCE.minContact * fps - 1e-9));
  const pts: { side: Side; point: FootPoint; still: Uint8Array; h: Float64Array }[] = [];
  for (const side of SIDES)
    for (const point of FOOT_POINTS) {
      const p = point === 'heel' ? track.points[side].ankle : track.points[side].toe;
      pts.push({ side, point, ...stillFrames(track, p) });
    }
  // G: lowest still height of any point within +-groundWindow
  const lowest = new Float64Array(F).fill(Number.POSITIVE_INFINITY);
  const anyStill = new Uint8Array(F);
  for (const q of pts)
    for (let f = 0; f < F; f++)
      if (q.still[f]) {
        anyStill[f] = 1;
        if (q.h[f] < lowest[f]) lowest[f] = q.h[f];
      }
  const G = windowMin(lowest, anyStill, wGround);
  const points = {} as ReferenceContacts['points'];
  for (const side of SIDES) points[side] = {} as Record<FootPoint, PointContact>;
  for (const q of pts) {
    const L = windowMin(q.h, q.still, wLevel);
    const contact = new Uint8Array(F);
    for (let f = 0; f < F; f++) {
      if (!q.still[f] || Number.isNaN(L[f])) continue;
      if (q.h[f] > L[f] + REFERENCE.levelTolerance) continue;
      if (L[f] > G[f] + REFERENCE.raisedGroundMax) continue;
      contact[f] = 1;
    }
    dropShortRuns(contact, minFrames);
    points[q.side][q.point] = { contact, groundLevel: fillNearest(L) };
  }
  return { frameCount: F, points };
}

/** Per foot: 1 where the heel or the toe is in reference contact. */
export function footContact(ref: ReferenceContacts, side: Side): Uint8Array {
  const h = ref.points[side].heel.contact;
  const t = ref.points[side].toe.contact;
  const out = new Uint8Array(ref.frameCount);
  for (let f = 0; f < ref.frameCount; f++) out[f] = h[f] | t[f];
  return out;
}
