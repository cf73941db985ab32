/**
 * Retarget QA: compare a golden (approved) clip with an observed (retargeted) one, bone by bone and frame
 * by frame; score severity, flag runs of frames and classify their likely cause. Engine-free.
 *
 * Pipeline (issue 6):
 * 1. Sampling: the report's timeline is the observed clip's frames. Frame `f` of the observed clip is at
 *    `t = f * frameTime`; the golden is sampled at the same second (`sampling: 'seconds'`, default) or at
 *    the same fraction of its duration (`'normalized'`), by shortest-path slerp between its two
 *    neighbouring frames (core `sampleClip`), clamped to its first/last frame (never past the last).
 *    When the frame times agree, golden frames are read directly.
 * 2. Bones: every HumanBodyBones bone mapped in both clips' humanoid maps (the observed map may be
 *    overridden by the profile's `boneMap`). The golden may be another skeleton of the same character:
 *    each golden world rotation is carried onto the observed bone by its rest pose,
 *    `W'(h) = W_gold(h) * inverse(Rest_gold(h)) * Rest_obs(h)` (world rotations; exact when both rest poses
 *    are the same pose, e.g. both T-poses), and "local" rotations are taken relative to the nearest
 *    humanoid ancestor mapped in both, `q = inverse(W(parent)) * W(h)`, on both sides. On one skeleton
 *    with a direct humanoid parent this is the bone's local rotation.
 * 3. Measures per bone and frame (measures.ts): E_rot, signed E_twist about the profile's twist axis
 *    (bone's local frame), swing angle; E_pos for hands, elbows (LowerArm) and feet: the position relative
 *    to the Hips divided by character height (the largest extent of the rest-pose joints along X, Y or Z),
 *    golden vs observed by forward kinematics on each skeleton; E_wrist = |E_twist(LowerArm)| + lambda *
 *    |E_twist(Hand)| checked on the LowerArm; shoulder pitch: the difference of the Shoulder -> UpperArm
 *    elevation (degrees above the horizontal plane, minus its rest value) between observed and golden;
 *    V_twist: unwrapped twist velocity (deg/s) per bone.
 * 4. Scoring: per check (bone, measure) and frame, `severity = w * max(0, E / T - 1)`; per frame
 *    `S = sum of all severities` (every bone, every measure). A check is flagged only where `E > T` holds
 *    for at least `minRun` consecutive frames (`round(minRun.frames * fps / minRun.atFps)`, >= 1): each
 *    such stretch is a {@link QaRun}.
 * 5. Short spikes: frames over threshold in stretches shorter than `minRun` form no run; they count in
 *    `S` (so the timeline shows them and the clip is at least a Warning) but never make an Error,
 *    however large.
 * 6. Levels and result: `S_flagged` per frame sums the severities of frames that lie inside runs whose
 *    cause is not warning-only. A run is an Error when `S_flagged >= 1` at one of its frames and its cause
 *    is not warning-only (proportion compensation), else a Warning. Clip result: Error if any run is an
 *    Error; else Warning if `S > 0` at any frame; else Pass (`S = 0` everywhere).
 * 7. Causes (first match, per run): mirrored clip (the observed matches the left/right mirror of the
 *    golden much better than the golden: mean E_rot over the body bones, on up to 48 sampled frames, under
 *    half); shoulder bone missing or unmapped (Shoulder/UpperArm runs where the observed Shoulder is absent,
 *    or moves under 3 degrees while it is >= 5 degrees off the golden and the UpperArm deviates by at least
 *    half that); shoulder over-rotating while the upper arm does not (the observed Shoulder moves further
 *    from rest than the golden's by half its threshold); proportion compensation (UpperArm rotation run while
 *    the hand position stays within its threshold: Warning only); T/A-pose calibration offset (a run over
 *    >= 90% of the clip whose error and twist vary by at most max(2 deg, 20% of the mean)); forearm roll axis
 *    (twist/wrist runs on LowerArm/Hand, or rotation runs there whose error is >= 70% twist at the peak);
 *    end-effector drift (position runs; the message names the limb bone above with an overlapping run);
 *    generic.
 */
