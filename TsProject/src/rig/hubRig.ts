/**
 * The hub's rig, built once, and its per-frame update (the frame order is in src/rig/hub.ts): the
 * retargeter, finger rig, props and limb weights it drives, the four limbs' IK (goals, elbow bend goals,
 * foot offsets), the head offset, and the final forward pass. Engine-free; allocates nothing per frame.
 *
 * The first of the hub's layers: {@link HubRig} (this file) <- HubSettings (hubSettings.ts) <-
 * HubCalibration (hubCalibration.ts) <- RetargetHub (hub.ts, the public class).
 */
import { quat } from 'gl-matrix';
import {
  fromTo,
  HumanBodyBones as H,
  qcopy,
  qmul,
  qnormalize,
  quat64,
  type Skeleton,
  vrotate,
  vrotateConj,
} from '../core';
import { ArmIK, humanoidLimb, LegIK, LegSourceJoints, type Limb, LimbGoal } from '../ik';
import { canonicalPose, Retargeter, type RetargetOptions } from '../retarget';
import { FingerRig } from './fingers';
import {
  checkChoice,
  checkRange,
  describe,
  HubError,
  type HubOptions,
  type IKWeightMode,
} from './hubOptions';
import type { HubCalibrationRecord } from './hubState';
import {
  createLimbWeightsInput,
  HipsOutput,
  LimbWeights,
  type LimbWeightsInput,
  WeightJoint,
  Limb as WL,
} from './limbWeights';
import { PropSystem } from './props';
import { defaultSettings, type Settings, validateSettings } from './settings';
import { SourceStage } from './sourceStage';

interface LimbState {
  name: 'leftArm' | 'rightArm' | 'leftLeg' | 'rightLeg';
  arm: boolean;
  ik: ArmIK | LegIK;
  goal: LimbGoal;
  /** Virtual target bones. */
  limb: Limb;
  /** Real source bones of the same humanoid limb (upper, lower, end). */
  src: [number, number, number];
  /** Index into the weights. */
  weight: number;
  /** Source leg joints (legs). */
  legSource: LegSourceJoints;
}

const LIMBS = [
  { name: 'leftArm', arm: true, bones: [H.LeftUpperArm, H.LeftLowerArm, H.LeftHand], weight: WL.LeftArm },
  {
    name: 'rightArm',
    arm: true,
    bones: [H.RightUpperArm, H.RightLowerArm, H.RightHand],
    weight: WL.RightArm,
  },
  { name: 'leftLeg', arm: false, bones: [H.LeftUpperLeg, H.LeftLowerLeg, H.LeftFoot], weight: WL.LeftLeg },
  {
    name: 'rightLeg',
    arm: false,
    bones: [H.RightUpperLeg, H.RightLowerLeg, H.RightFoot],
    weight: WL.RightLeg,
  },
] as const;

