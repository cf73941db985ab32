/**
 * Heel and toe contact channels (issue 20, item 1): which point of a foot in contact carries it. Four
 * channels per take: left/right heel (the ankle joint) and left/right toe (the toe joint, or the virtual
 * toe of src/cleanup/toePoint.ts on a rig without one). Engine-free; set-up time code.
 *
 * The foot's own probability P (the rule's or the learned model's, unchanged: the per-foot detector)
 * is split between its two points by a rule on top of it:
 * - per point, a rule probability from that point alone, as the baseline rule (./rule.ts) but with its
 *   own height and speed: `r = min(sigmoid(s (1 - h / Hp)), sigmoid(s (1 - v / Vp)))`, s = 6, h the
 *   point's height above its contact level (the 5th percentile of that point's height over the foot's
 *   frames, at most the 5th percentile over both feet plus Hp: marker sets seat one ankle up to 2 cm
 *   higher than the other, and a foot may stand on its toes all take), v its horizontal speed (central difference over +-1/60 s, at least one frame),
 *   both in leg lengths L. Heel: Hp = `HEEL_HEIGHT` = 0.03 L (2.7 cm at L = 0.9 m) and Vp =
 *   `HEEL_SPEED` = 0.3 L/s: a heel 3 cm up is off the ground (heel-off starts with the heel rising while
 *   the ankle barely moves forward). Toe: the baseline rule's 0.06 L and 0.5 L/s.
 * - `P_heel = P * r_heel / max(r_heel, r_toe)`, `P_toe = P * r_toe / max(r_heel, r_toe)` (computed from
 *   log-sigmoids, so two tiny rule values still compare): the point that matches the rule better
 *   carries the whole P, the other a share; on a flat foot both are ~P. So max(P_heel, P_toe) = P
 *   exactly: the union of the two channels is the per-foot channel of before issue 20.
 * The learned model (src/contact/mlp.ts, model/contact.onnx) is not retrained for points: it stays the
 * per-foot detector and this rule splits its output.
 */
import { gridToFrames } from './features';
import { type FloorEstimate, quantile } from './floor';
import type { LocalGround } from './ground';
import { RULE_HEIGHT, RULE_SHARPNESS, RULE_SPEED } from './rule';
import type { FootTracks } from './tracks';

/** Heel contact height above the heel's contact level, leg lengths. */
export const HEEL_HEIGHT = 0.03;
/** Heel contact horizontal speed, leg lengths per second. */
export const HEEL_SPEED = 0.3;
/** Toe contact height and speed: the baseline rule's. */
export const TOE_HEIGHT = RULE_HEIGHT;
/** Toe contact horizontal speed, leg lengths per second: the baseline rule's. */
export const TOE_SPEED = RULE_SPEED;

/** Heel and toe contact probability per frame of one foot (`Float32Array(frameCount)` each). */
export interface PointProbabilities {
  heel: Float32Array;
  toe: Float32Array;
}

/** {@link PointProbabilities} of both feet. */
export type HeelToeProbabilities = { left: PointProbabilities; right: PointProbabilities };

/** log(sigmoid(x)), stable for large |x|. */
function logSigmoid(x: number): number {
  return x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x));
}

/**
 * Per frame of one foot, log of the point rule (see the module doc) of the heel and the toe. The toe is
 * the track's `toePoint` (its `toe`, else its ankle, when a caller built tracks without it).
 * @returns `[logHeel, logToe]`, `Float64Array(frameCount)` each.
 */