import {
  type Clip,
  clipDuration,
  HumanBodyBones as H,
  HUMAN_BONE_COUNT,
  HUMAN_BONE_NAMES,
  mirrorHumanBone,
  nearestMappedAncestor,
  qcopy,
  qmulConj,
  restWorld,
} from '../core';
import { bonesAndAncestors, neededBones } from './evaluateFk';
import {
  type FramePass,
  measureFrames,
  mirroredMeanError,
  overThreshold,
  scoreCheck,
  sumSeries,
} from './evaluateFrames';
import { checkClip, checkSameCharacter, extent, pitchDeg, resolveProfile } from './evaluateInputs';
import {
  type EvaluateOptions,
  QA_CAUSES,
  type QaCauseCode,
  type QaClipReport,
  QaError,
  type QaMeasure,
  type QaResult,
  type QaRun,
  type QaSeries,
} from './evaluateReport';
import { twistVelocity } from './measures';
import { defaultRigProfile } from './profile';

export {
  type EvaluateOptions,
  QA_CAUSES,
  type QaCauseCode,
  type QaClipReport,
  QaError,
  type QaMeasure,
  type QaResult,
  type QaRun,
  type QaSeries,
  reportToJson,
  severityOf,
} from './evaluateReport';

interface Check {
  k: number; // index into the evaluated bones
  h: number;
  measure: QaMeasure;
  threshold: number;
  weight: number;
  values: Float32Array;
  severity: Float32Array;
}

const MEASURE_WORD: Record<QaMeasure, string> = {
  rotation: 'rotation',
  twist: 'twist',
  wrist: 'wrist twist (forearm + hand)',
  position: 'position',
  shoulder: 'shoulder pitch',
};

/**
 * Compare `golden` and `observed` (see the module docs for every rule) and return the clip report. The
 * profile describes the observed rig (defaults: {@link defaultRigProfile} of the observed skeleton).
 * Allocates per clip (output arrays), nothing per frame.
 * @throws QaError when Hips is not mapped in both clips, a clip holds a non-finite value or a zero
 * quaternion (naming the clip, frame and bone), or the profile's bone map names a missing bone.
 */