/** The hub's parts and its per-frame update; the public class is {@link RetargetHub} (src/rig/hub.ts). */
export abstract class HubRig {
  readonly source: Skeleton;
  readonly target: Skeleton;
  readonly retargeter: Retargeter;
  readonly fingers: FingerRig;
  readonly weights: LimbWeights;
  readonly props: PropSystem;
  /** Output: the avatar's local rotations `4n` (its own bone order). */
  readonly localRotations: Float64Array;
  /** Output: the avatar's local translations `3n`, metres. */
  readonly localTranslations: Float64Array;
  /** Output: `[hips scale, head scale]` for the host to put on those nodes. */
  readonly outputScales = new Float64Array([1, 1]);
  /** Per limb, the IK target position this frame (world, metres), `[leftArm, rightArm, leftLeg, rightLeg] x 3`. */
  readonly ikTargets = new Float64Array(12);
  /** Per limb, where the end bone is after the solve, `4 x 3`. */
  readonly ikReached = new Float64Array(12);
  /** Per limb, the IK position weight used this frame, `[leftArm, rightArm, leftLeg, rightLeg]`. */
  readonly ikWeights = new Float64Array(4);
  /**
   * Per limb `[position, rotation, bendGoal]` IK weights set by the host (the original's
   * `TwoBoneIKSolver.LimbIK` weights, written by the Unity facade), `4 x 3`, in [0, 1]; NaN (the
   * default): the hub's own (position and rotation from the limb weights / IK mode, bend goal 1 for
   * arms and 0 for legs). A set position weight of 0 skips the limb's IK.
   */
  readonly ikWeightOverride = new Float64Array(12).fill(Number.NaN);
  /**
   * Per limb `[target x, y, z, bend goal x, y, z]` set by the host (the original's `LimbIK.target` and
   * `bendGoal` Transforms), `4 x 6`, in the hub's world frame (metres); NaN (the default): the hub's own
   * (the target from the source, the arms' bend goal from the source elbow, the legs' knee from the
   * source knee). A leg's bend goal weight applies only while its bend goal is set here.
   */
  readonly ikGoalOverride = new Float64Array(24).fill(Number.NaN);
  /**
   * Per limb the end bone's (hand/foot) world rotation set by the host (the rotation of the original's
   * `LimbIK.target` Transform), `4 x 4` unit quaternions `[x, y, z, w]` in the hub's world frame; NaN
   * (the default): the hub's own (the end bone's FK rotation). The solver blends the end bone's world
   * rotation from FK to it by the limb's rotation weight (TwoBoneIK.blendEndRotation: weight 1 gives it
   * exactly); the end bone's position does not depend on it.
   */
  readonly ikRotationOverride = new Float64Array(16).fill(Number.NaN);
  ikMode: IKWeightMode;

  /**
   * The live source stage (raw and One-Euro-filtered poses of the source, src/rig/sourceStage.ts), fed
   * by {@link RetargetHub.updateLive}; its parameters are `settings.sourceFilter`.
   */
  readonly sourceStage: SourceStage;

  protected settingsValue: Settings;
  protected readonly limbs: LimbState[];
  protected sourceFingers: FingerRig | null = null;
  private readonly weightInput: LimbWeightsInput;
  private readonly L: Float64Array; // virtual local rotations
  private readonly pinned: Uint8Array;
  /** Virtual bones the final forward pass visits: the limbs' and the head's subtrees, parents first. */
  private readonly passBones: Int32Array;
  /** The retargeter calibration and finger write serials the unneeded local rotations were written for. */
  private seenCalibration = -1;
  private seenFingerSerial = -1;
  /** True when the copy never writes the finger bones' local rotations (see the constructor). */
  private readonly fingersUntouched: boolean;
  protected readonly headForward = quat64();
  protected readonly headCopyLocal = quat64();
  private readonly headOffsetLocal = quat64();
  protected readonly vHead: number;
  private readonly vHips: number;
  private readonly sHips: number;
  protected calibrated = false;
  protected lastFrameRot: Float64Array;
  protected lastFramePos: Float64Array;
  private readonly qs = quat64();

  /** How the hub was last calibrated (for exportState). */
  protected lastCalibration: HubCalibrationRecord | null = null;

  protected snapWeights = true;

