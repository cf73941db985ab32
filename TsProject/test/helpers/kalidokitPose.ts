/**
 * Landmark recording -> per-frame joint world positions and rotations on one humanoid skeleton, for the mocap
 * comparison of issue 23 ("beside Kalidokit"): our solver (`oursPose`) and Kalidokit 1.1.5 (`kalidokitPose`,
 * npm `kalidokit`, run in this process on the same landmarks and put on the same skeleton). A solver is a
 * {@link PoseSolve}, so another row (e.g. ours through the hub) is one more function.
 *
 * Kalidokit's conventions, read from its source (node_modules/kalidokit/dist/PoseSolver/*.js) and its demo
 * (docs/script.js of github.com/yeemachine/kalidokit):
 * - `Pose.solve(world, image, { runtime: 'mediapipe', imageSize })` returns Euler angles in radians per VRM
 *   humanoid bone, which the demo turns into `THREE.Euler(x, y, z)` (three.js' default order 'XYZ') and slerps
 *   into the bone node's local quaternion of a VRM 0.x model (three-vrm 0.x `getBoneNode`: rest T-pose, every
 *   rest rotation the identity, the model facing -Z, its right side at +X), the model turned by 180 degrees to
 *   face the camera. Dampeners of the demo: Hips rotation x0.7, Spine x0.45 on Spine and x0.25 on Chest,
 *   limbs x1; lerp 0.3 per frame (and 0.07 for the hips position). Here the dampeners are the demo's
 *   (`dampen: 'demo'`, default; `'none'` = every factor 1) and the lerp is 1: no temporal smoothing on either
 *   side of the raw comparison.
 * - Sides are mirrored: Kalidokit's `RightUpperArm` comes from landmarks 11/13 (MediaPipe's LEFT shoulder and
 *   elbow, the performer's left), `RightUpperLeg` from 23/25; the avatar facing the camera moves like a mirror
 *   image. To judge it against the performer, its pose is mirrored back: the VRM 0.x model frame M maps to
 *   our internal frame before the heading (x, -y, -z of the camera axes; MOCAP.md) by the reflection
 *   (x, y, z) -> (x, y, -z), so a local rotation quaternion (x, y, z, w) becomes (-x, -y, z, w) and Kalidokit's
 *   Right* bone drives our Left* bone. The T-pose test in test/mocap.kalidokit.test.ts checks this.
 * - Hips position: from the image landmarks only (`x = hip2d.x - 0.4`, `z = spine length in the image - 1`,
 *   `y = 0`), applied by the demo as (-x + 0.2, y + 1, -z) in M; here relative to the first frame, with the
 *   hips at the skeleton's rest height (Kalidokit's y is 0 always).
 * - Kalidokit gives no head, neck, shoulder, foot or toe rotation from the pose: those stay at the rest pose
 *   (identity local rotation). Hands need hand landmarks in its demo: left at rest here.
 * - A landmark without visibility (the real squat file has none) is given 0.8, as our solver assumes
 *   (src/mocap UNKNOWN_CONFIDENCE): Kalidokit reads a missing visibility as 0, which resets arms and legs.
 * - A frame without a person keeps the previous pose (the demo skips the update).
 */
import { Euler, Quaternion } from 'three';
import { forwardKinematics, type Skeleton } from '../../src/core';
import {
  calibrateMocap,
  type MocapHubRunOptions,
  type MocapOptions,
  mocapSkeleton,
  runMocap,
  runMocapThroughHub,
} from '../../src/mocap';
import type { Landmark, LandmarkRecording } from '../../src/puppet';

// The UMD build: the package's main entry is ES modules, which jest (CommonJS) does not load from node_modules.
const Kalidokit: typeof import('kalidokit') = require('kalidokit/dist/kalidokit.umd.js');

