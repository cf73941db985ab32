/**
 * The live retargeting hub: one object per avatar that owns a live rig's frame order.
 *
 * Each `update(source, dt)`:
 * 1. copy the pose (world-rotation offsets, {@link Retargeter}), with the spine/neck distribution and
 *    chain fit it does;
 * 2. hips: floor height, the hips-height correction scaled by the hips weight; seated, the hips go
 *    to the chair's seat point (plus the seat offset) by the seat amount;
 * 3. IK targets: the source's hands and ankles mapped into the avatar's space
 *    (`avatarHips + k * (sourceJoint - sourceHips)`, k the hips-height ratio, so hand-to-hand and
 *    foot-to-floor relations scale with the body); elbow bend goals: the source's shoulder -> elbow
 *    vector (times k) from the avatar's shoulder; feet also get the floor height and the foot
 *    front/back and in/out offsets in foot-local axes (in/out mirrored left/right, positive outward);
 *    end-bone rotations from the copied pose;
 * 4. fingers (FingerRig: copied rotations, controls and presets, or the source's muscles);
 * 5. limb weights (LimbWeights: hand contact, props, planted feet, chair), smoothed;
 * 6. IK solve on four limbs (ArmIK: law of cosines with the source elbow as bend goal; LegIK: the
 *    source knee construction), position and rotation weights from step 5;
 * 7. head rotation offset (and the head-forward calibration) on the head's local rotation, after IK;
 *    head and avatar scale are reported in {@link RetargetHub.outputScales} for the host to put on the
 *    head and hips nodes;
 * 8. one forward pass (bones IK set keep their world rotation, all others their local) and the
 *    conversion to the avatar's own hierarchy; props follow.
 *
 * Everything per frame works on flat typed arrays owned by the hub and allocates nothing.
 * Frame: DESIGN.md (Y up, metres, faces +Z). Settings in degrees and metres; see src/rig/settings.ts.
 */
import { quat } from 'gl-matrix';
import {
  fromTo,
  HumanBodyBones as H,
  qcopy,
  qmul,
  qnormalize,
  quat64,
  readFrame,
  type Skeleton,
  vrotate,
  vrotateConj,
} from '../core';
import { ArmIK, humanoidLimb, LegIK, LegSourceJoints, type Limb, LimbGoal } from '../ik';
import { canonicalPose, RetargetError, Retargeter, type RetargetOptions } from '../retarget';
import { type FingerCopyMode, FingerRig } from './fingers';
import {
  checkChoice,
  checkFrame,
  checkRange,
  describe,
  HubError,
  type HubOptions,
  type IKWeightMode,
} from './hubOptions';
import {
  decodeStateNumbers,
  encodeStateNumbers,
  HUB_STATE_VERSION,
  type HubCalibrationRecord,
  type HubState,
} from './hubState';
import {
  createLimbWeightsInput,
  HipsOutput,
  LimbWeights,
  type LimbWeightsInput,
  WeightJoint,
  Limb as WL,
} from './limbWeights';
import { PropSystem } from './props';
import {
  defaultSettings,
  SETTINGS_LIMITS,
  type Settings,
  type SourceFilterGroup,
  validateSettings,
} from './settings';
import { SourceStage } from './sourceStage';

export { HubError, type HubOptions, type IKWeightMode } from './hubOptions';

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

/**
 * One avatar driven live by one source. Create, `calibrate(frame)`, then `update(rot, pos, dt)` every
 * frame and read `localRotations` / `localTranslations` (the avatar's own bone order) and `outputScales`.
 */
export class RetargetHub {
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

  private settingsValue: Settings;
  private readonly limbs: LimbState[];
  private sourceFingers: FingerRig | null = null;
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
  private readonly headForward = quat64();
  private readonly headCopyLocal = quat64();
  private readonly headOffsetLocal = quat64();
  private readonly vHead: number;
  private readonly vHips: number;
  private readonly sHips: number;
  private calibrated = false;
  private lastFrameRot: Float64Array;
  private lastFramePos: Float64Array;
  private readonly qs = quat64();

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