  constructor(source: Skeleton, target: Skeleton, options: HubOptions = {}) {
    this.source = source;
    this.target = target;
    if (!options || typeof options !== 'object')
      throw new HubError(`options: need an object, got ${describe(options)}`);
    if (options.hipsMode !== undefined)
      checkChoice('options.hipsMode', options.hipsMode, ['scaled', 'room'] as const);
    if (options.sourceUp !== undefined)
      checkChoice('options.sourceUp', options.sourceUp, [
        'auto',
        '+x',
        '-x',
        '+y',
        '-y',
        '+z',
        '-z',
      ] as const);
    if (options.ik !== undefined) checkChoice('options.ik', options.ik, ['auto', 'on', 'off'] as const);
    if (options.fingers !== undefined)
      checkChoice('options.fingers', options.fingers, ['none', 'muscleData', 'rotation'] as const);
    if (options.sourceContactHeight !== undefined)
      checkRange('options.sourceContactHeight', options.sourceContactHeight, -10, 10, ' m');
    try {
      this.settingsValue = validateSettings(
        { ...defaultSettings(), ...(options.settings ?? {}) },
        'hub settings',
      );
    } catch (e) {
      throw new HubError((e as Error).message);
    }
    this.sourceStage = new SourceStage(source, this.settingsValue.sourceFilter);
    const s = this.settingsValue;
    const ropts: RetargetOptions = {
      hipsMode: options.hipsMode ?? 'room',
      sourceUp: options.sourceUp ?? 'auto',
      avatarScale: s.avatarScale,
      headScale: s.headScale,
      sourceContactHeight: options.sourceContactHeight,
      shoulderTwist: options.shoulderTwist,
    };
    this.retargeter = new Retargeter(source, target, ropts);
    this.ikMode = options.ik ?? 'auto';
    const vt = this.retargeter.virtual.skeleton;
    const n = vt.boneCount;
    this.L = new Float64Array(4 * n);
    this.pinned = new Uint8Array(n);
    this.localRotations = new Float64Array(4 * target.boneCount);
    this.localTranslations = new Float64Array(3 * target.boneCount);
    this.vHead = vt.humanoid[H.Head];
    this.vHips = vt.humanoid[H.Hips];
    this.sHips = source.humanoid[H.Hips];
    this.lastFrameRot = Float64Array.from(source.restRotations);
    this.lastFramePos = Float64Array.from(source.restTranslations);
    // fingers on the target's canonical T-pose (the same pose the retargeter calibrates to)
    const tRef = canonicalPose(vt, { kind: 'T' });
    this.fingers = new FingerRig(vt, tRef, { mode: options.fingers ?? 'rotation' });
    // Finger bones the copy never touches (no world pose needed, local output): between refills of
    // those bones only the finger rig writes them, so it may skip fingers whose muscles held still.
    let untouched = this.retargeter.virtual.identity;
    for (let b = H.LeftThumbProximal; b <= H.RightLittleDistal; b++) {
      const t = vt.humanoid[b];
      if (t >= 0 && this.retargeter.worldNeeded[t] === 1) untouched = false;
    }
    this.fingersUntouched = untouched;
    this.props = new PropSystem(vt, { reference: tRef });
    this.weights = new LimbWeights({ chairSeatOffset: s.chairSeatOffset });
    this.weightInput = createLimbWeightsInput(this.props);
    this.limbs = LIMBS.map((d) => {
      const limbName = (d.name[0].toUpperCase() + d.name.slice(1)) as
        | 'LeftArm'
        | 'RightArm'
        | 'LeftLeg'
        | 'RightLeg';
      const limb = humanoidLimb(vt, limbName);
      const side = d.name.startsWith('left') ? 'left' : 'right';
      const src = d.bones.map((h) => {
        const b = source.humanoid[h];
        if (b < 0) throw new HubError(`source skeleton has no ${limbName} bone for HumanBodyBones ${h}`);
        return b;
      }) as [number, number, number];
      // a small fallback zone: the source elbow's side is trusted down to 2% of the arm's length off the line
      const ik = d.arm ? new ArmIK(vt, limb, side, { bendFalloff: 0.02 }) : new LegIK(vt, limb, side);
      const goal = new LimbGoal();
      goal.weights[2] = d.arm ? 1 : 0;
      return {
        name: d.name,
        arm: d.arm,
        ik,
        goal,
        limb,
        src,
        weight: d.weight,
        legSource: new LegSourceJoints(),
      };
    });
    // Only IK (four limbs) and the head offset change the pose after the copy; their subtrees are all
    // the final forward pass has to visit.
    const inPass = new Uint8Array(n);
    const roots = [...this.limbs.map((l) => l.limb.upper), this.vHead];
    for (let t = 0; t < n; t++) {
      for (let a = t; a >= 0; a = vt.parents[a]) {
        if (roots.includes(a)) {
          inPass[t] = 1;
          break;
        }
      }
    }
    // Without re-parenting the output is the local rotations, so bones outside worldNeeded (fingers,
    // unread leaves) need no world pose: left out of the pass.
    const skipUnneeded = this.retargeter.virtual.identity;
    const needed = this.retargeter.worldNeeded;
    this.passBones = Int32Array.from(
      Array.from({ length: n }, (_, t) => t).filter(
        (t) => inPass[t] === 1 && vt.parents[t] >= 0 && (!skipUnneeded || needed[t] === 1),
      ),
    );
    this.updateHeadOffset();
  }

