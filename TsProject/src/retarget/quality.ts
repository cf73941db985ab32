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
 * Foot height error: per foot, frames where the source foot is on the floor are those where its
 * ankle (humanoid Foot joint; every humanoid has one, unlike toes) is within
 * {@link CONTACT_HEIGHT} of the source's floor level (the 5th percentile over frames of the lower
 * ankle's height, so the floor need not be at 0) and moves slower than {@link CONTACT_SPEED}
 * horizontally. On those frames the
 * error is |target ankle height - its height in the target's rest pose| (the target's rest pose stands
 * on its floor), in metres; reported as the mean absolute value.
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
/** Horizontal speed below which a low source foot counts as planted, metres per second. */
export const CONTACT_SPEED = 0.35;

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

export interface FootHeightError {
  /** Mean absolute target foot height error on source contact frames, metres (null: no contact frames). */
  meanAbsM: number | null;
  contactFrames: number;
  joint: string;
}

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
  const dt = source.frameTime;
  let total = 0;
  let count = 0;
  // One floor level for both feet: the 5th percentile over frames of the lower foot's joint height,
  // so a foot that seldom touches the ground is not given a floor of its own.
  const lowest: number[] = [];
  for (let f = 0; f < source.frameCount; f++) {
    let m = Number.POSITIVE_INFINITY;
    for (const ft of feet) if (ft.s >= 0 && ft.t >= 0) m = Math.min(m, ft.sy[f]);
    if (Number.isFinite(m)) lowest.push(m);
  }
  lowest.sort((x, y) => x - y);
  const floor = lowest.length > 0 ? lowest[Math.floor(0.05 * (lowest.length - 1))] : 0;
  const footReport = feet.map((ft): FootHeightError => {
    if (ft.s < 0 || ft.t < 0) return { meanAbsM: null, contactFrames: 0, joint: HUMAN_NAME[ft.h] };
    const restY = standingY(ft.t);
    let sum = 0;
    let n = 0;
    for (let f = 0; f < source.frameCount; f++) {
      const g = f > 0 ? f - 1 : Math.min(1, source.frameCount - 1);
      const speed =
        Math.hypot(ft.sxz[2 * f] - ft.sxz[2 * g], ft.sxz[2 * f + 1] - ft.sxz[2 * g + 1]) /
        (dt * Math.max(1, Math.abs(f - g)));
      if (ft.sy[f] <= floor + CONTACT_HEIGHT && speed <= CONTACT_SPEED) {
        sum += Math.abs(ft.ty[f] - restY);
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

/** The skeleton bones that quality segments use, for reports. */
export function qualitySegmentNames(): string[] {
  return SEGMENTS.map((s) => s.name);
}