export function pointRuleLogs(
  tracks: FootTracks,
  floor: FloorEstimate,
  side: 'left' | 'right',
  ground?: LocalGround,
): [Float64Array, Float64Array] {
  const F = tracks.frameCount;
  const L = tracks.legLength;
  const n = floor.normal;
  const height = (p: Float64Array, f: number) =>
    n[0] * p[3 * f] + n[1] * p[3 * f + 1] + n[2] * p[3 * f + 2] + floor.d;
  // the foot's own level (a marker set can seat one ankle 2 cm higher than the other), but no higher
  // than both feet's level plus the point's height threshold (a foot on its toes all take long)
  const levelOf = (a: Float64Array, b: Float64Array, limit: number) => {
    const h = new Float64Array(2 * F);
    for (let f = 0; f < F; f++) {
      h[f] = height(a, f);
      h[F + f] = height(b, f);
    }
    return Math.min(quantile(h.subarray(0, F), 0.05), quantile(h, 0.05) + limit * L);
  };
  const other = side === 'left' ? tracks.right : tracks.left;
  const heelLevel = levelOf(tracks[side].ankle, other.ankle, HEEL_HEIGHT);
  const toeOf = (l: FootTracks['left']) => l.toePoint ?? l.toe ?? l.ankle;
  const toeLevel = levelOf(toeOf(tracks[side]), toeOf(other), TOE_HEIGHT);
  const k = Math.max(1, Math.round(1 / (60 * tracks.frameTime)));
  const speed = (p: Float64Array, f: number) => {
    const f0 = Math.max(0, f - k);
    const f1 = Math.min(F - 1, f + k);
    if (f1 === f0) return 0;
    let x = p[3 * f1] - p[3 * f0];
    let y = p[3 * f1 + 1] - p[3 * f0 + 1];
    let z = p[3 * f1 + 2] - p[3 * f0 + 2];
    const v = x * n[0] + y * n[1] + z * n[2];
    x -= v * n[0];
    y -= v * n[1];
    z -= v * n[2];
    return Math.sqrt(x * x + y * y + z * z) / ((f1 - f0) * tracks.frameTime);
  };
  const leg = tracks[side];
  const toe = toeOf(leg);
  const out: [Float64Array, Float64Array] = [new Float64Array(F), new Float64Array(F)];
  const s = RULE_SHARPNESS;
  // the local ground (./ground.ts, leg lengths above the contact level, per frame), as the foot rule uses
  // it: the height tested is the lower of the height above the level and the distance from the ground
  const g = ground ? gridToFrames(ground[side], F, tracks.frameTime) : null;
  const above = (h: number, f: number) =>
    g === null || g[f] === 0 ? Math.max(0, h) : Math.min(Math.max(0, h), Math.abs(h - g[f]));
  for (let f = 0; f < F; f++) {
    const ha = above((height(leg.ankle, f) - heelLevel) / L, f);
    const va = speed(leg.ankle, f) / L;
    out[0][f] = Math.min(logSigmoid(s * (1 - ha / HEEL_HEIGHT)), logSigmoid(s * (1 - va / HEEL_SPEED)));
    const ht = above((height(toe, f) - toeLevel) / L, f);
    const vt = speed(toe, f) / L;
    out[1][f] = Math.min(logSigmoid(s * (1 - ht / TOE_HEIGHT)), logSigmoid(s * (1 - vt / TOE_SPEED)));
  }
  return out;
}

/**
 * Heel and toe probabilities of both feet: the per-foot probabilities `foot` split by the point rule
 * (see the module doc). `foot.left` / `foot.right`: `ArrayLike<number>` of length frameCount in [0, 1].
 * `ground`: the rule's local ground (./ground.ts); the points' heights are then measured from it as the
 * foot rule measures them (on a raised stance the heel and the toe compare as on the floor).
 */
export function heelToeProbabilities(
  tracks: FootTracks,
  floor: FloorEstimate,
  foot: { left: ArrayLike<number>; right: ArrayLike<number> },
  ground?: LocalGround,
): HeelToeProbabilities {
  const F = tracks.frameCount;
  const split = (side: 'left' | 'right'): PointProbabilities => {
    const [lh, lt] = pointRuleLogs(tracks, floor, side, ground);
    const p = foot[side];
    const heel = new Float32Array(F);
    const toe = new Float32Array(F);
    for (let f = 0; f < F; f++) {
      const m = Math.max(lh[f], lt[f]);
      heel[f] = p[f] * Math.exp(lh[f] - m);
      toe[f] = p[f] * Math.exp(lt[f] - m);
    }
    return { heel, toe };
  };
  return { left: split('left'), right: split('right') };
}