  /** Head rotation offset in the head's reference frame (Retargeter docs), combined with the head-forward fix. */
  protected updateHeadOffset(): void {
    const [x, y, z] = this.settingsValue.headRotationOffset;
    const r = this.retargeter;
    // The retargeter computes the reference-frame offset; the hub applies it after IK itself.
    r.setHeadRotationOffset(x, y, z);
    if (r.isCalibrated) {
      r.headOffsetQuat(this.headOffsetLocal);
      // the hub applies the offset after IK: the retargeter's copy step gets none
      r.setHeadRotationOffset(0, 0, 0);
    } else {
      quat.identity(this.headOffsetLocal);
    }
  }

  /**
   * One live frame: the source stage ({@link RetargetHub.sourceStage}: raw pose kept, One-Euro
   * filtered with `settings.sourceFilter`) then {@link RetargetHub.update} on the filtered pose.
   * `srcLocalRot` `4 * sourceBones`, `srcLocalPos` `3 * sourceBones` (metres), `dt` seconds since the
   * last frame as the stream's clock gives it (dropped frames included); the hub's own smoothing gets
   * `hubDt` when given (e.g. a clamped value), else `dt`. Allocates nothing.
   * @throws HubError when called before calibrate() or for arrays of the wrong length.
   */
  updateLive(srcLocalRot: ArrayLike<number>, srcLocalPos: ArrayLike<number>, dt: number, hubDt = dt): void {
    if (!this.calibrated) throw new HubError('updateLive called before calibrate()');
    try {
      this.sourceStage.update(srcLocalRot, srcLocalPos, dt);
    } catch (e) {
      throw new HubError(`updateLive: ${(e as Error).message}`);
    }
    this.update(this.sourceStage.localRotations, this.sourceStage.localTranslations, hubDt);
  }

