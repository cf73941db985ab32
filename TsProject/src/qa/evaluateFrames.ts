/**
 * The per-frame pass of the QA evaluation (src/qa/evaluate.ts, steps 1-3 of its module docs): for every
 * frame, forward kinematics of the golden sample and the observed frame over the bones the measures
 * read, the golden world rotations carried onto the observed bones, then E_rot / E_twist / swing per
 * evaluated bone, the Shoulder angles from rest, the end-effector position errors and the shoulder
 * pitch errors, written into the caller's per-bone series. Also the scoring and run-finding loops over
 * those series (steps 4-5).
 *
 * Why these are top-level functions over one plain state object rather than closures inside
 * `evaluateClip`: a loop in a function that runs once per clip is interpreted until V8 compiles it
 * on-stack (again on every call, concurrently, so on a busy machine the interpreter does most of the
 * work), and code reached after that compile has no type feedback and deoptimises. Top-level functions
 * are optimised once and stay optimised from one clip to the next. Same formulas, same operations in
 * the same order as before, so the same values bit for bit. Engine-free; allocates nothing.
 */
import { type Clip, sampleClip } from '../core';
import { fkSome } from './evaluateFk';
import { pitchDeg } from './evaluateInputs';
import { compareRotations } from './measures';

const R2D = 180 / Math.PI;

/** Everything the per-frame pass reads and writes (built once per clip by `evaluateClip`). */
export interface FramePass {
  golden: Clip;
  observed: Clip;
  /** 0 'seconds' with the same frame rate (frames read one for one), 1 'seconds' resampled, 2 'normalized'. */
  mode: number;
  /** Observed frame count. */
  N: number;
  /** Golden duration, seconds (normalized sampling). */
  gDur: number;
  gParents: Int32Array;
  oParents: Int32Array;
  /** Bones forward kinematics computes on each side (ascending, closed under parents). */
  gNeed: Int32Array;
  oNeed: Int32Array;
  /** 1 for the bones whose world position is read (end effectors, hips, shoulders, their ancestors). */
  gPos: Uint8Array;
  oPos: Uint8Array;
  /** Golden sample scratch (local rotations 4 / translations 3 per golden bone). */
  gL: Float64Array;
  gT: Float64Array;
  /** World rotations / positions, per bone of each skeleton. */
  gW: Float64Array;
  gP: Float64Array;
  oW: Float64Array;
  oP: Float64Array;
  /** Golden world rotations carried onto the observed bones, 4 per evaluated bone. */
  gW2: Float64Array;
  /** Rest world rotations of each skeleton. */
  gR: Float64Array;
  oR: Float64Array;
  /** Evaluated bones: count, observed bone, golden bone (direct, mirrored), evaluated parent (-1 none). */
  nE: number;
  oB: Int32Array;
  gBd: Int32Array;
  gBm: Int32Array;
  pk: Int32Array;
  /** Twist axis per evaluated bone (observed bone frame), null when it has none. */
  axes: (Float64Array | null)[];
  qRef: Float64Array;
  qObs: Float64Array;
  out3: Float64Array;
  /** Output series per evaluated bone, degrees. */
  rotDeg: Float32Array[];
  twistDeg: Float32Array[];
  swingDeg: Float32Array[];
  /** Evaluated bones whose angle from rest is kept (the Shoulders), their rest relative rotations (4 per evaluated bone), their series. */
  fromRestK: Int32Array;
  restRel: Float64Array;
  obsFromRest: (Float32Array | null)[];
  goldFromRest: (Float32Array | null)[];
  /** Compare against the mirrored golden. */
  mirror: boolean;
  /** Hips observed / golden bone (golden: mirrored when `mirror`). */
  ohb: number;
  ghb: number;
  /** Character heights (rest extent) of each side. */
  hObs: number;
  hGold: number;
  /** End effectors: observed bone, golden bone (mirrored when `mirror`), output series. */
  effO: Int32Array;
  effG: Int32Array;
  posErr: Float32Array[];
  /** Shoulder pitch pairs: observed / golden Shoulder and UpperArm bones, rest pitches, output series. */
  shO: Int32Array;
  suO: Int32Array;
  shG: Int32Array;
  suG: Int32Array;
  restPitchO: Float64Array;
  restPitchG: Float64Array;
  pitchErr: Float32Array[];
}