  /** The current settings (a copy). */
  get settings(): Settings {
    return structuredCloneSettings(this.settingsValue);
  }

  /** True once calibrated. */
  get isCalibrated(): boolean {
    return this.calibrated;
  }

  /**
   * Calibrate in the canonical T-pose (automatic reference pose; `frame` is used when the source's rest
   * pose is not a standing one, and for the up axis). Also calibrates the IK on the avatar's reference
   * pose and snaps the limb weights on the next update.
   */
  calibrate(frame?: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): void {
    if (frame !== undefined) checkFrame('calibrate', frame, this.source);
    const r = this.retargeter;
    r.options.referencePose = 'T';
    r.options.sourceReference = 'auto';
    const record = calibrationRecord('calibrate', 'T', frame);
    this.doCalibrate(frame);
    this.lastCalibration = record;
  }

  /**
   * I-pose calibration, as live performers do: `frame` is the performer standing in an I-pose (arms
   * down), taken as is; the avatar's canonical I-pose is matched to it. The current finger calibration
   * is kept (a performer's fingers in an I-pose are not a reference).
   */
  calibrateIPose(frame: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): void {
    checkFrame('calibrateIPose', frame, this.source);
    this.calibrateOnFrame(frame, 'I');
  }

  /**
   * Calibrate on a frame taken as is as the performer's T- or I-pose (the avatar is put in its
   * canonical pose of that kind, facing the way the performer faces). Finger calibration is kept when
   * there was one.
   */
  calibrateOnFrame(
    frame: { rotations: ArrayLike<number>; translations: ArrayLike<number> },
    kind: 'T' | 'I',
  ): void {
    checkFrame('calibrateOnFrame', frame, this.source);
    checkChoice('calibrateOnFrame kind', kind, ['T', 'I'] as const);
    const r = this.retargeter;
    const keep = this.calibrated ? this.fingerOffsets() : null;
    r.options.referencePose = kind;
    r.options.sourceReference = { asIs: true };
    const record = calibrationRecord('onFrame', kind, frame);
    this.doCalibrate(frame);
    this.lastCalibration = record;
    if (keep) this.restoreFingerOffsets(keep);
  }

  /** How the hub was last calibrated (for exportState). */
  private lastCalibration: HubCalibrationRecord | null = null;

  /**
   * The hub's state for hot reload ({@link HubState}, src/rig/hubState.ts): constructor options kept by
   * the retargeter, how it was last calibrated (kind and frame; re-run on import), the settings with
   * the calibrated rotation offsets, IK mode, head-forward fix, finger mode/enabled/muscles, props,
   * limb weights (settings, smoothed values, targets, nearest props), the IK solvers' memory, the
   * snap-weights flag and the last calibration frame. JSON-able: non-finite numbers and -0 are encoded
   * (`{"$num": ...}`), so `JSON.parse(JSON.stringify(state))` imports to the same bits. Allocates
   * (control time, not per frame).
   */
  exportState(): HubState {
    const r = this.retargeter;
    const state: HubState = {
      version: HUB_STATE_VERSION,
      options: {
        hipsMode: r.options.hipsMode,
        sourceUp: r.options.sourceUp,
        sourceContactHeight: r.options.sourceContactHeight ?? null,
      },
      calibration: this.calibrated ? this.lastCalibration : null,
      settings: this.exportSettings(),
      ikMode: this.ikMode,
      headForward: Array.from(this.headForward),
      headCopyLocal: Array.from(this.headCopyLocal),
      fingers: this.fingers.exportState(),
      props: this.props.exportState(),
      weights: this.weights.exportState(),
      ik: this.limbs.map((l) => l.ik.exportState()),
      snapWeights: this.snapWeights,
      ikWeightOverride: Array.from(this.ikWeightOverride),
      ikGoalOverride: Array.from(this.ikGoalOverride),
      ikRotationOverride: Array.from(this.ikRotationOverride),
      lastFrame: { rotations: Array.from(this.lastFrameRot), translations: Array.from(this.lastFramePos) },
      source: this.sourceStage.exportState(),
    };
    return encodeStateNumbers(state) as unknown as HubState;
  }