  /**
   * One frame. `srcLocalRot` `4 * sourceBones`, `srcLocalPos` `3 * sourceBones` (metres, source frame),
   * `dt` seconds since the last frame (0 on the first). Writes `localRotations`, `localTranslations`,
   * `outputScales`. Allocates nothing.
   * @throws HubError when called before calibrate().
   */
  update(srcLocalRot: ArrayLike<number>, srcLocalPos: ArrayLike<number>, dt: number): void {
    if (!this.calibrated) throw new HubError('update called before calibrate()');
    // lengths only (two compares): a NaN value gives NaN for that frame and is gone on the next
    if (
      srcLocalRot?.length !== this.source.boneCount * 4 ||
      srcLocalPos?.length !== this.source.boneCount * 3
    )
      throw new HubError(
        `update: source rotations/translations have lengths ${srcLocalRot?.length}/${srcLocalPos?.length}, expected ${4 * this.source.boneCount}/${3 * this.source.boneCount}`,
      );
    const r = this.retargeter;
    // 1. copy the pose (world rotations and positions, and local rotations, of the virtual skeleton)
    const L = this.L;
    const identity = r.virtual.identity;
    let fingersKept = this.fingersUntouched;
    if (identity) {
      // the constant local rotations of the bones the copy skips: after a calibration, and when the
      // fingers stopped writing some bones they had written
      const fs = this.fingers.writeSerial;
      if (r.calibrationSerial !== this.seenCalibration || fs !== this.seenFingerSerial) {
        r.writeUnneededLocal(L);
        this.seenCalibration = r.calibrationSerial;
        this.seenFingerSerial = fs;
        fingersKept = false;
      }
    }
    r.computeVirtualPose(srcLocalRot, srcLocalPos, L, identity);
    const vt = r.virtual.skeleton;
    const n = vt.boneCount;
    const W = r.virtualWorldRotations;
    const P = r.virtualWorldPositions;
    const SP = r.lastSourceWorldPositions;
    qcopy(this.headCopyLocal, 0, L, 4 * this.vHead);

    // 2. hips: floor height, the hips-height correction scaled by the hips weight, the seat offset.
    // The weights are the previous frame's (they need this frame's pose); right after a calibration
    // they are snapped to this frame's copied pose first. With IK forced on or off the hips keep the
    // full correction and no seat offset, as plain retargeting does.
    const s = this.settingsValue;
    const vh3 = 3 * this.vHips;
    const sh3 = 3 * this.sHips;
    const auto = this.ikMode === 'auto';
    if (auto && this.snapWeights) {
      this.fillWeightInput(P);
      this.weights.snap(this.weightInput);
    }
    const correction = P[vh3 + 1] - SP[sh3 + 1];
    const wh = this.weights.hips;
    let dy = s.floorHeight;
    if (auto) {
      dy += (wh[HipsOutput.Correction] - 1) * correction;
      // seated: the hips go to the chair's seat point (the chair prop's position) plus the seat
      // offset, by the seat amount
      const seat = wh[HipsOutput.Seat];
      const chair = this.weights.nearestSlot[2];
      if (seat > 0 && chair >= 0) {
        const seatY = this.props.positions[3 * chair + 1] + this.weights.settings.chairSeatOffset;
        dy += seat * (seatY - (P[vh3 + 1] + dy));
      }
    }
    if (dy !== 0) for (let t = 0; t < n; t++) P[3 * t + 1] += dy;

    // 3. IK targets
    const k = r.info!.hipsScale;
    const targets = this.ikTargets;
    for (let li = 0; li < 4; li++) {
      const l = this.limbs[li];
      const g = l.goal;
      const se3 = 3 * l.src[2];
      const tp = g.targetPosition;
      tp[0] = P[vh3] + k * (SP[se3] - SP[sh3]);
      tp[1] = P[vh3 + 1] + k * (SP[se3 + 1] - SP[sh3 + 1]);
      tp[2] = P[vh3 + 2] + k * (SP[se3 + 2] - SP[sh3 + 2]);
      qcopy(g.targetRotation, 0, W, 4 * l.limb.end);
      if (l.arm) {
        this.armBendGoal(l, tp, P, SP);
      } else {
        this.applyFootOffsets(li, tp, W);
        const ls = l.legSource;
        const su3 = 3 * l.src[0];
        const sm3 = 3 * l.src[1];
        for (let c = 0; c < 3; c++) {
          ls.hip[c] = SP[su3 + c];
          ls.knee[c] = SP[sm3 + c];
          ls.ankle[c] = SP[se3 + c];
        }
      }
      // host-set target and bend goal (not NaN) replace the hub's own
      const go = this.ikGoalOverride;
      const o6 = 6 * li;
      if (!Number.isNaN(go[o6])) for (let c = 0; c < 3; c++) tp[c] = go[o6 + c];
      if (!Number.isNaN(go[o6 + 3])) for (let c = 0; c < 3; c++) g.bendGoal[c] = go[o6 + 3 + c];
      const ro = this.ikRotationOverride;
      if (!Number.isNaN(ro[4 * li])) qcopy(g.targetRotation, 0, ro, 4 * li);
      targets[3 * li] = tp[0];
      targets[3 * li + 1] = tp[1];
      targets[3 * li + 2] = tp[2];
    }

    // 4. fingers (local rotations of the finger bones)
    this.fingers.update(L, this.sourceFingers, r.lastSourceLocalRotations, fingersKept);

    // 5. weights
    if (auto) {
      this.fillWeightInput(P);
      if (this.snapWeights) this.weights.snap(this.weightInput);
      else this.weights.update(this.weightInput, dt);
    }
    this.snapWeights = false;

    // 6. IK solve
    const pinned = this.pinned;
    pinned.fill(0);
    for (let li = 0; li < 4; li++) {
      const l = this.limbs[li];
      const own = this.ikMode === 'on' ? 1 : this.ikMode === 'off' ? 0 : this.weights.weights[l.weight];
      const ov = this.ikWeightOverride;
      const o3 = 3 * li;
      // a host-set weight (not NaN) replaces the hub's own
      const w = Number.isNaN(ov[o3]) ? own : ov[o3];
      l.goal.weights[0] = w;
      l.goal.weights[1] = Number.isNaN(ov[o3 + 1]) ? own : ov[o3 + 1];
      // legs: a bend goal weight only with a host-set bend goal (their knee comes from the source knee)
      const bendSet = l.arm || !Number.isNaN(this.ikGoalOverride[6 * li + 3]);
      l.goal.weights[2] = Number.isNaN(ov[o3 + 2]) || !bendSet ? (l.arm ? 1 : 0) : ov[o3 + 2];
      this.ikWeights[li] = w;
      if (w <= 0) continue;
      if (l.arm) (l.ik as ArmIK).solve(W, P, l.goal);
      else (l.ik as LegIK).solve(W, P, l.goal, l.legSource);
      pinned[l.limb.upper] = 1;
      pinned[l.limb.lower] = 1;
      pinned[l.limb.end] = 1;
    }

    // 7. head rotation offset and head-forward fix, on the head's local rotation
    const h4 = 4 * this.vHead;
    qmul(L, h4, L, h4, this.headForward, 0);
    qmul(L, h4, L, h4, this.headOffsetLocal, 0);
    qnormalize(L, h4);

    // 8. one forward pass: IK-set bones keep their world rotation, all others their local rotation
    this.forwardPass(W, P, L, pinned);
    if (identity) this.writeIdentityOutput(P);
    else r.writeOutput(this.localRotations, this.localTranslations);
    for (let li = 0; li < 4; li++) {
      const e3 = 3 * this.limbs[li].limb.end;
      this.ikReached[3 * li] = P[e3];
      this.ikReached[3 * li + 1] = P[e3 + 1];
      this.ikReached[3 * li + 2] = P[e3 + 2];
    }
    this.outputScales[0] = s.avatarScale;
    this.outputScales[1] = s.headScale;
    this.props.update(W, P);
  }

