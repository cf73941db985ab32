/**
 * The mocap source skeleton (issue 23 item 1): 21 HumanBodyBones, which MediaPipe BlazePose landmarks
 * give each bone's direction and twist, and the landmark frame conversion. Engine-free.
 *
 * Frames
 * - MediaPipe world landmarks (pose_landmarker model card; src/puppet/POSE.md): metres, origin at the hip
 *   midpoint, x towards the image's right, y down, z away from the camera (smaller z = closer; the real
 *   squat's nose has z -0.12 with the hips at 0). The axes are the camera's.
 * - Internal (DESIGN.md): right-handed, Y up, metres, the character faces +Z and its left is +X. A person
 *   facing the camera has their left on the image's right (+x) and faces the camera (-z), so
 *   `internal = Ry(heading) * (x, -y, -z)`: a half turn about x (a proper rotation), then the heading that
 *   makes the performer face +Z at the start (calibration, ./calibrate.ts).
 *
 * Landmark order: BlazePose's 33 (0 nose, 2/5 left/right eye, 7/8 ears, 11/12 shoulders, 13/14 elbows,
 * 15/16 wrists, 17/18 pinky, 19/20 index, 21/22 thumb, 23/24 hips, 25/26 knees, 27/28 ankles, 29/30 heels,
 * 31/32 foot index; MediaPipe pose_landmarker model card). "Left" is the person's left.
 */

/** Bone names in solver order (topological: a parent comes before its children). Length 21. */
export const MOCAP_BONES = [
  'Hips',
  'Spine',
  'Chest',
  'Neck',
  'Head',
  'LeftShoulder',
  'LeftUpperArm',
  'LeftLowerArm',
  'LeftHand',
  'RightShoulder',
  'RightUpperArm',
  'RightLowerArm',
  'RightHand',
  'LeftUpperLeg',
  'LeftLowerLeg',
  'LeftFoot',
  'LeftToes',
  'RightUpperLeg',
  'RightLowerLeg',
  'RightFoot',
  'RightToes',
] as const;
/** One of the 21 solved bones ({@link MOCAP_BONES}, HumanBodyBones names). */
export type MocapBoneName = (typeof MOCAP_BONES)[number];
/** Number of solved bones (21). */
export const MOCAP_BONE_COUNT = 21;

/** Bone indices by name (solver order). */
export const MB = Object.freeze(
  Object.fromEntries(MOCAP_BONES.map((n, i) => [n, i])) as { [K in MocapBoneName]: number },
);

/** Parent per bone (solver order), -1 for Hips; the HumanBodyBones parent relation without UpperChest. */
export const MOCAP_PARENTS: readonly number[] = [
  -1, 0, 1, 2, 3, 2, 5, 6, 7, 2, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19,
];

/** Per-bone state (mocap.json `state`), index = the code stored in `MocapSolver.state`. */
export const MOCAP_STATES = ['measured', 'held', 'filled'] as const;
/**
 * How a bone's rotation was found this frame: `measured` (its landmarks seen), `held` (its last rotation, up
 * to 300 ms), `filled` (eased to a relaxed pose).
 */
export type MocapState = (typeof MOCAP_STATES)[number];
/** {@link MocapState} codes as stored per bone in a Uint8Array. */
export const MocapStateCode = { Measured: 0, Held: 1, Filled: 2 } as const;

/**
 * Virtual points after the 33 landmarks (indices into the solver's point buffer): composites whose
 * confidence is the minimum of their parts'.
 */
export const P = {
  MidHip: 33, // mean of 23, 24
  MidShoulder: 34, // mean of 11, 12
  MidEar: 35, // mean of 7, 8
  MidEye: 36, // mean of 2, 5
  LeftHandTip: 37, // mean of 17, 19 (pinky, index)
  RightHandTip: 38, // mean of 18, 20
} as const;
/** Points in the solver's point buffer: the 33 landmarks and the 6 virtual points of {@link P}. */
export const POINT_COUNT = 39;
/** The two landmarks averaged into each virtual point, in P order (33..38). */
export const VIRTUAL_PARTS: readonly (readonly [number, number])[] = [
  [23, 24],
  [11, 12],
  [7, 8],
  [2, 5],
  [17, 19],
  [18, 20],
];

/**
 * How a bone's world rotation is measured: the rotation taking the rest basis (primary axis, secondary
 * axis made perpendicular to it, their cross product) to the measured one.
 * - primary: the vector `from -> to` (points), rest axis `restPrimary`.
 * - secondary (the twist reference): `kind` 'vec': the sum of the vectors `s0 -> s1` and (when s2 >= 0)
 *   `s2 -> s3`; 'bend': minus/plus the child bone's direction `s0 -> s1` (its component across the
 *   primary: the bend plane of the elbow or knee), `sign` +1 / -1; rest axis `restSecondary`. When the
 *   secondary is unusable (its landmarks below the threshold, or the bend is nearly straight) the parent's
 *   world axis `restSecondary` stands in (the chest's forward for an arm, the hips' for a leg), blended in
 *   smoothly for the bend (weight `|across| / sin(bendFullDeg)`).
 */