/**
 * Fill `s.gW`, `s.gP`, `s.oW`, `s.oP` and `s.gW2` for observed frame `f`: the golden sampled per
 * `s.mode` (see evaluate.ts step 1), forward kinematics on both sides, and `W' = D * Rest_obs(ob)` with
 * `D = W_gold(gb) * conj(Rest_gold(gb))` mirrored across X = 0 when `useMirror` (gb the mirror bone).
 */
export function loadFrame(s: FramePass, f: number, useMirror: boolean): void {
  const golden = s.golden;
  const ng = golden.skeleton.boneCount;
  const N = s.N;
  if (s.mode === 2) {
    if (golden.frameCount === N)
      fkSome(s.gParents, s.gNeed, golden.rotations, golden.translations, f * ng, s.gW, s.gP, s.gPos);
    else {
      sampleClip(golden, N > 1 ? (f / (N - 1)) * s.gDur : 0, s.gL, s.gT);
      fkSome(s.gParents, s.gNeed, s.gL, s.gT, 0, s.gW, s.gP, s.gPos);
    }
  } else if (s.mode === 0) {
    const gf = f < golden.frameCount ? f : golden.frameCount - 1;
    fkSome(s.gParents, s.gNeed, golden.rotations, golden.translations, gf * ng, s.gW, s.gP, s.gPos);
  } else {
    sampleClip(golden, f * s.observed.frameTime, s.gL, s.gT);
    fkSome(s.gParents, s.gNeed, s.gL, s.gT, 0, s.gW, s.gP, s.gPos);
  }
  const observed = s.observed;
  fkSome(
    s.oParents,
    s.oNeed,
    observed.rotations,
    observed.translations,
    f * observed.skeleton.boneCount,
    s.oW,
    s.oP,
    s.oPos,
  );
  carryGolden(s.nE, useMirror ? s.gBm : s.gBd, s.oB, s.gW, s.gR, s.oR, useMirror, s.gW2);
}

/** gW2[4k] = D * oR[4 oB[k]], D = gW[4 gB[k]] * conj(gR[4 gB[k]]) with y, z negated when `mirror`. */
function carryGolden(
  nE: number,
  gB: Int32Array,
  oB: Int32Array,
  gW: Float64Array,
  gR: Float64Array,
  oR: Float64Array,
  mirror: boolean,
  gW2: Float64Array,
): void {
  for (let k = 0; k < nE; k++) {
    const g4 = 4 * gB[k];
    const o4 = 4 * oB[k];
    // (flat qmulByConj then qmul, written out)
    const ax = gW[g4];
    const ay = gW[g4 + 1];
    const az = gW[g4 + 2];
    const aw = gW[g4 + 3];
    const bx = -gR[g4];
    const by = -gR[g4 + 1];
    const bz = -gR[g4 + 2];
    const bw = gR[g4 + 3];
    const dx = ax * bw + aw * bx + ay * bz - az * by;
    let dy = ay * bw + aw * by + az * bx - ax * bz;
    let dz = az * bw + aw * bz + ax * by - ay * bx;
    const dw = aw * bw - ax * bx - ay * by - az * bz;
    if (mirror) {
      dy = -dy;
      dz = -dz;
    }
    const cx = oR[o4];
    const cy = oR[o4 + 1];
    const cz = oR[o4 + 2];
    const cw = oR[o4 + 3];
    const k4 = 4 * k;
    gW2[k4] = dx * cw + dw * cx + dy * cz - dz * cy;
    gW2[k4 + 1] = dy * cw + dw * cy + dz * cx - dx * cz;
    gW2[k4 + 2] = dz * cw + dw * cz + dx * cy - dy * cx;
    gW2[k4 + 3] = dw * cw - dx * cx - dy * cy - dz * cz;
  }
}