  /**
   * Output when the avatar needed no re-parenting: the virtual local rotations are the avatar's own;
   * translations are the rest ones but for the hips (from its world position).
   */
  private writeIdentityOutput(P: Float64Array): void {
    const out = this.localRotations;
    const L = this.L;
    out.set(L);
    const T = this.localTranslations;
    T.set(this.target.restTranslations);
    const h = this.vHips;
    const p = this.target.parents[h];
    const h3 = 3 * h;
    if (p < 0) {
      T[h3] = P[h3];
      T[h3 + 1] = P[h3 + 1];
      T[h3 + 2] = P[h3 + 2];
    } else {
      const W = this.retargeter.virtualWorldRotations;
      const v = FWD;
      v[0] = P[h3] - P[3 * p];
      v[1] = P[h3 + 1] - P[3 * p + 1];
      v[2] = P[h3 + 2] - P[3 * p + 2];
      vrotateConj(T, h3, W, 4 * p, v, 0);
    }
  }

  /**
   * Elbow bend goal: the source elbow's offset from its shoulder -> hand line, turned by the rotation
   * from the source's shoulder -> hand direction to the avatar's shoulder -> target direction, set off
   * from the middle of the avatar's line: the bend plane keeps its place around the limb axis (as the
   * knee construction does for legs), whatever the avatar's proportions make of the bend angle.
   */
  private armBendGoal(l: LimbState, tp: Float64Array, P: Float64Array, SP: Float64Array): void {
    const a = this.bendAxisS;
    const b = this.bendAxisT;
    const e = this.bendPerp;
    const su = 3 * l.src[0];
    const sm = 3 * l.src[1];
    const se = 3 * l.src[2];
    const tu = 3 * l.limb.upper;
    a[0] = SP[se] - SP[su];
    a[1] = SP[se + 1] - SP[su + 1];
    a[2] = SP[se + 2] - SP[su + 2];
    const ls = Math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    b[0] = tp[0] - P[tu];
    b[1] = tp[1] - P[tu + 1];
    b[2] = tp[2] - P[tu + 2];
    const lt = Math.sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const g = l.goal.bendGoal;
    if (!(ls > 1e-9) || !(lt > 1e-9)) {
      // degenerate: the source elbow as is, hung on the avatar's shoulder
      g[0] = P[tu] + SP[sm] - SP[su];
      g[1] = P[tu + 1] + SP[sm + 1] - SP[su + 1];
      g[2] = P[tu + 2] + SP[sm + 2] - SP[su + 2];
      return;
    }
    a[0] /= ls;
    a[1] /= ls;
    a[2] /= ls;
    b[0] /= lt;
    b[1] /= lt;
    b[2] /= lt;
    const ex = SP[sm] - SP[su];
    const ey = SP[sm + 1] - SP[su + 1];
    const ez = SP[sm + 2] - SP[su + 2];
    const d = ex * a[0] + ey * a[1] + ez * a[2];
    e[0] = ex - d * a[0];
    e[1] = ey - d * a[1];
    e[2] = ez - d * a[2];
    fromTo(this.bendQuat, a, b);
    vrotate(e, 0, this.bendQuat, 0, e, 0);
    g[0] = P[tu] + 0.5 * lt * b[0] + e[0];
    g[1] = P[tu + 1] + 0.5 * lt * b[1] + e[1];
    g[2] = P[tu + 2] + 0.5 * lt * b[2] + e[2];
  }

