/**
 * Hand-made MediaPipe landmark frames for the mocap's known-answer tests: a T-pose facing the camera, in
 * the internal frame (metres, Y up, the performer's left +X, facing +Z; hips at the origin), with the bones
 * that a test bends, written as MediaPipe world landmarks (x, y, z) = (x, -y, -z) and image landmarks
 * through a level pinhole camera 3 m in front (1280 x 720, 60 degrees across the width).
 */
import type { Landmark, PoseFrame } from '../../src/puppet';

export type V3 = [number, number, number];

/** The 33 landmark positions of a T-pose (palms down, feet forward), internal frame. */
export function tPosePoints(): V3[] {
  const p: V3[] = new Array(33);
  const eyeRise = 0.09 * Math.tan((7 * Math.PI) / 180); // the eyes sit 7 degrees above the ear line
  p[0] = [0, 0.72, 0.11];
  p[1] = [0.017, 0.75 + eyeRise, 0.09];
  p[2] = [0.032, 0.75 + eyeRise, 0.09];
  p[3] = [0.047, 0.75 + eyeRise, 0.09];
  p[4] = [-0.017, 0.75 + eyeRise, 0.09];
  p[5] = [-0.032, 0.75 + eyeRise, 0.09];
  p[6] = [-0.047, 0.75 + eyeRise, 0.09];
  p[7] = [0.075, 0.75, 0];
  p[8] = [-0.075, 0.75, 0];
  p[9] = [0.025, 0.69, 0.09];
  p[10] = [-0.025, 0.69, 0.09];
  for (const s of [1, -1]) {
    const o = s > 0 ? 0 : 1;
    p[11 + o] = [0.18 * s, 0.5, 0];
    p[13 + o] = [0.45 * s, 0.5, 0];
    p[15 + o] = [0.7 * s, 0.5, 0];
    p[17 + o] = [0.78 * s, 0.5, -0.025];
    p[19 + o] = [0.79 * s, 0.5, 0.025];
    p[21 + o] = [0.74 * s, 0.5, 0.045];
    p[23 + o] = [0.09 * s, 0, 0];
    p[25 + o] = [0.09 * s, -0.42, 0];
    p[27 + o] = [0.09 * s, -0.84, 0];
    p[29 + o] = [0.09 * s, -0.91, -0.05];
    p[31 + o] = [0.09 * s, -0.91, 0.16];
  }
  return p;
}

/** `v` turned about `axis` (unit) by `deg` degrees (Rodrigues). */
export function turn(v: V3, axis: V3, deg: number): V3 {
  const a = (deg * Math.PI) / 180;
  const c = Math.cos(a);
  const s = Math.sin(a);
  const d = axis[0] * v[0] + axis[1] * v[1] + axis[2] * v[2];
  const x: V3 = [
    axis[1] * v[2] - axis[2] * v[1],
    axis[2] * v[0] - axis[0] * v[2],
    axis[0] * v[1] - axis[1] * v[0],
  ];
  return [0, 1, 2].map((k) => v[k] * c + x[k] * s + axis[k] * d * (1 - c)) as V3;
}

/** Turn the landmarks `ids` about the point `about` (a joint) by `deg` about `axis`, in place. */
export function bend(p: V3[], ids: number[], about: V3, axis: V3, deg: number): void {
  for (const i of ids) {
    const r = turn([p[i][0] - about[0], p[i][1] - about[1], p[i][2] - about[2]], axis, deg);
    p[i] = [about[0] + r[0], about[1] + r[1], about[2] + r[2]];
  }
}

/**
 * A recording frame of the points (internal frame): the whole body turned by `headingDeg` about +Y first
 * (a performer turned away from the camera), the hips at `hips` (internal frame, metres, relative to the
 * spot 3 m in front of the camera), every landmark with `visibility` unless `vis` says otherwise.
 */
export function frameOf(
  pts: V3[],
  o: { timestampMs: number; headingDeg?: number; hips?: V3; visibility?: number; vis?: Map<number, number> },
): PoseFrame {
  const W = 1280;
  const H = 720;
  const f = (0.5 * W) / Math.tan(Math.PI / 6);
  const hips = o.hips ?? [0, 0, 0];
  const world: Landmark[] = [];
  const image: Landmark[] = [];
  for (let i = 0; i < 33; i++) {
    const q = turn(pts[i], [0, 1, 0], o.headingDeg ?? 0);
    const vis = o.vis?.get(i) ?? o.visibility ?? 0.95;
    world.push({ x: q[0], y: -q[1], z: -q[2], visibility: vis, presence: 0.99 });
    // camera 3 m in front (+Z of the performer), hips 1 m below it: camera coords (x, -y, 3 - z)
    const cx = q[0] + hips[0];
    const cy = -(q[1] + hips[1]) + 0;
    const cz = 3 - (q[2] + hips[2]);
    image.push({
      x: (f * cx) / cz / W + 0.5,
      y: (f * cy) / cz / H + 0.5,
      z: 0,
      visibility: vis,
      presence: 0.99,
    });
  }
  return { timestampMs: o.timestampMs, landmarks: image, worldLandmarks: world };
}

export const IMAGE = { width: 1280, height: 720 };