  /**
   * A hub on `source` and `target` (the same skeletons the exporting hub had) in the state `state`
   * from {@link RetargetHub.exportState} (possibly through JSON): runs on exactly as the exporting hub
   * would have.
   * @throws HubError naming the bad field (wrong version, a calibration that fails, bad settings,
   * props, weights or IK memory).
   */
  static fromState(source: Skeleton, target: Skeleton, state: HubState): RetargetHub {
    const st = decodeStateNumbers(state) as HubState;
    if (st === null || typeof st !== 'object')
      throw new HubError(`hub state: need an object, got ${describe(st)}`);
    if (st.version !== HUB_STATE_VERSION)
      throw new HubError(`hub state.version: ${describe(st.version)}, expected ${HUB_STATE_VERSION}`);
    const o = st.options ?? ({} as HubState['options']);
    const { rotationOffsets: _offsets, ...plain } = st.settings ?? ({} as Settings);
    const hub = new RetargetHub(source, target, {
      hipsMode: o.hipsMode,
      sourceUp: o.sourceUp,
      sourceContactHeight: o.sourceContactHeight ?? undefined,
      ik: st.ikMode,
      fingers: st.fingers?.mode,
      settings: { ...plain, initialHipsHeight: plain.initialHipsHeight ?? null },
    });
    hub.importState(st);
    return hub;
  }

  /**
   * Put this hub into a state from {@link RetargetHub.exportState} (same source and target skeletons):
   * re-runs the recorded calibration, then sets settings, offsets and every carried value.
   * @throws HubError naming the bad field.
   */
  importState(state: HubState): void {
    const st = decodeStateNumbers(state) as HubState;
    const field = (f: string, e: unknown) =>
      new HubError(`hub state.${f}: ${(e as Error)?.message ?? String(e)}`);
    if (st === null || typeof st !== 'object')
      throw new HubError(`hub state: need an object, got ${describe(st)}`);
    if (st.version !== HUB_STATE_VERSION)
      throw new HubError(`hub state.version: ${describe(st.version)}, expected ${HUB_STATE_VERSION}`);
    checkChoice('hub state.ikMode', st.ikMode, ['auto', 'on', 'off'] as const);
    const frameOf = (f: string, fr: unknown) => {
      const x = fr as { rotations: number[]; translations: number[] } | null;
      checkFrame(`hub state.${f}`, x, this.source);
      return { rotations: Float64Array.from(x!.rotations), translations: Float64Array.from(x!.translations) };
    };
    const last = frameOf('lastFrame', st.lastFrame);
    const c = st.calibration;
    if (c !== null && c !== undefined) {
      if (typeof c !== 'object') throw new HubError('hub state.calibration: need an object or null');
      checkChoice('hub state.calibration.method', c.method, ['calibrate', 'onFrame'] as const);
      checkChoice('hub state.calibration.kind', c.kind, ['T', 'I'] as const);
      const frame = c.frame === null ? undefined : frameOf('calibration.frame', c.frame);
      if (c.method === 'calibrate') this.calibrate(frame);
      else {
        if (!frame) throw new HubError('hub state.calibration.frame: calibrateOnFrame needs a frame');
        this.calibrateOnFrame(frame, c.kind);
      }
    }
    this.lastFrameRot.set(last.rotations);
    this.lastFramePos.set(last.translations);
    this.applySettings(st.settings);
    this.ikMode = st.ikMode;
    for (const [f, q] of [
      ['headForward', this.headForward],
      ['headCopyLocal', this.headCopyLocal],
    ] as const) {
      const v = st[f];
      if (!Array.isArray(v) || v.length !== 4 || v.some((x) => typeof x !== 'number'))
        throw new HubError(`hub state.${f}: need 4 numbers [x, y, z, w]`);
      qcopy(q, 0, v, 0);
    }
    try {
      this.setFingerMode(st.fingers?.mode);
      this.fingers.importState(st.fingers);
    } catch (e) {
      throw field('fingers', e);
    }
    try {
      this.props.importState(st.props);
    } catch (e) {
      throw field('props', e);
    }
    try {
      this.weights.importState(st.weights);
    } catch (e) {
      throw field('weights', e);
    }
    if (!Array.isArray(st.ik) || st.ik.length !== 4)
      throw new HubError('hub state.ik: need 4 limbs (left arm, right arm, left leg, right leg)');
    this.limbs.forEach((l, i) => {
      try {
        l.ik.importState(st.ik[i]);
      } catch (e) {
        throw field(`ik[${i}]`, e);
      }
    });
    if (typeof st.snapWeights !== 'boolean') throw new HubError('hub state.snapWeights: need true or false');
    this.snapWeights = st.snapWeights;
    if (st.ikWeightOverride !== undefined) {
      const o = st.ikWeightOverride;
      if (
        !Array.isArray(o) ||
        o.length !== 12 ||
        o.some((v) => typeof v !== 'number' || !(Number.isNaN(v) || (v >= 0 && v <= 1)))
      )
        throw new HubError('hub state.ikWeightOverride: need 12 numbers in [0, 1] or NaN');
      this.ikWeightOverride.set(o);
    }
    if (st.ikGoalOverride !== undefined) {
      const o = st.ikGoalOverride;
      if (!Array.isArray(o) || o.length !== 24 || o.some((v) => typeof v !== 'number'))
        throw new HubError('hub state.ikGoalOverride: need 24 numbers (NaN: none)');
      this.ikGoalOverride.set(o);
    }
    if (st.ikRotationOverride !== undefined) {
      const o = st.ikRotationOverride;
      if (!Array.isArray(o) || o.length !== 16 || o.some((v) => typeof v !== 'number'))
        throw new HubError('hub state.ikRotationOverride: need 16 numbers (NaN: none)');
      this.ikRotationOverride.set(o);
    }
    // absent in states from before the source stage: it starts fresh
    if (st.source !== undefined) {
      try {
        this.sourceStage.importState(st.source);
      } catch (e) {
        throw new HubError(`hub state.${(e as Error).message}`);
      }
    }
  }