/**
 * `s.qRef` / `s.qObs` = evaluated bone k's rotation relative to its evaluated parent on the carried
 * golden / the observed (`inverse(W(parent)) * W(k)`; the world rotation when it has none).
 */
export function relPair(s: FramePass, k: number): void {
  const pp = s.pk[k];
  const gW2 = s.gW2;
  const oW = s.oW;
  const oB = s.oB;
  if (pp < 0) {
    copy4(s.qRef, gW2, 4 * k);
    copy4(s.qObs, oW, 4 * oB[k]);
  } else {
    mulConj(s.qRef, gW2, 4 * pp, gW2, 4 * k);
    mulConj(s.qObs, oW, 4 * oB[pp], oW, 4 * oB[k]);
  }
}

/** out[0..3] = a[ao..] (core qcopy at offset 0). */
function copy4(out: Float64Array, a: Float64Array, ao: number): void {
  out[0] = a[ao];
  out[1] = a[ao + 1];
  out[2] = a[ao + 2];
  out[3] = a[ao + 3];
}

/** out[0..3] = conj(a[ao]) * b[bo] (core qmulConj at offset 0, the same expressions). */
function mulConj(out: Float64Array, a: Float64Array, ao: number, b: Float64Array, bo: number): void {
  const ax = -a[ao];
  const ay = -a[ao + 1];
  const az = -a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  out[0] = ax * bw + aw * bx + ay * bz - az * by;
  out[1] = ay * bw + aw * by + az * bx - ax * bz;
  out[2] = az * bw + aw * bz + ax * by - ay * bx;
  out[3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** The per-frame pass over every observed frame (evaluate.ts steps 1-3), into the series of `s`. */
export function measureFrames(s: FramePass): void {
  const N = s.N;
  for (let f = 0; f < N; f++) {
    loadFrame(s, f, s.mirror);
    measureBones(s, f);
    measureFromRest(s, f);
    measurePositions(s, f);
    measurePitches(s, f);
  }
}

/** E_rot, E_twist, swing (degrees) of every evaluated bone at frame f. */
function measureBones(s: FramePass, f: number): void {
  const nE = s.nE;
  const axes = s.axes;
  const qRef = s.qRef;
  const qObs = s.qObs;
  const out3 = s.out3;
  const rotDeg = s.rotDeg;
  const twistDeg = s.twistDeg;
  const swingDeg = s.swingDeg;
  for (let k = 0; k < nE; k++) {
    relPair(s, k);
    compareRotations(qRef, qObs, axes[k], out3);
    rotDeg[k][f] = out3[0] * R2D;
    twistDeg[k][f] = out3[1] * R2D;
    swingDeg[k][f] = out3[2] * R2D;
  }
}

/** The angle from rest (degrees) of each side's kept bones at frame f. */
function measureFromRest(s: FramePass, f: number): void {
  const ks = s.fromRestK;
  for (let i = 0; i < ks.length; i++) {
    const k = ks[i];
    relPair(s, k);
    (s.obsFromRest[k] as Float32Array)[f] = angleAt(s.restRel, 4 * k, s.qObs) * R2D;
    (s.goldFromRest[k] as Float32Array)[f] = angleAt(s.restRel, 4 * k, s.qRef) * R2D;
  }
}

/** E_pos of each end effector at frame f: hips-relative positions over height, golden vs observed. */
function measurePositions(s: FramePass, f: number): void {
  const oP = s.oP;
  const gP = s.gP;
  const ohb = s.ohb;
  const ghb = s.ghb;
  const hObs = s.hObs;
  const hGold = s.hGold;
  const sx = s.mirror ? -1 : 1;
  const effO = s.effO;
  const effG = s.effG;
  for (let e = 0; e < effO.length; e++) {
    const ob = effO[e];
    const gb = effG[e];
    const dx = (oP[3 * ob] - oP[3 * ohb]) / hObs - (sx * (gP[3 * gb] - gP[3 * ghb])) / hGold;
    const dy = (oP[3 * ob + 1] - oP[3 * ohb + 1]) / hObs - (gP[3 * gb + 1] - gP[3 * ghb + 1]) / hGold;
    const dz = (oP[3 * ob + 2] - oP[3 * ohb + 2]) / hObs - (gP[3 * gb + 2] - gP[3 * ghb + 2]) / hGold;
    s.posErr[e][f] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
}

/** Shoulder pitch error (degrees, observed minus golden, each relative to its rest) at frame f. */
function measurePitches(s: FramePass, f: number): void {
  for (let i = 0; i < s.shO.length; i++) {
    const po = pitchDeg(s.oP, s.shO[i], s.suO[i]) - s.restPitchO[i];
    const pg = pitchDeg(s.gP, s.shG[i], s.suG[i]) - s.restPitchG[i];
    s.pitchErr[i][f] = po - pg;
  }
}

/**
 * Mean E_rot (degrees) of the evaluated bones `body` against the mirrored golden over `samples` frames
 * spread evenly over the clip (evaluate.ts step 7, mirror detection). Overwrites the frame scratch.
 */
export function mirroredMeanError(s: FramePass, body: Int32Array, samples: number): number {
  const N = s.N;
  let mir = 0;
  for (let i = 0; i < samples; i++) {
    const f = samples > 1 ? Math.round((i * (N - 1)) / (samples - 1)) : 0;
    loadFrame(s, f, true);
    for (let j = 0; j < body.length; j++) {
      relPair(s, body[j]);
      compareRotations(s.qRef, s.qObs, null, s.out3);
      mir += s.out3[0] * R2D;
    }
  }
  return mir / (body.length * samples);
}

/** Sum of `series[k][f]` over k in `ks` (outer) and frames (inner), in that order. */
export function sumSeries(series: Float32Array[], ks: Int32Array, N: number): number {
  let sum = 0;
  for (let j = 0; j < ks.length; j++) {
    const v = series[ks[j]];
    for (let f = 0; f < N; f++) sum += v[f];
  }
  return sum;
}

/**
 * Step 4 for one check: `severity[f] = weight * max(0, values[f] / threshold - 1)`, added to the bone's
 * severity and the frame score.
 */
export function scoreCheck(
  values: Float32Array,
  threshold: number,
  weight: number,
  severity: Float32Array,
  boneSeverity: Float32Array,
  score: Float32Array,
): void {
  const N = values.length;
  for (let f = 0; f < N; f++) {
    const s = weight * Math.max(0, values[f] / threshold - 1);
    severity[f] = s;
    boneSeverity[f] += s;
    score[f] += s;
  }
}

/**
 * Step 5 for one check: the stretches of frames with `values[f] > threshold`, appended to `out` as
 * [first, last] pairs in frame order.
 */
export function overThreshold(values: Float32Array, threshold: number, out: number[]): void {
  const N = values.length;
  let f = 0;
  while (f < N) {
    if (!(values[f] > threshold)) {
      f++;
      continue;
    }
    let e = f;
    while (e + 1 < N && values[e + 1] > threshold) e++;
    out.push(f, e);
    f = e + 1;
  }
}

/** Angle (radians, [0, pi]) between the quaternion at a[ao] and q, as 2*atan2(|v|, |w|) of conj(a) * q. */
function angleAt(a: Float64Array, ao: number, q: Float64Array): number {
  const ax = -a[ao];
  const ay = -a[ao + 1];
  const az = -a[ao + 2];
  const aw = a[ao + 3];
  const x = ax * q[3] + aw * q[0] + ay * q[2] - az * q[1];
  const y = ay * q[3] + aw * q[1] + az * q[0] - ax * q[2];
  const z = az * q[3] + aw * q[2] + ax * q[1] - ay * q[0];
  const w = aw * q[3] - ax * q[0] - ay * q[1] - az * q[2];
  return 2 * Math.atan2(Math.sqrt(x * x + y * y + z * z), Math.abs(w));
}
