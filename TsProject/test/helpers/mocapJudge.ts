/**
 * The mocap judge (issue 23 item 3): real BVH takes -> synthetic MediaPipe landmarks -> src/mocap -> bone
 * directions and the hips path compared with the take's. Built from the take and a written-down landmark
 * model, not from the solver's output: the solver's code is only called through `runMocap`.
 *
 * Landmark model (metres, on the take's joints by forward kinematics, src/core `forwardKinematics`):
 * - shoulders 11/12, elbows 13/14, wrists 15/16 = UpperArm, LowerArm, Hand joints; hips 23/24, knees 25/26,
 *   ankles 27/28 = UpperLeg, LowerLeg, Foot joints.
 * - hand points, face points and heel / foot index in a frame carried by the Hand / Head / Foot bone. A take's
 *   zero-rotation pose need not be a T-pose (Bandai Namco's is not), so those frames are fixed at the take's
 *   first frame: the head looks where the chest faces (shoulder line x torso up), the hand lies along the
 *   forearm with its palm side towards the chest's forward, the foot points along the chest's forward,
 *   horizontally, sole flat. Then they turn with their bone: `R_f = W_f W_0^-1`.
 *   Hand: index 19/20 = wrist + 9 cm along + 2.5 cm palm side, pinky 17/18 = 8 cm along - 2.5 cm, thumb
 *   21/22 = 4 cm along + 4.5 cm. Head (from the Head joint): ears 7/8 at 8 cm up, +-7.5 cm sideways; eyes
 *   2/5 at 9 cm up, 8 cm forward, +-3.2 cm (inner/outer eyes +-1.5 cm around them); nose 0 at 5 cm up,
 *   11 cm forward; mouth 9/10 at 1.5 cm up, 9 cm forward, +-2.5 cm. Foot (from the ankle): heel 29/30 at
 *   5 cm back and 7 cm down, foot index 31/32 at 16 cm forward and 7 cm down.
 * - Camera: a level pinhole camera (60 degrees across the longer side of a 1280 x 720 image, the solver's
 *   default) at the hips' height, in front of the performer's first-frame facing, 3 m plus the hips'
 *   travel along that facing away. World landmarks: the camera's axes (x image right, y down, z away),
 *   origin the hip midpoint; image landmarks: the projection, normalised.
 * - Truth: the take's bone directions (upper arm, forearm, thigh, shin: joint to child joint; spine: hip
 *   midpoint -> shoulder midpoint; head: the head frame's forward) and the hip midpoint path, turned into
 *   the solver's frame with the same camera axes and the heading the solver reports (its calibration's
 *   definition of "facing +Z"; nothing is fitted).
 */
import * as fs from 'node:fs';
import { forwardKinematics, HumanBodyBones as H, type Skeleton } from '../../src/core';
import { parseBvh } from '../../src/io/bvh';
import { autoMapHumanoid } from '../../src/io/humanoidMap';
import { MB, type MocapOptions, type MocapRun, runMocap } from '../../src/mocap';
import type { Landmark, LandmarkRecording, PoseFrame } from '../../src/puppet';

type V3 = [number, number, number];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a: V3, s: number): V3 => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V3, b: V3): V3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
const norm = (a: V3): V3 => mul(a, 1 / Math.hypot(a[0], a[1], a[2]));
const mid = (a: V3, b: V3): V3 => mul(add(a, b), 0.5);
const perp = (a: V3, axis: V3): V3 => norm(sub(a, mul(axis, dot(a, axis))));

/** `q v` for a unit quaternion `[x, y, z, w]`. */
function qrot(q: ArrayLike<number>, v: V3): V3 {
  const [x, y, z, w] = [q[0], q[1], q[2], q[3]];
  const uv = cross([x, y, z], v);
  const uuv = cross([x, y, z], uv);
  return add(v, add(mul(uv, 2 * w), mul(uuv, 2)));
}
const qconj = (q: ArrayLike<number>) => [-q[0], -q[1], -q[2], q[3]];