/** Per-frame world pose of one solver on a humanoid skeleton (internal frame: metres, Y up). */
export interface PosedRun {
  /** The skeleton posed (its `humanoid` map names the bones). */
  skeleton: Skeleton;
  /**
   * The frame's heading, radians: positions are in `Ry(heading) * (x, -y, -z)` of the MediaPipe camera axes
   * (ours: the calibration's; Kalidokit: 0).
   */
  heading: number;
  frames: number;
  /** World joint positions, `Float64Array(frames * bones * 3)`, frame-major. */
  positions: Float64Array;
  /** World rotations, `Float64Array(frames * bones * 4)`, quaternions [x, y, z, w]. */
  rotations: Float64Array;
}

/** A solver under comparison: a landmark recording -> its per-frame pose (see {@link PosedRun}). */
export type PoseSolve = (rec: LandmarkRecording) => PosedRun;

/** World pose per frame by forward kinematics of local rotations and translations (clip layout). */
function posed(
  sk: Skeleton,
  heading: number,
  F: number,
  local: Float64Array | Float32Array,
  trans: Float64Array | Float32Array,
): PosedRun {
  const n = sk.boneCount;
  const positions = new Float64Array(F * n * 3);
  const rotations = new Float64Array(F * n * 4);
  for (let f = 0; f < F; f++)
    forwardKinematics(
      sk,
      local.subarray(4 * n * f, 4 * n * (f + 1)),
      trans.subarray(3 * n * f, 3 * n * (f + 1)),
      rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      positions.subarray(3 * n * f, 3 * n * (f + 1)),
    );
  return { skeleton: sk, heading, frames: F, positions, rotations };
}

/** Our solver (src/mocap `runMocap`) on its calibrated skeleton. */
export function oursPose(o: MocapOptions = {}): PoseSolve {
  return (rec) => {
    const run = runMocap(rec, o);
    return posed(
      run.solver.skeleton,
      run.solver.calibration.heading,
      run.clip.frameCount,
      run.clip.rotations,
      run.clip.translations,
    );
  };
}

/**
 * Ours through the live hub (src/mocap `runMocapThroughHub`: One-Euro source stage, confidence limb
 * weights, causal foot contact pinning the foot IK), retargeted onto the calibrated mocap skeleton itself,
 * so it is posed on the same skeleton as the other rows. Causal, as in the page and `kind live`.
 */
export function oursThroughHubPose(o: MocapHubRunOptions = {}): PoseSolve {
  return (rec) => {
    const cal = calibrateMocap(rec.frames, o);
    const target = mocapSkeleton(cal);
    const run = runMocapThroughHub(rec, target, o);
    return posed(target, cal.heading, run.frameCount, run.rotations, run.translations);
  };
}

type KBone =
  | 'Hips'
  | 'Spine'
  | 'RightUpperArm'
  | 'RightLowerArm'
  | 'LeftUpperArm'
  | 'LeftLowerArm'
  | 'RightUpperLeg'
  | 'RightLowerLeg'
  | 'LeftUpperLeg'
  | 'LeftLowerLeg';

/** Kalidokit output bone -> our bone (mirrored sides) and the demo's dampener. */
const KALIDOKIT_MAP: readonly { from: KBone; to: string; demo: number }[] = [
  { from: 'Hips', to: 'Hips', demo: 0.7 },
  { from: 'Spine', to: 'Spine', demo: 0.45 },
  { from: 'Spine', to: 'Chest', demo: 0.25 },
  { from: 'RightUpperArm', to: 'LeftUpperArm', demo: 1 },
  { from: 'RightLowerArm', to: 'LeftLowerArm', demo: 1 },
  { from: 'LeftUpperArm', to: 'RightUpperArm', demo: 1 },
  { from: 'LeftLowerArm', to: 'RightLowerArm', demo: 1 },
  { from: 'RightUpperLeg', to: 'LeftUpperLeg', demo: 1 },
  { from: 'RightLowerLeg', to: 'LeftLowerLeg', demo: 1 },
  { from: 'LeftUpperLeg', to: 'RightUpperLeg', demo: 1 },
  { from: 'LeftLowerLeg', to: 'RightLowerLeg', demo: 1 },
];

