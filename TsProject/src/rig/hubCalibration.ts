/**
 * The hub's calibrations: T-pose, I-pose and on-a-frame, the head-forward fix, the automatic floor
 * height and the auto-calibrate-all. Engine-free; control time, not per frame.
 *
 * The third of the hub's layers: HubRig (hubRig.ts) <- HubSettings (hubSettings.ts) <-
 * {@link HubCalibration} (this file) <- RetargetHub (hub.ts, the public class).
 */
import { quat } from 'gl-matrix';
import { HumanBodyBones as H, quat64 } from '../core';
import { RetargetError } from '../retarget';
import { checkChoice, checkFrame, checkRange, HubError } from './hubOptions';
import { HubSettings } from './hubSettings';
import type { HubCalibrationRecord } from './hubState';
import type { Settings } from './settings';

/** The hub's calibration layer; the public class is {@link RetargetHub} (src/rig/hub.ts). */
export abstract class HubCalibration extends HubSettings {
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
