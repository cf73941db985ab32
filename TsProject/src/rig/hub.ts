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
 *
 * The class is built in layers, one file each: HubRig (hubRig.ts: the parts and the per-frame update),
 * HubSettings (hubSettings.ts), HubCalibration (hubCalibration.ts), and {@link RetargetHub} here (state
 * export/import for hot reload, IK read-outs, finger mode, frame helper).
 */
import { qcopy, readFrame, type Skeleton } from '../core';
import { canonicalPose } from '../retarget';
import { type FingerCopyMode, FingerRig } from './fingers';
import { HubCalibration } from './hubCalibration';
import { checkChoice, checkFrame, describe, HubError } from './hubOptions';
import { decodeStateNumbers, encodeStateNumbers, HUB_STATE_VERSION, type HubState } from './hubState';
import type { Settings } from './settings';

export { HubError, type HubOptions, type IKWeightMode } from './hubOptions';

/**
 * One avatar driven live by one source. Create, `calibrate(frame)`, then `update(rot, pos, dt)` every
 * frame and read `localRotations` / `localTranslations` (the avatar's own bone order) and `outputScales`.
 */
export class RetargetHub extends HubCalibration {
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