export interface BoneSpec {
  from: number;
  to: number;
  restPrimary: readonly [number, number, number];
  kind: 'vec' | 'bend' | 'parent' | 'copy';
  s0: number;
  s1: number;
  s2: number;
  s3: number;
  sign: number;
  restSecondary: readonly [number, number, number];
}

const X = [1, 0, 0] as const;
const NX = [-1, 0, 0] as const;
const Y = [0, 1, 0] as const;
const NY = [0, -1, 0] as const;
const Z = [0, 0, 1] as const;

/**
 * How far the eyes sit above the ear line, seen from the side, degrees: MediaPipe's eye landmarks (2, 5) lie
 * about 1.2 cm above its ear landmarks (7, 8) at 9 cm in front of them on the real squat recording (frame
 * 0: 7.4 degrees). The head's twist reference (ears -> eyes) is tilted up by this much at rest, so a level
 * gaze gives a level head.
 */
export const EYE_PITCH_DEG = 7;
const EYE = [
  0,
  Math.sin((EYE_PITCH_DEG * Math.PI) / 180),
  Math.cos((EYE_PITCH_DEG * Math.PI) / 180),
] as const;

function spec(
  from: number,
  to: number,
  restPrimary: readonly [number, number, number],
  kind: BoneSpec['kind'],
  s: [number, number, number?, number?],
  restSecondary: readonly [number, number, number],
  sign = 1,
): BoneSpec {
  return {
    from,
    to,
    restPrimary,
    kind,
    s0: s[0],
    s1: s[1],
    s2: s[2] ?? -1,
    s3: s[3] ?? -1,
    sign,
    restSecondary,
  };
}

/**
 * Landmark sources per bone (solver order). Rest pose: a T-pose facing +Z, palms down (elbow bends and
 * index-before-pinky both point +Z), legs straight down, feet forward. Twist references: the hip line for
 * the hips and spine, the shoulder line for the chest, the ear line and eyes for the head, the forearm's
 * bend plane for the upper arm, pinky -> index for the forearm and hand, the shin's bend plane for the
 * thigh, heel -> foot index for the shin, ankle -> knee for the foot.
 */
export const BONE_SPECS: readonly BoneSpec[] = [
  spec(24, 23, X, 'vec', [P.MidHip, P.MidShoulder], Y), // Hips: hip line, torso up
  spec(P.MidHip, P.MidShoulder, Y, 'vec', [24, 23, 12, 11], X), // Spine: hip + shoulder lines
  spec(P.MidHip, P.MidShoulder, Y, 'vec', [12, 11], X), // Chest: shoulder line
  spec(P.MidShoulder, P.MidEar, Y, 'vec', [12, 11, 8, 7], X), // Neck: shoulder + ear lines
  spec(8, 7, X, 'vec', [P.MidEar, P.MidEye], EYE), // Head: ear line, ears -> eyes (EYE_PITCH_DEG up)
  spec(P.MidShoulder, 11, X, 'parent', [0, 0], Z), // LeftShoulder
  spec(11, 13, X, 'bend', [13, 15], Z, 1), // LeftUpperArm: the forearm's bend plane
  spec(13, 15, X, 'vec', [17, 19], Z), // LeftLowerArm: pinky -> index
  spec(15, P.LeftHandTip, X, 'vec', [17, 19], Z), // LeftHand
  spec(P.MidShoulder, 12, NX, 'parent', [0, 0], Z), // RightShoulder
  spec(12, 14, NX, 'bend', [14, 16], Z, 1),
  spec(14, 16, NX, 'vec', [18, 20], Z),
  spec(16, P.RightHandTip, NX, 'vec', [18, 20], Z),
  spec(23, 25, NY, 'bend', [25, 27], Z, -1), // LeftUpperLeg: minus the shin's bend (the knee points forward)
  spec(25, 27, NY, 'vec', [29, 31], Z), // LeftLowerLeg: heel -> foot index
  spec(29, 31, Z, 'vec', [27, 25], Y), // LeftFoot: heel -> foot index, ankle -> knee up
  spec(29, 31, Z, 'copy', [0, 0], Y), // LeftToes: no landmark of its own: the foot's rotation
  spec(24, 26, NY, 'bend', [26, 28], Z, -1),
  spec(26, 28, NY, 'vec', [30, 32], Z),
  spec(30, 32, Z, 'vec', [28, 26], Y),
  spec(30, 32, Z, 'copy', [0, 0], Y),
];

/**
 * The pose an occluded bone drifts to once its hold runs out (local rotations, `[x, y, z, w]`): arms
 * hanging 10 degrees out from the sides (upper arm turned 80 degrees about Z), everything else as the rest
 * T-pose (legs straight, feet forward).
 */
export function relaxedLocal(bone: number, out: Float64Array, o: number): void {
  const h = (80 * Math.PI) / 360;
  out[o] = 0;
  out[o + 1] = 0;
  out[o + 2] = 0;
  out[o + 3] = 1;
  if (bone === MB.LeftUpperArm) {
    out[o + 2] = -Math.sin(h);
    out[o + 3] = Math.cos(h);
  } else if (bone === MB.RightUpperArm) {
    out[o + 2] = Math.sin(h);
    out[o + 3] = Math.cos(h);
  }
}