/** One frame of the take: world position and rotation per HumanBodyBones bone used. */
interface TakeFrame {
  pos: Map<number, V3>;
  rot: Map<number, number[]>;
}

export interface Take {
  name: string;
  fps: number;
  frames: TakeFrame[];
}

const USED = [
  H.Hips,
  H.Head,
  H.LeftUpperArm,
  H.RightUpperArm,
  H.LeftLowerArm,
  H.RightLowerArm,
  H.LeftHand,
  H.RightHand,
  H.LeftUpperLeg,
  H.RightUpperLeg,
  H.LeftLowerLeg,
  H.RightLowerLeg,
  H.LeftFoot,
  H.RightFoot,
];

/** Read a BVH take and keep every `every`-th frame from `from`, at most `max` frames. */
export function loadTake(
  file: string,
  o: { every: number; max: number; from?: number; unitScale?: number },
): Take {
  const r = parseBvh(fs.readFileSync(file, 'utf8'), { fileName: file, unitScale: o.unitScale });
  const sk: Skeleton = r.clip.skeleton;
  const map = autoMapHumanoid(sk, { fileName: file }).humanoid;
  for (const h of USED) if (map[h] < 0) throw new Error(`${file}: no bone for HumanBodyBones ${h}`);
  const n = sk.boneCount;
  const lr = new Float64Array(4 * n);
  const lp = new Float64Array(3 * n);
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const frames: TakeFrame[] = [];
  for (let f = o.from ?? 0; f < r.clip.frameCount && frames.length < o.max; f += o.every) {
    lr.set(r.clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)));
    lp.set(r.clip.translations.subarray(3 * n * f, 3 * n * (f + 1)));
    forwardKinematics(sk, lr, lp, wr, wp);
    const pos = new Map<number, V3>();
    const rot = new Map<number, number[]>();
    for (const h of USED) {
      const b = map[h];
      pos.set(h, [wp[3 * b], wp[3 * b + 1], wp[3 * b + 2]]);
      rot.set(h, [wr[4 * b], wr[4 * b + 1], wr[4 * b + 2], wr[4 * b + 3]]);
    }
    frames.push({ pos, rot });
  }
  return { name: file.split('/').pop() ?? file, fps: 1 / r.clip.frameTime / o.every, frames };
}

/** mulberry32 (T. Ettinger): a seeded uniform in [0, 1); Box-Muller for the gaussian. */
function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

export interface SynthOptions {
  /** Gaussian noise per coordinate, metres (world landmarks; the image ones get the same at the body's depth). */
  noiseM?: number;
  seed?: number;
  /** Landmarks hidden (visibility 0.05, moved 30 cm) in frames [from, to). */
  drop?: { landmarks: number[]; from: number; to: number };
}

/** The truth per frame in the camera's MediaPipe axes (x right, y down, z away), before the solver's heading. */
export interface Truth {
  /** Direction per judged bone per frame (unit, camera axes). */
  dirs: Record<JudgedBone, V3[]>;
  /** Hip midpoint per frame, camera axes, metres, relative to frame 0. */
  hips: V3[];
  /** Hip midpoint height above the lowest heel / foot index landmark, metres. */
  hipsHeight: number[];
}

export const JUDGED = [
  'LeftUpperArm',
  'RightUpperArm',
  'LeftLowerArm',
  'RightLowerArm',
  'LeftUpperLeg',
  'RightUpperLeg',
  'LeftLowerLeg',
  'RightLowerLeg',
  'Spine',
  'Head',
] as const;
export type JudgedBone = (typeof JUDGED)[number];

const IMAGE = { width: 1280, height: 720 };
const FOV_DEG = 60;