export function evaluateClip(golden: Clip, observed: Clip, options: EvaluateOptions = {}): QaClipReport {
  checkClip('golden', golden);
  checkClip('observed', observed);
  const warnings: string[] = [];
  const { skeleton: oS, p } = resolveProfile(observed.skeleton, options.profile);
  const gS = golden.skeleton;
  const lambda = options.lambda ?? p.wrist.lambda;
  const sampling = options.sampling ?? 'seconds';
  const mirror = p.flags.mirrored;
  const N = observed.frameCount;
  const fps = 1 / observed.frameTime;
  const minRun = Math.max(1, Math.round((p.minRun.frames * fps) / p.minRun.atFps));

  const mappedBoth = (h: number) =>
    oS.humanoid[h] >= 0 && gS.humanoid[h] >= 0 && (!mirror || gS.humanoid[mirrorHumanBone(h)] >= 0);
  if (!mappedBoth(H.Hips))
    throw new QaError('Hips must be mapped in both the golden and the observed skeleton');
  const hs: number[] = [];
  const unmatched: string[] = [];
  for (let h = 0; h < HUMAN_BONE_COUNT; h++) {
    if (mappedBoth(h)) hs.push(h);
    else if (oS.humanoid[h] >= 0 || gS.humanoid[h] >= 0) unmatched.push(HUMAN_BONE_NAMES[h]);
  }
  if (unmatched.length > 0) warnings.push(`not compared (mapped on one side only): ${unmatched.join(', ')}`);
  checkSameCharacter(gS, oS);
  const nE = hs.length;
  const kOf = new Int32Array(HUMAN_BONE_COUNT).fill(-1);
  hs.forEach((h, k) => {
    kOf[h] = k;
  });
  const oB = Int32Array.from(hs, (h) => oS.humanoid[h]);
  const gBd = Int32Array.from(hs, (h) => gS.humanoid[h]);
  const gBm = Int32Array.from(hs, (h) => gS.humanoid[mirrorHumanBone(h)]);
  const pk = Int32Array.from(hs, (h) => {
    const a = nearestMappedAncestor(h, mappedBoth);
    return a >= 0 ? kOf[a] : -1;
  });
  const oRest = restWorld(oS);
  const gRest = restWorld(gS);
  const hObs = extent(oRest.positions);
  const hGold = extent(gRest.positions);
  if (!(hObs > 1e-6) || !(hGold > 1e-6)) throw new QaError('a skeleton has zero size in its rest pose');
  // Rest relative rotations of the observed bones (relative to the evaluated humanoid parent).
  const restRel = new Float64Array(4 * nE);
  for (let k = 0; k < nE; k++) relRot(restRel, k, oRest.rotations, pk[k] >= 0 ? oB[pk[k]] : -1, oB[k]);
  // Twist axes (observed bone frame).
  const axes: (Float64Array | null)[] = hs.map((h) => {
    const a = p.twistAxes[HUMAN_BONE_NAMES[h]];
    return a ? Float64Array.from(a) : null;
  });
  const noShoulders = p.flags.noShoulderBones === true;
  if (noShoulders) warnings.push('the observed rig has no shoulder bones: UpperArm thresholds x1.5');
  const thresholdsOf = (h: number) => {
    const name = HUMAN_BONE_NAMES[h];
    const t = p.thresholds[name] ?? {};
    const scale = noShoulders && (h === H.LeftUpperArm || h === H.RightUpperArm) ? 1.5 : 1;
    return {
      rot: (t.rotationDeg ?? 30) * scale,
      twist: t.twistDeg === undefined || t.twistDeg === null ? null : t.twistDeg * scale,
      pos: t.positionFraction ?? null,
      weight: p.weights[name] ?? 1,
    };
  };

  // Output series.
  const rotDeg = hs.map(() => new Float32Array(N));
  const twistDeg = hs.map(() => new Float32Array(N));
  const swingDeg = hs.map(() => new Float32Array(N));
  // the angle from rest of each side, read by the shoulder causes only: kept for the Shoulder bones
  const fromRestK = hs.flatMap((h, k) => (h === H.LeftShoulder || h === H.RightShoulder ? [k] : []));
  const obsFromRest = hs.map((_h, k) => (fromRestK.includes(k) ? new Float32Array(N) : null));
  const goldFromRest = hs.map((_h, k) => (fromRestK.includes(k) ? new Float32Array(N) : null));

  // Position and shoulder-pitch checks.
  const hipsK = kOf[H.Hips];
  const effectors = [
    H.LeftHand,
    H.RightHand,
    H.LeftLowerArm,
    H.RightLowerArm,
    H.LeftFoot,
    H.RightFoot,
  ].filter((h) => kOf[h] >= 0 && thresholdsOf(h).pos !== null);
  const posErr = effectors.map(() => new Float32Array(N));
  const shoulders = [
    [H.LeftShoulder, H.LeftUpperArm],
    [H.RightShoulder, H.RightUpperArm],
  ].filter(([s, u]) => kOf[s] >= 0 && kOf[u] >= 0);
  const pitchErr = shoulders.map(() => new Float32Array(N));
  const gBpitch = (k: number) => (mirror ? gBm[k] : gBd[k]);
  const restPitch = shoulders.map(([s, u]) => [
    pitchDeg(oRest.positions, oB[kOf[s]], oB[kOf[u]]),
    pitchDeg(gRest.positions, gBpitch(kOf[s]), gBpitch(kOf[u])),
  ]);

  // Scratch (per clip; nothing allocated per frame) and the per-frame pass (evaluateFrames.ts).
  const ng = gS.boneCount;
  const no = oS.boneCount;
  // the same rate up to float32 rounding of key times (a GLB's 1/30 s is 0.033333335): frames are
  // read one for one; a drift of 1e-5 per frame stays under 0.1 frame over 10,000 frames
  const sameRate = Math.abs(golden.frameTime - observed.frameTime) <= 1e-5 * observed.frameTime;
  const gDur = clipDuration(golden);
  // Forward kinematics over the bones the measures read (evaluated bones, their ancestors; on the golden
  // side the mirrored bones too), read straight from the clip when its frames are read one for one: the
  // same products in the same order as core `forwardKinematics`, so the same values, without the bones
  // nobody reads (fingers of an unmapped hand, end sites, props).
  const gBsel = mirror ? gBm : gBd;
  const effO = Int32Array.from(effectors, (h) => oB[kOf[h]]);
  const effG = Int32Array.from(effectors, (h) => gBsel[kOf[h]]);
  const shO = Int32Array.from(shoulders, ([s]) => oB[kOf[s]]);
  const suO = Int32Array.from(shoulders, ([, u]) => oB[kOf[u]]);
  const shG = Int32Array.from(shoulders, ([s]) => gBsel[kOf[s]]);
  const suG = Int32Array.from(shoulders, ([, u]) => gBsel[kOf[u]]);
  const pass: FramePass = {
    golden,
    observed,
    mode: sampling === 'normalized' ? 2 : sameRate ? 0 : 1,
    N,
    gDur,
    gParents: Int32Array.from(gS.parents),
    oParents: Int32Array.from(oS.parents),
    gNeed: neededBones(gS.parents, [...gBd, ...gBm]),
    oNeed: neededBones(oS.parents, oB),
    gPos: bonesAndAncestors(gS.parents, [gBsel[hipsK], ...effG, ...shG, ...suG]),
    oPos: bonesAndAncestors(oS.parents, [oB[hipsK], ...effO, ...shO, ...suO]),
    gL: new Float64Array(4 * ng),
    gT: new Float64Array(3 * ng),
    gW: new Float64Array(4 * ng),
    gP: new Float64Array(3 * ng),
    oW: new Float64Array(4 * no),
    oP: new Float64Array(3 * no),
    gW2: new Float64Array(4 * nE), // golden world rotations carried onto the observed bones
    gR: gRest.rotations,
    oR: oRest.rotations,
    nE,
    oB,
    gBd,
    gBm,
    pk,
    axes,
    qRef: new Float64Array(4),
    qObs: new Float64Array(4),
    out3: new Float64Array(3),
    rotDeg,
    twistDeg,
    swingDeg,
    fromRestK: Int32Array.from(fromRestK),
    restRel,
    obsFromRest,
    goldFromRest,
    mirror,
    ohb: oB[hipsK],
    ghb: gBsel[hipsK],
    hObs,
    hGold,
    effO,
    effG,
    posErr,
    shO,
    suO,
    shG,
    suG,
    restPitchO: Float64Array.from(restPitch, (r) => r[0]),
    restPitchG: Float64Array.from(restPitch, (r) => r[1]),
    pitchErr,
  };
  measureFrames(pass);

  // Mirror detection: does the observed match the mirrored golden much better?
  let mirroredDetected = false;
  if (!mirror && hs.every((h) => gS.humanoid[mirrorHumanBone(h)] >= 0)) {
    const body = hs
      .map((_h, k) => k)
      .filter((k) => !/(Proximal|Intermediate|Distal|Eye|Jaw)$/.test(HUMAN_BONE_NAMES[hs[k]]));
    const bodyK = Int32Array.from(body);
    const direct = sumSeries(rotDeg, bodyK, N) / (body.length * N);
    if (direct > 5) {
      const mir = mirroredMeanError(pass, bodyK, Math.min(N, 48));
      if (mir < 0.5 * direct) {
        mirroredDetected = true;
        warnings.push(
          `the observed clip looks mirrored (left/right swapped): mean rotation error ${direct.toFixed(1)} deg against the golden, ${mir.toFixed(1)} deg against the mirrored golden`,
        );
      }
    }
  }
  if (!sameRate || (sampling === 'normalized' && golden.frameCount !== N))
    warnings.push(
      `golden resampled (${sampling}): golden ${golden.frameCount} frames at ${(1 / golden.frameTime).toFixed(3)} fps, observed ${N} at ${fps.toFixed(3)} fps`,
    );
  // A retarget keeps the clip's length: beyond two frames or 2% it is cut short or padded, an Error of
  // the whole clip whatever the poses say.
  const oDur = clipDuration(observed);
  const lengthMismatch =
    sampling === 'seconds' && Math.abs(gDur - oDur) > Math.max(2 * observed.frameTime, 0.02 * gDur);
  if (lengthMismatch)
    warnings.push(
      `length mismatch (Error): the retargeted clip lasts ${oDur.toFixed(3)} s (${N} frames), the golden ${gDur.toFixed(3)} s (${golden.frameCount} frames); a retarget keeps the clip's length`,
    );
  else if (sampling === 'seconds' && Math.abs(gDur - oDur) > observed.frameTime * 1.01)
    warnings.push(
      `durations differ slightly: golden ${gDur.toFixed(3)} s, retargeted ${oDur.toFixed(3)} s (times past the shorter clip's end compare with its last frame)`,
    );

  // Checks.
  const checks: Check[] = [];
  const addCheck = (k: number, measure: QaMeasure, threshold: number, weight: number, values: Float32Array) =>
    checks.push({ k, h: hs[k], measure, threshold, weight, values, severity: new Float32Array(N) });
  for (let k = 0; k < nE; k++) {
    const t = thresholdsOf(hs[k]);
    addCheck(k, 'rotation', t.rot, t.weight, rotDeg[k]);
    if (t.twist !== null && axes[k]) addCheck(k, 'twist', t.twist, t.weight, rotAbs(twistDeg[k]));
  }
  for (const [la, hand] of [
    [H.LeftLowerArm, H.LeftHand],
    [H.RightLowerArm, H.RightHand],
  ]) {
    const kl = kOf[la];
    const kh = kOf[hand];
    if (kl < 0 || kh < 0 || !axes[kl] || !axes[kh]) continue;
    const v = wristTwist(twistDeg[kl], twistDeg[kh], lambda);
    addCheck(kl, 'wrist', p.wrist.thresholdDeg, thresholdsOf(la).weight, v);
  }
  effectors.forEach((h, e) => {
    const t = thresholdsOf(h);
    addCheck(kOf[h], 'position', t.pos!, t.weight, posErr[e]);
  });
  shoulders.forEach(([s], i) => {
    addCheck(kOf[s], 'shoulder', p.shoulderPitchDeg, thresholdsOf(s).weight, rotAbs(pitchErr[i]));
  });

  const score = new Float32Array(N);
  const boneSeverity = hs.map(() => new Float32Array(N));
  for (const c of checks) scoreCheck(c.values, c.threshold, c.weight, c.severity, boneSeverity[c.k], score);

  // Runs.
  interface RawRun {
    c: Check;
    a: number;
    b: number;
    code: QaCauseCode;
    note: string;
  }
  const raw: RawRun[] = [];
  const shortRuns: { c: Check; a: number; b: number }[] = [];
  const stretches: number[] = [];
  for (const c of checks) {
    stretches.length = 0;
    overThreshold(c.values, c.threshold, stretches);
    for (let i = 0; i < stretches.length; i += 2) {
      const f = stretches[i];
      const e = stretches[i + 1];
      if (e - f + 1 >= minRun) raw.push({ c, a: f, b: e, code: 'generic', note: '' });
      else if (shortRuns.length < 1000) shortRuns.push({ c, a: f, b: e });
    }
  }
  const maxOf = (arr: Float32Array | undefined, a: number, b: number) => {
    let m = Number.NEGATIVE_INFINITY;
    if (!arr) return m;
    for (let f = a; f <= b; f++) if (arr[f] > m) m = arr[f];
    return m;
  };
  const minOf = (arr: Float32Array, a: number, b: number) => {
    let m = Number.POSITIVE_INFINITY;
    for (let f = a; f <= b; f++) if (arr[f] < m) m = arr[f];
    return m;
  };
  const sideOf = (h: number) => (HUMAN_BONE_NAMES[h].startsWith('Left') ? 'Left' : 'Right');
  const classify = (r: RawRun): void => {
    const { c, a, b } = r;
    const name = HUMAN_BONE_NAMES[c.h];
    const part = name.replace(/^(Left|Right)/, '');
    if (mirroredDetected) {
      r.code = 'mirrored';
      return;
    }
    if ((part === 'Shoulder' || part === 'UpperArm') && c.measure !== 'position') {
      const side = sideOf(c.h);
      const hsh = H[`${side}Shoulder`];
      const hua = H[`${side}UpperArm`];
      if (oS.humanoid[hsh] < 0) {
        if (part === 'UpperArm' && gS.humanoid[hsh] >= 0) {
          r.code = 'missing-shoulder';
          r.note = `the rig has no ${side}Shoulder bone`;
          return;
        }
      } else if (kOf[hsh] >= 0 && kOf[hua] >= 0) {
        const ks = kOf[hsh];
        const ku = kOf[hua];
        const obsRange = maxOf(obsFromRest[ks]!, a, b) - minOf(obsFromRest[ks]!, a, b);
        const shErr = maxOf(rotDeg[ks], a, b);
        const uaErr = maxOf(rotDeg[ku], a, b);
        if (obsRange < 3 && shErr >= 5 && uaErr >= 0.5 * shErr) {
          r.code = 'missing-shoulder';
          r.note = `${side}Shoulder moves ${obsRange.toFixed(1)} deg in the observed clip, off the golden by up to ${shErr.toFixed(1)} deg`;
          return;
        }
        const tsh = thresholdsOf(hsh).rot;
        if (
          maxOf(obsFromRest[ks]!, a, b) > maxOf(goldFromRest[ks]!, a, b) + 0.5 * tsh &&
          shErr >= 0.5 * tsh
        ) {
          r.code = 'shoulder-overdrive';
          return;
        }
      }
    }
    if (part === 'UpperArm' && c.measure === 'rotation') {
      const hand = H[`${sideOf(c.h)}Hand`];
      const e = effectors.indexOf(hand);
      if (e >= 0 && maxOf(posErr[e], a, b) <= thresholdsOf(hand).pos!) {
        r.code = 'proportion-compensation';
        r.note = `hand within ${(maxOf(posErr[e], a, b) * 100).toFixed(1)}% of height`;
        return;
      }
    }
    if (c.measure !== 'position' && b - a + 1 >= 0.9 * N) {
      const lo = minOf(c.values, a, b);
      const hi = maxOf(c.values, a, b);
      const mean = meanOf(c.values, a, b);
      const tw = twistDeg[c.k];
      const twRange = maxOf(tw, a, b) - minOf(tw, a, b);
      if (hi - lo <= Math.max(2, 0.2 * mean) && twRange <= Math.max(2, 0.2 * mean)) {
        r.code = 'calibration-offset';
        r.note = `${mean.toFixed(1)} deg on average, varying by ${(hi - lo).toFixed(1)}`;
        return;
      }
    }
    if (part === 'LowerArm' || part === 'Hand') {
      if (c.measure === 'twist' || c.measure === 'wrist') {
        r.code = 'forearm-roll';
        return;
      }
      if (c.measure === 'rotation') {
        let pf = a;
        for (let f = a; f <= b; f++) if (c.values[f] > c.values[pf]) pf = f;
        if (Math.abs(twistDeg[c.k][pf]) >= 0.7 * rotDeg[c.k][pf]) {
          r.code = 'forearm-roll';
          return;
        }
      }
    }
    if (c.measure === 'position') r.code = 'end-effector';
  };
  raw.forEach(classify);
  // Position runs: name the limb bone above with an overlapping run.
  const LIMB_ABOVE: Record<string, string[]> = {
    Hand: ['LowerArm', 'UpperArm', 'Shoulder'],
    LowerArm: ['UpperArm', 'Shoulder'],
    Foot: ['LowerLeg', 'UpperLeg'],
  };
  for (const r of raw) {
    if (r.c.measure !== 'position' || r.code !== 'end-effector') continue;
    const name = HUMAN_BONE_NAMES[r.c.h];
    const side = sideOf(r.c.h);
    const above = LIMB_ABOVE[name.replace(/^(Left|Right)/, '')] ?? [];
    for (const part of above) {
      const cand = raw.find(
        (o) =>
          o.c.measure !== 'position' &&
          HUMAN_BONE_NAMES[o.c.h] === `${side}${part}` &&
          o.a <= r.b &&
          r.a <= o.b,
      );
      if (cand) {
        r.note = `follows ${side}${part} (${QA_CAUSES[cand.code].cause}): ${QA_CAUSES[cand.code].action}`;
        break;
      }
    }
  }

  // Levels: S_flagged over runs whose cause is not warning-only.
  const flagged = new Float32Array(N);
  for (const r of raw) {
    if (r.code === 'proportion-compensation') continue;
    addRange(flagged, r.c.severity, r.a, r.b);
  }
  const runs: QaRun[] = raw.map((r) => {
    const { c, a, b } = r;
    let pf = a;
    for (let f = a; f <= b; f++) if (c.values[f] > c.values[pf]) pf = f;
    const bone = HUMAN_BONE_NAMES[c.h];
    const level: 'Warning' | 'Error' =
      r.code !== 'proportion-compensation' && maxOf(flagged, a, b) >= 1 ? 'Error' : 'Warning';
    const { cause, action } = QA_CAUSES[r.code];
    const unit = c.measure === 'position' ? '% of height' : ' deg';
    const show = (v: number) => (c.measure === 'position' ? (v * 100).toFixed(1) : v.toFixed(1));
    const message = `${bone} ${MEASURE_WORD[c.measure]} over threshold for frames ${a}-${b} (peak ${show(c.values[pf])}${unit} at frame ${pf}, threshold ${show(c.threshold)}${unit}${r.note ? `; ${r.note}` : ''}) -> ${action}`;
    return {
      bone,
      measure: c.measure,
      startFrame: a,
      endFrame: b,
      startSeconds: a * observed.frameTime,
      endSeconds: b * observed.frameTime,
      peak: c.values[pf],
      peakFrame: pf,
      threshold: c.threshold,
      level,
      cause: r.code === 'generic' ? `${MEASURE_WORD[c.measure]} ${QA_CAUSES.generic.cause}` : cause,
      action,
      message,
      causeCode: r.code,
      severity: maxOf(c.severity, a, b),
    };
  });
  runs.sort((x, y) =>
    x.level !== y.level
      ? x.level === 'Error'
        ? -1
        : 1
      : y.severity - x.severity || x.startFrame - y.startFrame,
  );

  let maxScore = 0;
  let sum = 0;
  for (let f = 0; f < N; f++) {
    if (score[f] > maxScore) maxScore = score[f];
    sum += score[f];
  }
  if (shortRuns.length > 0) {
    const list = shortRuns
      .slice(0, 5)
      .map(
        (r) =>
          `${HUMAN_BONE_NAMES[r.c.h]} ${r.c.measure} at frame${r.a === r.b ? ` ${r.a}` : `s ${r.a}-${r.b}`}`,
      );
    warnings.push(
      `short excursions over threshold, shorter than the minimum run of ${minRun} frames (a Warning at most, no run): ${list.join('; ')}${shortRuns.length > 5 ? `; ${shortRuns.length - 5} more` : ''}`,
    );
  }
  const result: QaResult =
    lengthMismatch || runs.some((r) => r.level === 'Error') ? 'Error' : maxScore > 0 ? 'Warning' : 'Pass';

  const series: QaSeries[] = hs.map((h, k) => {
    const t = thresholdsOf(h);
    const vel = new Float32Array(N);
    twistVelocity(twistDeg[k], fps, vel);
    return {
      bone: HUMAN_BONE_NAMES[h],
      rotDeg: rotDeg[k],
      twistDeg: twistDeg[k],
      swingDeg: swingDeg[k],
      severity: boneSeverity[k],
      rotThresholdDeg: t.rot,
      twistThresholdDeg: axes[k] ? t.twist : null,
      twistVelocityDegPerSec: vel,
    };
  });
  return {
    name: options.name ?? observed.name,
    frames: N,
    fps,
    durationSeconds: clipDuration(observed),
    result,
    maxScore,
    meanScore: sum / N,
    score,
    runs,
    series,
    warnings,
  };
}