  /** Drop the calibration cache and recalibrate from the canonical T-pose (head-forward fix cleared). */
  resetCalibration(): void {
    quat.identity(this.headForward);
    this.calibrate({ rotations: this.lastFrameRot, translations: this.lastFramePos });
  }

  private doCalibrate(frame?: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): void {
    const r = this.retargeter;
    try {
      r.calibrate(frame);
    } catch (e) {
      if (e instanceof RetargetError) throw new HubError(e.message);
      throw e;
    }
    if (frame) {
      this.lastFrameRot.set(frame.rotations);
      this.lastFramePos.set(frame.translations);
    }
    const ref = r.targetReference!;
    for (const l of this.limbs) l.ik.calibrate(ref.world.rotations, ref.world.positions);
    this.updateHeadOffset();
    this.calibrated = true;
    this.snapWeights = true;
  }

  private snapWeights = true;

  private fingerOffsets(): Map<number, Float64Array> {
    const out = new Map<number, Float64Array>();
    const t = this.target;
    for (let h = H.LeftThumbProximal; h <= H.RightLittleDistal; h++) {
      const b = t.humanoid[h];
      if (b < 0) continue;
      const q = new Float64Array(4);
      this.retargeter.getOffset(b, q);
      out.set(b, q);
    }
    return out;
  }

  private restoreFingerOffsets(offsets: Map<number, Float64Array>): void {
    for (const [b, q] of offsets) this.retargeter.setOffset(b, q);
  }

