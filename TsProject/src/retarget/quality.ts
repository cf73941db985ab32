/**
 * Quality figures of a retargeted clip against its source, as reported in `summary.json`.
 *
 * Segment direction error: for each limb segment whose two ends are mapped humanoid bones on both
 * skeletons, the angle in degrees between the source segment's world direction and the target's,
 * per frame; reported as mean and max over the clip. Segments: upper arm (UpperArm -> LowerArm),
 * forearm (LowerArm -> Hand), hand (Hand -> the first of the Middle, Index, Ring, Little proximal
 * bones mapped on both), thigh (UpperLeg -> LowerLeg), shin (LowerLeg -> Foot), foot (Foot -> Toes),
 * and hips to neck (Hips -> Neck, or Hips -> Head when either skeleton has no neck).
 *
 * Foot height error: per foot, the source foot's contact frames are those where its ankle (humanoid
 * Foot joint; every humanoid has one, unlike toes) is the supporting one, within
 * {@link CONTACT_HEIGHT} of the lower of the two ankles in that frame, and is still: it moves slower
 * than {@link CONTACT_SPEED} horizontally and vertically, measured over {@link SPEED_SPAN} (whole
 * frames, at least one). The floor is not taken as one level for the whole take: inertial captures
 * drift (Rokoko's `jesse_dance.bvh` stands on its right foot 13 to 15 cm above the level both feet
 * start and end at, for a second at a time), and a single floor level counted none of those frames.
 * On those frames the error is `|(target ankle - its rest height) - s (source ankle - source floor)|`
 * in metres, mean absolute value: the avatar's ankle against its height standing in its rest pose on
 * its floor, allowing the height the source's own ankle stands above its floor level (the 5th
 * percentile over frames of the lower ankle's height) scaled by `s` = `verticalScale` (the hips
 * scale), so the source's drift is not counted as a retarget error. On a level floor that allowance
 * is within the 3 cm band.
 *
 * Source positions are taken after the retargeter's up-axis alignment (`sourceAlignment`), metres.
 */
import {
  type Clip,
  forwardKinematics,
  HumanBodyBones as H,
  type NumArray,
  RAD2DEG,
  readFrame,
  type Skeleton,
  vec64,
  vectorAngle,
} from '../core';
import { alignRoots } from './retargeter';

/** Source joint height band above its lowest level that counts as on the floor, metres. */
export const CONTACT_HEIGHT = 0.03;
/** Horizontal and vertical speed below which a supporting source foot counts as planted, metres per second. */
export const CONTACT_SPEED = 0.35;
/** Time over which a foot's speed is measured (the whole frames nearest it, at least one), seconds. */
export const SPEED_SPAN = 1 / 30;

/**
 * Direction error of one limb segment over a clip: the angle between the source segment's world direction and
 * the target's, degrees.
 */
export interface SegmentError {
  /** Mean angle over frames, degrees. */
  meanDeg: number;
  /** Max angle over frames, degrees. */
  maxDeg: number;
  /** Frame of the max. */
  maxFrame: number;
  /** Humanoid bones the segment runs between. */
  from: string;
  to: string;
}

/** Foot height error of one foot on the source's contact frames (see {@link measureQuality}), metres. */
export interface FootHeightError {
  /** Mean absolute target foot height error on source contact frames, metres (null: no contact frames). */
  meanAbsM: number | null;
  contactFrames: number;
  joint: string;
}

/**
 * What {@link measureQuality} returns: per-segment direction errors and the foot height figures (summary.json
 * `quality`).
 */
export interface QualityReport {
  segments: Record<string, SegmentError | null>;
  footHeight: {
    left: FootHeightError;
    right: FootHeightError;
    meanAbsM: number | null;
    /**
     * How far any target ankle joint or joint below it (toes, toe ends) goes below its height in the
     * standing rest pose, over all frames, metres (0 when none does): toes through the floor show here
     * even when the ankles are right.
     */
    maxBelowStandingM: number;
    /** Frame of that. */
    maxBelowStandingFrame: number;
  };
}

/** Options of {@link measureQuality}. */
export interface QualityOptions {
  /** The retargeter's up-axis rotation for the source (identity for Y-up data). */
  sourceAlignment?: ArrayLike<number>;
  /**
   * The target as it stands (its rest pose on the floor) and the scale it is shown at: standing joint
   * heights come from it. Default: the target clip's own skeleton at scale 1. Pass the avatar's
   * skeleton and the avatar scale when the clip's skeleton was rescaled for output (scaleSubtrees).
   */
  standingSkeleton?: Skeleton;
  standingScale?: number;
  /**
   * How the retarget scales heights above the floor from source to target (the hips scale in the
   * retargeter's 'scaled' hips mode, 1 in 'room' mode); default 1. Used to allow the source ankle's
   * own height above its floor level on contact frames (see the module comment).
   */
  verticalScale?: number;
}