function meanOf(arr: Float32Array, a: number, b: number): number {
  let s = 0;
  for (let f = a; f <= b; f++) s += arr[f];
  return s / (b - a + 1);
}

/** E_wrist per frame: `|forearm[f]| + lambda * |hand[f]|` (twists in degrees). */
function wristTwist(forearm: Float32Array, hand: Float32Array, lambda: number): Float32Array {
  const v = new Float32Array(forearm.length);
  for (let f = 0; f < v.length; f++) v[f] = Math.abs(forearm[f]) + lambda * Math.abs(hand[f]);
  return v;
}

/** `into[f] += add[f]` for f in [a, b]. */
function addRange(into: Float32Array, add: Float32Array, a: number, b: number): void {
  for (let f = a; f <= b; f++) into[f] += add[f];
}

function rotAbs(v: Float32Array): Float32Array {
  const o = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) o[i] = Math.abs(v[i]);
  return o;
}

/** out[4k] = conj(R[4p]) * R[4b] (p = -1: R[4b]) for rest world rotations R. */
function relRot(out: Float64Array, k: number, R: Float64Array, p: number, b: number): void {
  if (p < 0) qcopy(out, 4 * k, R, 4 * b);
  else qmulConj(out, 4 * k, R, 4 * p, R, 4 * b);
}