  /** Head rotation offset in the head's reference frame (Retargeter docs), combined with the head-forward fix. */
  private updateHeadOffset(): void {
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

  /** Head rotation offset, degrees per axis in -180..180 (Unity's Quaternion.Euler order). */
  setHeadRotationOffset(x: number, y: number, z: number): void {
    for (const [k, v] of [x, y, z].entries())
      checkRange(`headRotationOffset.${'xyz'[k]}`, v, -180, 180, ' degrees');
    this.settingsValue.headRotationOffset = [x, y, z];
    this.updateHeadOffset();
  }

  /** Avatar scale 0.1..3, applied at once without recalibration. */
  setAvatarScale(scale: number): void {
    checkRange('avatarScale', scale, 0.1, 3);
    this.settingsValue.avatarScale = scale;
    this.retargeter.setAvatarScale(scale);
    this.props.scale = scale;
  }

  /** Head scale 0.1..3. */
  setHeadScale(scale: number): void {
    checkRange('headScale', scale, 0.1, 3);
    this.settingsValue.headScale = scale;
    this.retargeter.setHeadScale(scale);
  }

  /** Floor height, metres (added to the hips and the foot IK targets). */
  setFloorHeight(h: number): void {
    checkRange('floorHeight', h, -10, 10, ' m');
    this.settingsValue.floorHeight = h;
  }

  /** Chair seat offset, metres (-1..1): added to a chair prop's seat height when seated. */
  setChairSeatOffset(m: number): void {
    checkRange('chairSeatOffset', m, -1, 1, ' m');
    this.settingsValue.chairSeatOffset = m;
    this.weights.configure({ chairSeatOffset: m });
  }

  /**
   * The source stage's One-Euro parameters for one bone group (`body`, `hands` = hands and fingers,
   * `feet` = feet and toes); ranges as the settings file's (`SETTINGS_LIMITS.filter*`); `minCutoff` 0
   * turns the group's filter off (raw pass-through). Applies from the next {@link RetargetHub.updateLive}.
   * @throws HubError naming the group and field.
   */
  setSourceFilter(group: SourceFilterGroup, minCutoff: number, beta: number, dCutoff: number): void {
    checkChoice('sourceFilter group', group, ['body', 'hands', 'feet'] as const);
    const L = SETTINGS_LIMITS;
    checkRange(
      `sourceFilter.${group}.minCutoff`,
      minCutoff,
      L.filterMinCutoff[0],
      L.filterMinCutoff[1],
      ' Hz',
    );
    checkRange(`sourceFilter.${group}.beta`, beta, L.filterBeta[0], L.filterBeta[1]);
    checkRange(`sourceFilter.${group}.dCutoff`, dCutoff, L.filterDCutoff[0], L.filterDCutoff[1], ' Hz');
    this.settingsValue.sourceFilter[group] = { minCutoff, beta, dCutoff };
    this.sourceStage.configure(this.settingsValue.sourceFilter);
  }

  /** Foot offsets, metres: front/back (toward the toes positive) and in/out (outward positive). */
  setFootOffset(side: 'left' | 'right', frontBack: number, inOut: number): void {
    checkChoice('footOffsets side', side, ['left', 'right'] as const);
    checkRange(`footOffsets.${side}.frontBack`, frontBack, -0.5, 0.5, ' m');
    checkRange(`footOffsets.${side}.inOut`, inOut, -0.5, 0.5, ' m');
    this.settingsValue.footOffsets[side] = { frontBack, inOut };
  }

  /**
   * Automatic floor height: the floor level at which the avatar's legs, in the last updated pose, would
   * be extended to `comfortRatio` of their length (hips height minus comfortRatio times thigh + shin,
   * minus the standing ankle height). Returns and sets it. Needs one update first.
   */
  autoFloorHeight(comfortRatio = 0.98): number {
    checkRange('comfortRatio', comfortRatio, 0, 1);
    if (comfortRatio === 0) throw new HubError('comfortRatio: 0 is outside (0, 1]');
    const P = this.retargeter.virtualWorldPositions;
    const vt = this.retargeter.virtual.skeleton;
    const leg = this.limbs[2];
    const len = (a: number, b: number) =>
      Math.hypot(P[3 * b] - P[3 * a], P[3 * b + 1] - P[3 * a + 1], P[3 * b + 2] - P[3 * a + 2]);
    const legLength = len(leg.limb.upper, leg.limb.lower) + len(leg.limb.lower, leg.limb.end);
    const ankle = this.retargeter.info?.targetContactHeight ?? 0;
    const hipsY = P[3 * vt.humanoid[H.Hips] + 1] - this.settingsValue.floorHeight;
    const floor = hipsY - comfortRatio * legLength - ankle;
    this.setFloorHeight(Math.max(-10, Math.min(10, floor)));
    return this.settingsValue.floorHeight;
  }

  /**
   * Calibrate head to forward: the head's current direction (last update, before offsets) becomes the
   * reference (T-pose) forward from now on.
   */
  calibrateHeadForward(): void {
    if (!this.calibrated) throw new HubError('calibrateHeadForward: calibrate first');
    const ref = this.retargeter.targetReference!;
    const refLocal = quat64(
      ...(Array.from(ref.localRotations.subarray(4 * this.vHead, 4 * this.vHead + 4)) as [
        number,
        number,
        number,
        number,
      ]),
    );
    // headForward = inverse(copied head local) * reference head local
    quat.invert(this.headForward, this.headCopyLocal);
    quat.multiply(this.headForward, this.headForward, refLocal);
    quat.normalize(this.headForward, this.headForward);
  }

  /**
   * Auto-calibrate all: reset the avatar scale, set it to source neck height / avatar neck height
   * (clamped to 0.1..3; heights above the ankles: the performer standing in `frame`, the avatar in its
   * reference pose), update on `frame`, calibrate the head forward, and return the settings to save.
   */
  autoCalibrateAll(frame: { rotations: ArrayLike<number>; translations: ArrayLike<number> }): Settings {
    checkFrame('autoCalibrateAll', frame, this.source);
    this.setAvatarScale(1);
    if (!this.calibrated) this.calibrate(frame);
    this.update(frame.rotations, frame.translations, 0);
    const vt = this.retargeter.virtual.skeleton;
    const sP = this.retargeter.lastSourceWorldPositions;
    const tRest = this.retargeter.targetReference!.world.positions;
    const sNeck =
      this.source.humanoid[H.Neck] >= 0 ? this.source.humanoid[H.Neck] : this.source.humanoid[H.Head];
    const tNeck = vt.humanoid[H.Neck] >= 0 ? vt.humanoid[H.Neck] : vt.humanoid[H.Head];
    // neck heights above the ankles: the performer's in this frame (standing), the avatar's in its
    // reference pose (legs straight)
    const sf = Math.min(
      sP[3 * this.source.humanoid[H.LeftFoot] + 1],
      sP[3 * this.source.humanoid[H.RightFoot] + 1],
    );
    const sourceNeck = sP[3 * sNeck + 1] - sf;
    const tf = Math.min(tRest[3 * vt.humanoid[H.LeftFoot] + 1], tRest[3 * vt.humanoid[H.RightFoot] + 1]);
    const targetNeck = tRest[3 * tNeck + 1] - tf;
    const scale = Math.max(0.1, Math.min(3, targetNeck > 1e-6 ? sourceNeck / targetNeck : 1));
    this.setAvatarScale(scale);
    this.update(frame.rotations, frame.translations, 0);
    this.calibrateHeadForward();
    return this.settings;
  }

  /** Apply saved settings (validated first; on error nothing changes). Rotation offsets need a calibration first. */
  applySettings(s: Settings): void {
    try {
      validateSettings(s, 'settings');
    } catch (e) {
      throw new HubError((e as Error).message);
    }
    const names = Object.keys(s.rotationOffsets);
    const bones = names.map((nm) => this.target.names.indexOf(nm));
    const missing = names.filter((_, i) => bones[i] < 0);
    if (missing.length > 0)
      throw new HubError(
        `settings.rotationOffsets: no bone named ${missing.slice(0, 5).join(', ')} on this avatar`,
      );
    if (names.length > 0 && !this.calibrated)
      throw new HubError('settings.rotationOffsets: calibrate before applying saved offsets');
    this.settingsValue = structuredCloneSettings(s);
    this.retargeter.setAvatarScale(s.avatarScale);
    this.props.scale = s.avatarScale;
    this.retargeter.setHeadScale(s.headScale);
    this.weights.configure({ chairSeatOffset: s.chairSeatOffset });
    this.sourceStage.configure(this.settingsValue.sourceFilter);
    bones.forEach((b, i) => {
      this.retargeter.setOffset(b, s.rotationOffsets[names[i]]);
    });
    this.updateHeadOffset();
  }

  /** The settings to save, with the calibrated rotation offsets of every driven bone. */
  exportSettings(): Settings {
    const s = structuredCloneSettings(this.settingsValue);
    s.rotationOffsets = Object.create(null);
    if (this.calibrated) {
      const q = new Float64Array(4);
      this.retargeter.drivers.forEach((src, b) => {
        if (src < 0) return;
        this.retargeter.getOffset(b, q);
        s.rotationOffsets[this.target.names[b]] = [q[0], q[1], q[2], q[3]];
      });
      s.initialHipsHeight = this.retargeter.info?.targetHipsHeight ?? null;
    }
    s.chairSeatOffset = this.weights.settings.chairSeatOffset;
    return s;
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

  /**
   * The bend goal (pole: where the elbow is aimed) arm `l` (0 left arm, 1 right arm) used this frame,
   * world metres, written to `out[0..2]` (for gizmos; allocation-free). Returns false, writing
   * nothing, for the legs (2, 3): LegIK aims the knee from the source knee, not at a goal point.
   */
  ikBendGoal(l: number, out: { [i: number]: number }): boolean {
    const limb = this.limbs[l];
    if (!limb || !limb.arm) return false;
    const g = limb.goal.bendGoal;
    out[0] = g[0];
    out[1] = g[1];
    out[2] = g[2];
    return true;
  }

  /** The IK position weight limb `l` (0 left arm, 1 right arm, 2 left leg, 3 right leg) got this frame. */
  ikWeight(l: number): number {
    return this.ikWeights[l];
  }

  /** Use the source's finger muscles (MuscleData mode) — builds the source finger rig once. */
  setFingerMode(mode: FingerCopyMode): void {
    if (mode === 'muscleData' && !this.sourceFingers) {
      const src = this.source;
      this.sourceFingers = new FingerRig(src, canonicalPose(src, { kind: 'T' }));
    }
    this.fingers.setMode(mode);
  }

  /** Read frame `f` of a clip on the source skeleton into the hub's calibration frame holder (helper for hosts). */
  static frameOf(
    clip: {
      frameCount: number;
      skeleton: Skeleton;
      rotations: Float32Array;
      translations: Float32Array;
      frameTime: number;
      name: string;
    },
    f: number,
  ): { rotations: Float64Array; translations: Float64Array } {
    if (!Number.isInteger(f) || f < 0 || f >= clip.frameCount)
      throw new HubError(
        `frameOf: frame ${describe(f)} is outside 0..${clip.frameCount - 1} of clip '${clip.name}'`,
      );
    const n = clip.skeleton.boneCount;
    const rotations = new Float64Array(4 * n);
    const translations = new Float64Array(3 * n);
    readFrame(clip, f, rotations, translations);
    return { rotations, translations };
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

function structuredCloneSettings(s: Settings): Settings {
  return {
    ...s,
    headRotationOffset: [s.headRotationOffset[0], s.headRotationOffset[1], s.headRotationOffset[2]],
    footOffsets: { left: { ...s.footOffsets.left }, right: { ...s.footOffsets.right } },
    rotationOffsets: Object.assign(Object.create(null), s.rotationOffsets),
    sourceFilter: {
      body: { ...s.sourceFilter.body },
      hands: { ...s.sourceFilter.hands },
      feet: { ...s.sourceFilter.feet },
    },
  };
}

/** A copy of a calibration call's arguments (the frame may be a buffer the caller reuses). */
function calibrationRecord(
  method: HubCalibrationRecord['method'],
  kind: 'T' | 'I',
  frame: { rotations: ArrayLike<number>; translations: ArrayLike<number> } | undefined,
): HubCalibrationRecord {
  return {
    method,
    kind,
    frame: frame
      ? { rotations: Array.from(frame.rotations), translations: Array.from(frame.translations) }
      : null,
  };
}