type Seg = { name: string; from: number; to: number[] };

const SEGMENTS: Seg[] = [];
for (const side of ['left', 'right'] as const) {
  const S = side === 'left' ? 'Left' : 'Right';
  SEGMENTS.push(
    { name: `${side}UpperArm`, from: H[`${S}UpperArm`], to: [H[`${S}LowerArm`]] },
    { name: `${side}Forearm`, from: H[`${S}LowerArm`], to: [H[`${S}Hand`]] },
    {
      name: `${side}Hand`,
      from: H[`${S}Hand`],
      to: [H[`${S}MiddleProximal`], H[`${S}IndexProximal`], H[`${S}RingProximal`], H[`${S}LittleProximal`]],
    },
    { name: `${side}Thigh`, from: H[`${S}UpperLeg`], to: [H[`${S}LowerLeg`]] },
    { name: `${side}Shin`, from: H[`${S}LowerLeg`], to: [H[`${S}Foot`]] },
    { name: `${side}Foot`, from: H[`${S}Foot`], to: [H[`${S}Toes`]] },
  );
}
SEGMENTS.push({ name: 'hipsToNeck', from: H.Hips, to: [H.Neck, H.Head] });

const HUMAN_NAME = Object.fromEntries(Object.entries(H).map(([k, v]) => [v, k])) as Record<number, string>;

/**
 * Measure the quality figures of `target` (retargeted) against `source`. Both clips must have the same
 * frame count. `sourceAlignment` is the retargeter's up-axis rotation for the source (identity for
 * Y-up data); see {@link QualityOptions}. Allocates per call, not per frame.
 */
