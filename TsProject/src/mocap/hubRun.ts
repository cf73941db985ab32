/**
 * A whole landmark recording through the solver and the hub, frame by frame in order (causal: each frame
 * sees only itself and the past, as live), for measuring what the avatar does (issue 23 item 2).
 * Engine-free; allocates the outputs once.
 */
import { HumanBodyBones as H, type Skeleton } from '../core';
import type { LandmarkRecording } from '../puppet';
import { calibrateMocap, type MocapCalibrationOptions, MocapInputError } from './calibrate';
import { MocapHubDriver, type MocapHubOptions } from './hubDriver';
import { type MocapOptions, MocapSolver } from './solver';

/** The avatar joints {@link runMocapThroughHub} records, HumanBodyBones; index into `joints` per frame. */
export const HUB_RUN_JOINTS = [
  H.Hips,
  H.LeftUpperLeg,
  H.LeftLowerLeg,
  H.LeftFoot,
  H.RightUpperLeg,
  H.RightLowerLeg,
  H.RightFoot,
  H.LeftUpperArm,
  H.LeftLowerArm,
  H.LeftHand,
  H.RightUpperArm,
  H.RightLowerArm,
  H.RightHand,
] as const;

/**
 * A recording run through the solver and the hub ({@link runMocapThroughHub}), every frame's output kept:
 * rotations, translations, joints, weights and contacts.
 */
export interface MocapHubRun {
  driver: MocapHubDriver;
  solver: MocapSolver;
  frameCount: number;
  /** Timestamps, ms. */
  times: Float64Array;
  /** The avatar's local pose per frame (its own bone order): `F * 4n` rotations, `F * 3n` translations (m). */
  rotations: Float64Array;
  translations: Float64Array;
  /** World positions (hub frame, metres) of {@link HUB_RUN_JOINTS} per frame: `F * 13 * 3` (NaN: not mapped). */
  joints: Float64Array;
  /** Per frame and limb (left arm, right arm, left leg, right leg): the confidence weight and the IK weight given to the hub, `F * 4`. */
  limbWeight: Float64Array;
  ikWeight: Float64Array;
  /** Per frame and foot (left, right): contact 0/1, pinned 0/1, pin blend, `F * 2`. */
  contact: Uint8Array;
  pinned: Uint8Array;
  pinBlend: Float64Array;
  /** The detector's points per frame (left ankle, left toe, right ankle, right toe; world m), `F * 12`. */
  contactPoints: Float64Array;
}

/** Options of {@link runMocapThroughHub}: the solver's, the calibration's and the driver's. */
export interface MocapHubRunOptions extends MocapOptions, MocapCalibrationOptions {
  driver?: MocapHubOptions;
}

/**
 * Calibrate on the recording (as `kind mocap`), then per frame `MocapSolver.step` and
 * `MocapHubDriver.step` with the frame's timestamp, and record the avatar.
 * @throws MocapInputError when the recording has no frames or cannot be calibrated.
 */
export function runMocapThroughHub(
  rec: LandmarkRecording,
  target: Skeleton,
  o: MocapHubRunOptions = {},
): MocapHubRun {
  const source = o.source ?? rec.source ?? 'recording';
  const frames = rec.frames;
  if (frames.length === 0) throw new MocapInputError('the recording has no frames', `${source}: frames`);
  const cal = calibrateMocap(frames, { ...o, source });
  const solver = new MocapSolver(cal, o);
  const driver = new MocapHubDriver(cal, target, o.driver);
  const F = frames.length;
  const n = target.boneCount;
  const J = HUB_RUN_JOINTS.length;
  const out: MocapHubRun = {
    driver,
    solver,
    frameCount: F,
    times: new Float64Array(F),
    rotations: new Float64Array(F * 4 * n),
    translations: new Float64Array(F * 3 * n),
    joints: new Float64Array(F * J * 3),
    limbWeight: new Float64Array(F * 4),
    ikWeight: new Float64Array(F * 4),
    contact: new Uint8Array(F * 2),
    pinned: new Uint8Array(F * 2),
    pinBlend: new Float64Array(F * 2),
    contactPoints: new Float64Array(F * 12),
  };
  const r = driver.hub.retargeter;
  const vh = r.virtual.skeleton.humanoid;
  for (let f = 0; f < F; f++) {
    solver.step(frames[f], rec.image);
    driver.stepFrame(solver, frames[f]);
    out.times[f] = frames[f].timestampMs;
    out.rotations.set(driver.localRotations, f * 4 * n);
    out.translations.set(driver.localTranslations, f * 3 * n);
    const P = r.virtualWorldPositions;
    for (let j = 0; j < J; j++) {
      const b = vh[HUB_RUN_JOINTS[j]];
      for (let c = 0; c < 3; c++) out.joints[(f * J + j) * 3 + c] = b >= 0 ? P[3 * b + c] : Number.NaN;
    }
    out.limbWeight.set(driver.limbWeight, 4 * f);
    out.ikWeight.set(driver.ikWeight, 4 * f);
    if (driver.contact) out.contact.set(driver.contact.contact, 2 * f);
    out.pinned.set(driver.pinned, 2 * f);
    out.pinBlend.set(driver.pinBlend, 2 * f);
    out.contactPoints.set(driver.contactPoints, 12 * f);
  }
  return out;
}