/** Bone index by HumanBodyBones name on a skeleton built by `mocapSkeleton` (names = bone names). */
function boneIndex(sk: Skeleton, name: string): number {
  const i = sk.names.indexOf(name);
  if (i < 0) throw new Error(`kalidokitPose: the skeleton has no bone ${name}`);
  return i;
}

const withVisibility = (l: Landmark) => ({ x: l.x, y: l.y, z: l.z, visibility: l.visibility ?? 0.8 });

export interface KalidokitPoseOptions {
  /** The skeleton to pose (rest T-pose, identity rest rotations, facing +Z); default: ours calibrated on the recording. */
  skeleton?: Skeleton;
  /** 'demo' (default): the demo's dampeners; 'none': every factor 1. */
  dampen?: 'demo' | 'none';
}

/** The raw Kalidokit output of one frame (exposed for the conversion test). */
export function kalidokitSolve(
  world: readonly Landmark[],
  image: readonly Landmark[],
  size: { width: number; height: number },
) {
  const r = Kalidokit.Pose.solve(world.map(withVisibility) as never, image.map(withVisibility) as never, {
    runtime: 'mediapipe',
    imageSize: size,
  });
  if (!r) throw new Error('kalidokitSolve: Kalidokit.Pose.solve returned nothing (no landmarks given)');
  return r;
}

/** Kalidokit on the same skeleton (module header: conventions, mirroring, what is left at rest). */
export function kalidokitPose(o: KalidokitPoseOptions = {}): PoseSolve {
  return (rec) => {
    const sk = o.skeleton ?? mocapSkeleton(calibrateMocap(rec.frames, { source: rec.source ?? 'recording' }));
    const n = sk.boneCount;
    const F = rec.frames.length;
    const local = new Float64Array(F * n * 4);
    const trans = new Float64Array(F * n * 3);
    const map = KALIDOKIT_MAP.map((m) => ({ ...m, bone: boneIndex(sk, m.to) }));
    const e = new Euler();
    const q = new Quaternion();
    let first: { x: number; z: number } | null = null;
    let prev = -1;
    for (let f = 0; f < F; f++) {
      const fr = rec.frames[f];
      const L = local.subarray(4 * n * f, 4 * n * (f + 1));
      const T = trans.subarray(3 * n * f, 3 * n * (f + 1));
      T.set(sk.restTranslations);
      const wl = fr.worldLandmarks;
      const il = fr.landmarks;
      if (wl?.length !== 33 || il?.length !== 33) {
        if (prev >= 0) {
          L.set(local.subarray(4 * n * prev, 4 * n * (prev + 1)));
          T.set(trans.subarray(3 * n * prev, 3 * n * (prev + 1)));
        } else for (let b = 0; b < n; b++) L[4 * b + 3] = 1;
        continue;
      }
      const r = kalidokitSolve(wl, il, rec.image);
      for (let b = 0; b < n; b++) L[4 * b + 3] = 1;
      for (const m of map) {
        const k = m.from === 'Hips' ? r.Hips.rotation! : r[m.from];
        const s = o.dampen === 'none' ? 1 : m.demo;
        e.set(k.x * s, k.y * s, k.z * s, 'XYZ');
        q.setFromEuler(e);
        // mirror M -> ours: (x, y, z, w) -> (-x, -y, z, w)
        L[4 * m.bone] = -q.x;
        L[4 * m.bone + 1] = -q.y;
        L[4 * m.bone + 2] = q.z;
        L[4 * m.bone + 3] = q.w;
      }
      // hips position in M as the demo applies it, then mirrored (z -> -z); relative to the first frame
      const hx = -r.Hips.position.x + 0.2;
      const hz = -r.Hips.position.z;
      if (!first) first = { x: hx, z: hz };
      T[0] = sk.restTranslations[0] + (hx - first.x);
      T[2] = sk.restTranslations[2] - (hz - first.z);
      prev = f;
    }
    return posed(sk, 0, F, local, trans);
  };
}