  private readonly bendAxisS = new Float64Array(3);
  private readonly bendAxisT = new Float64Array(3);
  private readonly bendPerp = new Float64Array(3);
  private readonly bendQuat = quat64();

  /**
   * The weights' input from the current pose: hands, feet, hips positions, the floor height, and the
   * body scale: the hips-height ratio k (avatar over performer, times the avatar scale), the factor the
   * IK targets scale the performer by, so the weights' ramps (an adult performer's metres) apply to
   * an avatar of any size.
   */
  private fillWeightInput(P: Float64Array): void {
    const wi = this.weightInput;
    const J = wi.joints;
    copyJoint(J, WeightJoint.LeftHand, P, this.limbs[0].limb.end);
    copyJoint(J, WeightJoint.RightHand, P, this.limbs[1].limb.end);
    copyJoint(J, WeightJoint.LeftFoot, P, this.limbs[2].limb.end);
    copyJoint(J, WeightJoint.RightFoot, P, this.limbs[3].limb.end);
    copyJoint(J, WeightJoint.Hips, P, this.vHips);
    wi.floor[0] = this.settingsValue.floorHeight;
    wi.scale![0] = this.retargeter.info!.hipsScale;
  }

  /**
   * Foot targets: front/back and in/out offsets in the foot's horizontal axes. (The floor height is in
   * already: targets hang off the avatar's hips, which step 2 raised by it.)
   */
  private applyFootOffsets(li: number, tp: Float64Array, W: Float64Array): void {
    const s = this.settingsValue;
    const off = li === 2 ? s.footOffsets.left : s.footOffsets.right;
    if (off.frontBack === 0 && off.inOut === 0) return;
    // the foot's forward: its reference forward (+Z at the T-pose) turned by the foot's world rotation
    // relative to its reference rotation, flattened
    const l = this.limbs[li];
    const ref = this.retargeter.targetReference!.world.rotations;
    const e4 = 4 * l.limb.end;
    const q = this.qs;
    // q = W_foot * inverse(ref_foot)
    const bx = -ref[e4];
    const by = -ref[e4 + 1];
    const bz = -ref[e4 + 2];
    const bw = ref[e4 + 3];
    const ax = W[e4];
    const ay = W[e4 + 1];
    const az = W[e4 + 2];
    const aw = W[e4 + 3];
    q[0] = ax * bw + aw * bx + ay * bz - az * by;
    q[1] = ay * bw + aw * by + az * bx - ax * bz;
    q[2] = az * bw + aw * bz + ax * by - ay * bx;
    q[3] = aw * bw - ax * bx - ay * by - az * bz;
    const f = FWD;
    vrotate(f, 0, q, 0, Z_AXIS, 0);
    f[1] = 0;
    const len = Math.sqrt(f[0] * f[0] + f[2] * f[2]);
    if (len < 1e-9) return;
    const fx = f[0] / len;
    const fz = f[2] / len;
    // outward: the character's left for the left foot, right for the right foot; left = up x forward
    const side = li === 2 ? 1 : -1;
    const ox = side * fz;
    const oz = side * -fx;
    tp[0] += fx * off.frontBack + ox * off.inOut;
    tp[2] += fz * off.frontBack + oz * off.inOut;
  }