/** Synthetic landmarks of a take (see the module header) and the truth to judge against. */
export function synthesize(take: Take, o: SynthOptions = {}): { rec: LandmarkRecording; truth: Truth } {
  const f0 = take.frames[0];
  const P = (f: TakeFrame, h: number) => f.pos.get(h) as V3;
  const R = (f: TakeFrame, h: number) => f.rot.get(h) as number[];
  const up: V3 = [0, 1, 0];
  // first-frame body frame: torso up, shoulder line, forward
  const torsoUp0 = norm(
    sub(
      mid(P(f0, H.LeftUpperArm), P(f0, H.RightUpperArm)),
      mid(P(f0, H.LeftUpperLeg), P(f0, H.RightUpperLeg)),
    ),
  );
  const left0 = perp(sub(P(f0, H.LeftUpperArm), P(f0, H.RightUpperArm)), torsoUp0);
  const fwd0 = cross(left0, torsoUp0);
  const fwdH = norm([fwd0[0], 0, fwd0[2]]);
  // bone-carried local axes, fixed at frame 0 (module header)
  const local = (h: number, v: V3): V3 => qrot(qconj(R(f0, h)), v);
  const headL = { fwd: local(H.Head, fwd0), up: local(H.Head, torsoUp0), left: local(H.Head, left0) };
  const hand = (h: number, lower: number) => {
    const along = norm(sub(P(f0, h), P(f0, lower)));
    const palm = perp(fwd0, along);
    return { along: local(h, along), palm: local(h, palm) };
  };
  const handL = { l: hand(H.LeftHand, H.LeftLowerArm), r: hand(H.RightHand, H.RightLowerArm) };
  const footL = {
    l: { fwd: local(H.LeftFoot, fwdH), up: local(H.LeftFoot, up) },
    r: { fwd: local(H.RightFoot, fwdH), up: local(H.RightFoot, up) },
  };
  // camera
  const hips0 = mid(P(f0, H.LeftUpperLeg), P(f0, H.RightUpperLeg));
  let reach = 0;
  for (const f of take.frames)
    reach = Math.max(reach, dot(sub(mid(P(f, H.LeftUpperLeg), P(f, H.RightUpperLeg)), hips0), fwdH));
  const cam = add(hips0, mul(fwdH, 3 + reach));
  const d = mul(fwdH, -1);
  const cx = cross(d, up); // image right
  const cy: V3 = [0, -1, 0];
  const cz = d;
  const toCam = (v: V3): V3 => [dot(v, cx), dot(v, cy), dot(v, cz)];
  const focal = (0.5 * Math.max(IMAGE.width, IMAGE.height)) / Math.tan((FOV_DEG * Math.PI) / 360);
  const g = gaussian(o.seed ?? 1);
  const noise = o.noiseM ?? 0;
  const frames: PoseFrame[] = [];
  const truth: Truth = {
    dirs: Object.fromEntries(JUDGED.map((b) => [b, [] as V3[]])) as unknown as Truth['dirs'],
    hips: [],
    hipsHeight: [],
  };
  take.frames.forEach((f, i) => {
    const pts: V3[] = new Array(33);
    const at = (h: number, v: V3) => add(P(f, h), qrot(R(f, h), v));
    const head = (u: number, fw: number, side: number) =>
      at(H.Head, add(add(mul(headL.up, u), mul(headL.fwd, fw)), mul(headL.left, side)));
    pts[0] = head(0.05, 0.11, 0);
    pts[2] = head(0.09, 0.08, 0.032);
    pts[1] = head(0.09, 0.08, 0.017);
    pts[3] = head(0.09, 0.08, 0.047);
    pts[5] = head(0.09, 0.08, -0.032);
    pts[4] = head(0.09, 0.08, -0.017);
    pts[6] = head(0.09, 0.08, -0.047);
    pts[7] = head(0.08, 0, 0.075);
    pts[8] = head(0.08, 0, -0.075);
    pts[9] = head(0.015, 0.09, 0.025);
    pts[10] = head(0.015, 0.09, -0.025);
    pts[11] = P(f, H.LeftUpperArm);
    pts[12] = P(f, H.RightUpperArm);
    pts[13] = P(f, H.LeftLowerArm);
    pts[14] = P(f, H.RightLowerArm);
    pts[15] = P(f, H.LeftHand);
    pts[16] = P(f, H.RightHand);
    for (const [s, hb, L] of [
      [0, H.LeftHand, handL.l],
      [1, H.RightHand, handL.r],
    ] as const) {
      const hp = (a: number, p: number) => at(hb, add(mul(L.along, a), mul(L.palm, p)));
      pts[17 + s] = hp(0.08, -0.025);
      pts[19 + s] = hp(0.09, 0.025);
      pts[21 + s] = hp(0.04, 0.045);
    }
    pts[23] = P(f, H.LeftUpperLeg);
    pts[24] = P(f, H.RightUpperLeg);
    pts[25] = P(f, H.LeftLowerLeg);
    pts[26] = P(f, H.RightLowerLeg);
    pts[27] = P(f, H.LeftFoot);
    pts[28] = P(f, H.RightFoot);
    for (const [s, fb, L] of [
      [0, H.LeftFoot, footL.l],
      [1, H.RightFoot, footL.r],
    ] as const) {
      pts[29 + s] = at(fb, add(mul(L.fwd, -0.05), mul(L.up, -0.07)));
      pts[31 + s] = at(fb, add(mul(L.fwd, 0.16), mul(L.up, -0.07)));
    }
    const hipMid = mid(pts[23], pts[24]);
    const hidden = o.drop && i >= o.drop.from && i < o.drop.to ? new Set(o.drop.landmarks) : null;
    const depth = dot(sub(hipMid, cam), cz);
    const world: Landmark[] = [];
    const image: Landmark[] = [];
    for (let k = 0; k < 33; k++) {
      let p = pts[k];
      if (hidden?.has(k)) p = add(p, [0.3, 0.1, -0.2]);
      const w = toCam(sub(p, hipMid));
      const c = toCam(sub(p, cam));
      const vis = hidden?.has(k) ? 0.05 : 0.95;
      const n3 = (): V3 => (noise > 0 ? [g() * noise, g() * noise, g() * noise] : [0, 0, 0]);
      const nw = n3();
      const ni = n3();
      const u = (focal * (c[0] + ni[0])) / c[2] + IMAGE.width / 2;
      const v = (focal * (c[1] + ni[1])) / c[2] + IMAGE.height / 2;
      world.push({ x: w[0] + nw[0], y: w[1] + nw[1], z: w[2] + nw[2], visibility: vis, presence: 0.99 });
      image.push({
        x: u / IMAGE.width,
        y: v / IMAGE.height,
        z: ((c[2] - depth) * focal) / depth / IMAGE.width,
        visibility: vis,
        presence: 0.99,
      });
    }
    frames.push({ timestampMs: (i * 1000) / take.fps, landmarks: image, worldLandmarks: world });
    // truth
    const T = truth.dirs;
    const dir = (a: V3, b: V3) => toCam(norm(sub(b, a)));
    T.LeftUpperArm.push(dir(pts[11], pts[13]));
    T.RightUpperArm.push(dir(pts[12], pts[14]));
    T.LeftLowerArm.push(dir(pts[13], pts[15]));
    T.RightLowerArm.push(dir(pts[14], pts[16]));
    T.LeftUpperLeg.push(dir(pts[23], pts[25]));
    T.RightUpperLeg.push(dir(pts[24], pts[26]));
    T.LeftLowerLeg.push(dir(pts[25], pts[27]));
    T.RightLowerLeg.push(dir(pts[26], pts[28]));
    T.Spine.push(dir(hipMid, mid(pts[11], pts[12])));
    T.Head.push(toCam(norm(qrot(R(f, H.Head), headL.fwd))));
    truth.hips.push(toCam(sub(hipMid, hips0)));
    truth.hipsHeight.push(hipMid[1] - Math.min(pts[29][1], pts[30][1], pts[31][1], pts[32][1]));
  });
  return { rec: { image: { ...IMAGE }, frames, source: take.name }, truth };
}