export function measureQuality(source: Clip, target: Clip, options: QualityOptions = {}): QualityReport {
  const sourceAlignment = options.sourceAlignment ?? [0, 0, 0, 1];
  if (source.frameCount !== target.frameCount) {
    throw new Error(`measureQuality: source has ${source.frameCount} frames, target ${target.frameCount}`);
  }
  const S = source.skeleton;
  const T = target.skeleton;
  const segs = SEGMENTS.map((seg) => {
    const sFrom = S.humanoid[seg.from];
    const tFrom = T.humanoid[seg.from];
    const to = seg.to.find((h) => S.humanoid[h] >= 0 && T.humanoid[h] >= 0);
    if (sFrom < 0 || tFrom < 0 || to === undefined) return null;
    return { seg, sFrom, tFrom, sTo: S.humanoid[to], tTo: T.humanoid[to], to, sum: 0, max: 0, maxFrame: 0 };
  });
  const feet = (['Left', 'Right'] as const).map((side) => {
    const h = H[`${side}Foot`];
    return {
      side,
      h,
      s: S.humanoid[h],
      t: T.humanoid[h],
      sy: new Float64Array(source.frameCount),
      sxz: new Float64Array(2 * source.frameCount),
      contact: new Uint8Array(source.frameCount),
      ty: new Float64Array(source.frameCount),
    };
  });

  const nS = S.boneCount;
  const nT = T.boneCount;
  const sr = new Float64Array(4 * nS);
  const sp = new Float64Array(3 * nS);
  const swr = new Float64Array(4 * nS);
  const swp = new Float64Array(3 * nS);
  const tr = new Float64Array(4 * nT);
  const tp = new Float64Array(3 * nT);
  const twr = new Float64Array(4 * nT);
  const twp = new Float64Array(3 * nT);
  const A = Float64Array.from(sourceAlignment);
  const a = vec64();
  const b = vec64();
  const segDir = (out: NumArray, pos: Float64Array, i: number, j: number) => {
    out[0] = pos[3 * j] - pos[3 * i];
    out[1] = pos[3 * j + 1] - pos[3 * i + 1];
    out[2] = pos[3 * j + 2] - pos[3 * i + 2];
  };
  const standingEarly = options.standingSkeleton ?? T;
  const sRest = new Float64Array(4 * standingEarly.boneCount);
  const sRestP = new Float64Array(3 * standingEarly.boneCount);
  forwardKinematics(
    standingEarly,
    standingEarly.restRotations,
    standingEarly.restTranslations,
    sRest,
    sRestP,
  );
  // the ankles and every joint below them (toes, toe ends)
  const feetRoots = [T.humanoid[H.LeftFoot], T.humanoid[H.RightFoot]].filter((b) => b >= 0);
  const lowJoints: { bone: number; standing: number }[] = [];
  for (let b = 0; b < T.boneCount; b++) {
    for (let a = b; a >= 0; a = T.parents[a]) {
      if (feetRoots.includes(a)) {
        lowJoints.push({ bone: b, standing: sRestP[3 * b + 1] * (options.standingScale ?? 1) });
        break;
      }
    }
  }
  let maxBelow = 0;
  let maxBelowFrame = 0;
  for (let f = 0; f < source.frameCount; f++) {
    readFrame(source, f, sr, sp);
    alignRoots(S, sr, sp, A);
    forwardKinematics(S, sr, sp, swr, swp);
    readFrame(target, f, tr, tp);
    forwardKinematics(T, tr, tp, twr, twp);
    for (const s of segs) {
      if (!s) continue;
      segDir(a, swp, s.sFrom, s.sTo);
      segDir(b, twp, s.tFrom, s.tTo);
      const ang = vectorAngle(a, b) * RAD2DEG;
      s.sum += ang;
      if (ang > s.max) {
        s.max = ang;
        s.maxFrame = f;
      }
    }
    for (const j of lowJoints) {
      const below = j.standing - twp[3 * j.bone + 1];
      if (below > maxBelow) {
        maxBelow = below;
        maxBelowFrame = f;
      }
    }
    for (const ft of feet) {
      if (ft.s < 0 || ft.t < 0) continue;
      ft.sy[f] = swp[3 * ft.s + 1];
      ft.sxz[2 * f] = swp[3 * ft.s];
      ft.sxz[2 * f + 1] = swp[3 * ft.s + 2];
      ft.ty[f] = twp[3 * ft.t + 1];
    }
  }

  const segments: Record<string, SegmentError | null> = {};
  SEGMENTS.forEach((seg, k) => {
    const s = segs[k];
    segments[seg.name] = s
      ? {
          meanDeg: s.sum / source.frameCount,
          maxDeg: s.max,
          maxFrame: s.maxFrame,
          from: HUMAN_NAME[seg.from],
          to: HUMAN_NAME[s.to],
        }
      : null;
  });

  const standingY = (bone: number) => sRestP[3 * bone + 1] * (options.standingScale ?? 1);
  const vScale = options.verticalScale ?? 1;
  let total = 0;
  let count = 0;
  const both = feet.filter((ft) => ft.s >= 0 && ft.t >= 0);
  const lowerAnkle = new Float64Array(source.frameCount);
  for (let f = 0; f < source.frameCount; f++) {
    let m = Number.POSITIVE_INFINITY;
    for (const ft of both) m = Math.min(m, ft.sy[f]);
    lowerAnkle[f] = m;
  }
  // The source floor level (for the height allowance only): the 5th percentile over frames of the lower ankle.
  const lowest = Array.from(lowerAnkle).filter(Number.isFinite);
  lowest.sort((x, y) => x - y);
  const floor = lowest.length > 0 ? lowest[Math.floor(0.05 * (lowest.length - 1))] : 0;
  for (const ft of both) sourceContacts(ft.sy, ft.sxz, lowerAnkle, source.frameTime, ft.contact);
  const footReport = feet.map((ft): FootHeightError => {
    if (ft.s < 0 || ft.t < 0) return { meanAbsM: null, contactFrames: 0, joint: HUMAN_NAME[ft.h] };
    const restY = standingY(ft.t);
    let sum = 0;
    let n = 0;
    for (let f = 0; f < source.frameCount; f++) {
      if (ft.contact[f]) {
        sum += Math.abs(ft.ty[f] - restY - vScale * (ft.sy[f] - floor));
        n++;
      }
    }
    total += sum;
    count += n;
    return { meanAbsM: n > 0 ? sum / n : null, contactFrames: n, joint: HUMAN_NAME[ft.h] };
  });
  return {
    segments,
    footHeight: {
      left: footReport[0],
      right: footReport[1],
      meanAbsM: count > 0 ? total / count : null,
      maxBelowStandingM: maxBelow,
      maxBelowStandingFrame: maxBelowFrame,
    },
  };
}

/**
 * Contact frames of one source foot (see the module comment): `y` its ankle height per frame,
 * `xz` its horizontal position (2 per frame), `lower` the lower ankle height of the two feet per
 * frame, all metres; `frameTime` seconds. Writes 1 into `out[f]` for a contact frame, else 0.
 */
export function sourceContacts(
  y: Float64Array,
  xz: Float64Array,
  lower: Float64Array,
  frameTime: number,
  out: Uint8Array,
): void {
  const F = y.length;
  const k = Math.max(1, Math.round(SPEED_SPAN / frameTime));
  for (let f = 0; f < F; f++) {
    // backward difference over k frames (forward at the start)
    const a = f >= k ? f - k : 0;
    const b = f >= k ? f : Math.min(F - 1, k);
    const span = (b - a) * frameTime;
    const h = span > 0 ? Math.hypot(xz[2 * b] - xz[2 * a], xz[2 * b + 1] - xz[2 * a + 1]) / span : 0;
    const v = span > 0 ? Math.abs(y[b] - y[a]) / span : 0;
    out[f] = y[f] <= lower[f] + CONTACT_HEIGHT && h <= CONTACT_SPEED && v <= CONTACT_SPEED ? 1 : 0;
  }
}

/** The skeleton bones that quality segments use, for reports. */
export function qualitySegmentNames(): string[] {
  return SEGMENTS.map((s) => s.name);
}