  /**
   * FK over the subtrees IK and the head offset changed (passBones): pinned bones keep W and P (set
   * by the solver) and get L; others get W from L and P from the rest translations. Other bones kept their copied world pose.
   */
  private forwardPass(W: Float64Array, P: Float64Array, L: Float64Array, pinned: Uint8Array): void {
    const r = this.retargeter;
    const vt = r.virtual.skeleton;
    const parents = vt.parents;
    const rest = vt.restTranslations;
    const ts = r.translationScales;
    const hips = this.vHips;
    const list = this.passBones;
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      const p = parents[t];
      const t4 = 4 * t;
      const p4 = 4 * p;
      const qx = W[p4];
      const qy = W[p4 + 1];
      const qz = W[p4 + 2];
      const qw = W[p4 + 3];
      if (pinned[t] === 1) {
        // L = conjugate(parent) * W
        const bx = W[t4];
        const by = W[t4 + 1];
        const bz = W[t4 + 2];
        const bw = W[t4 + 3];
        L[t4] = -qx * bw + qw * bx - qy * bz + qz * by;
        L[t4 + 1] = -qy * bw + qw * by - qz * bx + qx * bz;
        L[t4 + 2] = -qz * bw + qw * bz - qx * by + qy * bx;
        L[t4 + 3] = qw * bw + qx * bx + qy * by + qz * bz;
        // pinned bones are a solved limb's upper, lower and end: the solver left their positions
        // consistent with W (the upper's is unchanged, the others it placed)
        continue;
      } else {
        const bx = L[t4];
        const by = L[t4 + 1];
        const bz = L[t4 + 2];
        const bw = L[t4 + 3];
        W[t4] = qx * bw + qw * bx + qy * bz - qz * by;
        W[t4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
        W[t4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
        W[t4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
      }
      if (t === hips) continue;
      const t3 = 3 * t;
      const p3 = 3 * p;
      const f = ts[t];
      const x = rest[t3] * f;
      const y = rest[t3 + 1] * f;
      const z = rest[t3 + 2] * f;
      const uvx = qy * z - qz * y;
      const uvy = qz * x - qx * z;
      const uvz = qx * y - qy * x;
      P[t3] = P[p3] + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
      P[t3 + 1] = P[p3 + 1] + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
      P[t3 + 2] = P[p3 + 2] + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
    }
  }
}

const FWD = new Float64Array(3);

/** J[o..o+2] = P[3b..3b+2]. */
function copyJoint(J: Float64Array, o: number, P: Float64Array, b: number): void {
  J[o] = P[3 * b];
  J[o + 1] = P[3 * b + 1];
  J[o + 2] = P[3 * b + 2];
}
const Z_AXIS = new Float64Array([0, 0, 1]);