export interface JudgeResult {
  run: MocapRun;
  /** Mean and max direction error per judged bone, degrees, over the frames judged. */
  errors: Record<JudgedBone, { mean: number; max: number }>;
  /**
   * Hips path: mean horizontal (x, z) distance from the truth, both relative to frame 0, cm; and the mean
   * error of the height above the lowest foot point, cm.
   */
  hipsPathCm: number;
  hipsHeightCm: number;
}

/**
 * Run the mocap on synthetic landmarks and compare (module header). `skip` leaves frames out of the
 * direction figures (e.g. those with a dropped limb).
 */
export function judge(
  rec: LandmarkRecording,
  truth: Truth,
  o: { skip?: (frame: number) => boolean } = {},
  mocap: MocapOptions = {},
): JudgeResult {
  const run = runMocap(rec, mocap);
  const sk = run.solver.skeleton;
  const n = sk.boneCount;
  const h = run.solver.calibration.heading;
  // camera axes -> the solver's frame: Ry(h) (x, -y, -z)
  const toSolver = (v: V3): V3 => {
    const x = v[0];
    const z = -v[2];
    return [x * Math.cos(h) + z * Math.sin(h), -v[1], -x * Math.sin(h) + z * Math.cos(h)];
  };
  const wr = new Float64Array(4 * n);
  const wp = new Float64Array(3 * n);
  const sums = Object.fromEntries(JUDGED.map((b) => [b, { s: 0, m: 0, c: 0 }])) as Record<
    JudgedBone,
    { s: number; m: number; c: number }
  >;
  let path = 0;
  let height = 0;
  const F = run.clip.frameCount;
  for (let f = 0; f < F; f++) {
    forwardKinematics(
      sk,
      run.clip.rotations.subarray(4 * n * f, 4 * n * (f + 1)),
      run.clip.translations.subarray(3 * n * f, 3 * n * (f + 1)),
      wr,
      wp,
    );
    const p = (b: number): V3 => [wp[3 * b], wp[3 * b + 1], wp[3 * b + 2]];
    const ours: Record<JudgedBone, V3> = {
      LeftUpperArm: norm(sub(p(MB.LeftLowerArm), p(MB.LeftUpperArm))),
      RightUpperArm: norm(sub(p(MB.RightLowerArm), p(MB.RightUpperArm))),
      LeftLowerArm: norm(sub(p(MB.LeftHand), p(MB.LeftLowerArm))),
      RightLowerArm: norm(sub(p(MB.RightHand), p(MB.RightLowerArm))),
      LeftUpperLeg: norm(sub(p(MB.LeftLowerLeg), p(MB.LeftUpperLeg))),
      RightUpperLeg: norm(sub(p(MB.RightLowerLeg), p(MB.RightUpperLeg))),
      LeftLowerLeg: norm(sub(p(MB.LeftFoot), p(MB.LeftLowerLeg))),
      RightLowerLeg: norm(sub(p(MB.RightFoot), p(MB.RightLowerLeg))),
      Spine: norm(
        sub(mid(p(MB.LeftUpperArm), p(MB.RightUpperArm)), mid(p(MB.LeftUpperLeg), p(MB.RightUpperLeg))),
      ),
      Head: qrot(wr.subarray(4 * MB.Head, 4 * MB.Head + 4), [0, 0, 1]),
    };
    if (!o.skip?.(f))
      for (const b of JUDGED) {
        const t = toSolver(truth.dirs[b][f]);
        const e = (Math.acos(Math.max(-1, Math.min(1, dot(t, ours[b])))) * 180) / Math.PI;
        sums[b].s += e;
        sums[b].m = Math.max(sums[b].m, e);
        sums[b].c++;
      }
    const th = toSolver(truth.hips[f]);
    const hp = p(MB.Hips);
    path += Math.hypot(hp[0] - run.hips[0] - th[0], hp[2] - run.hips[2] - th[2]);
    height += Math.abs(hp[1] - truth.hipsHeight[f]);
  }
  const errors = Object.fromEntries(
    JUDGED.map((b) => [b, { mean: sums[b].s / Math.max(1, sums[b].c), max: sums[b].m }]),
  ) as JudgeResult['errors'];
  return { run, errors, hipsPathCm: (100 * path) / F, hipsHeightCm: (100 * height) / F };
}
