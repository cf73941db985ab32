/**
 * Synthetic BlazePose frames for the puppet pose tests: a person standing in the rest pose of
 * src/puppet/occlusion.ts (REST_OFFSETS, torso length `torso` px, hips centre at `hips` px), written as the
 * 33 normalised landmarks MediaPipe gives, with a chosen visibility.
 */
import { type Landmark, type PoseFrame, REST_OFFSETS } from '../../src/puppet';

/** Landmark -> [offset x, offset y] in torso lengths from the hips centre. */
function landmarkOffsets(): [number, number][] {
  const r = REST_OFFSETS;
  const o: [number, number][] = new Array(33);
  const at = (j: number, dx = 0, dy = 0): [number, number] => [r[j][0] + dx, r[j][1] + dy];
  o[0] = [0, -1.35];
  for (let i = 1; i <= 3; i++) o[i] = [0.03 * i, -1.4];
  for (let i = 4; i <= 6; i++) o[i] = [-0.03 * (i - 3), -1.4];
  o[7] = [0.12, -1.42];
  o[8] = [-0.12, -1.42];
  o[9] = [0.04, -1.28];
  o[10] = [-0.04, -1.28];
  o[11] = at(5);
  o[12] = at(9);
  o[13] = at(6);
  o[14] = at(10);
  o[15] = at(7);
  o[16] = at(11);
  o[17] = at(8, 0.03, 0.03);
  o[18] = at(12, -0.03, 0.03);
  o[19] = at(8, -0.03, -0.03);
  o[20] = at(12, 0.03, -0.03);
  o[21] = at(7, -0.02, 0.03);
  o[22] = at(11, 0.02, 0.03);
  o[23] = at(13);
  o[24] = at(17);
  o[25] = at(14);
  o[26] = at(18);
  o[27] = at(15);
  o[28] = at(19);
  o[29] = at(15, 0, 0.05);
  o[30] = at(19, 0, 0.05);
  o[31] = at(16);
  o[32] = at(20);
  return o;
}

export const LANDMARK_OFFSETS = landmarkOffsets();

export interface StandingOptions {
  image?: { width: number; height: number };
  /** Hips centre in pixels (default image centre, 0.55 of the height). */
  hips?: [number, number];
  /** Torso length in pixels (default 0.25 of the image height). */
  torso?: number;
  /** Visibility of every landmark (undefined: the field is absent). */
  visibility?: number;
  timestampMs?: number;
}

/** 33 normalised landmarks of a standing person (pixels / image size). */
export function standingFrame(o: StandingOptions = {}): PoseFrame {
  const img = o.image ?? { width: 1280, height: 720 };
  const T = o.torso ?? img.height * 0.25;
  const [hx, hy] = o.hips ?? [img.width / 2, img.height * 0.55];
  const landmarks: Landmark[] = LANDMARK_OFFSETS.map(([dx, dy]) => {
    const l: Landmark = { x: (hx + dx * T) / img.width, y: (hy + dy * T) / img.height, z: 0 };
    if (o.visibility !== undefined) l.visibility = o.visibility;
    return l;
  });
  return { timestampMs: o.timestampMs ?? 0, landmarks };
}

export interface CrossingOptions {
  image?: { width: number; height: number };
  /** Hips centre in pixels (default image centre, 0.6 of the height). */
  hips?: [number, number];
  /** Torso length in pixels (default 0.25 of the image height). */
  torso?: number;
  /** World z (metres, smaller = nearer the camera) of the right elbow and of the right wrist and hand; the rest 0. */
  elbowZ: number;
  wristZ: number;
  timestampMs?: number;
}

/**
 * A standing person whose right forearm crosses the chest (elbow at the side at waist height, wrist in front
 * of the left chest), with image landmarks and world landmarks (metres, hips centre at 0, the torso 0.5 m),
 * the right elbow and wrist at the given world z and every other landmark at z 0. Image z is the world z in
 * image-width units (torso px / 0.5 m / image width).
 */
export function forearmCrossingFrame(o: CrossingOptions): PoseFrame {
  const img = o.image ?? { width: 640, height: 480 };
  const T = o.torso ?? img.height * 0.25;
  const [hx, hy] = o.hips ?? [img.width / 2, img.height * 0.6];
  const off = LANDMARK_OFFSETS.map(([x, y]) => [x, y]);
  off[14] = [-0.25, -0.5]; // right elbow, at the side
  off[16] = [0.15, -0.68]; // right wrist, in front of the left chest
  off[18] = [0.27, -0.66];
  off[20] = [0.28, -0.74];
  off[22] = [0.22, -0.76];
  const z = (i: number) =>
    i === 14 ? o.elbowZ : i === 16 || i === 18 || i === 20 || i === 22 ? o.wristZ : 0;
  const landmarks: Landmark[] = off.map(([dx, dy], i) => ({
    x: (hx + dx * T) / img.width,
    y: (hy + dy * T) / img.height,
    z: (z(i) * T) / 0.5 / img.width,
    visibility: 0.95,
  }));
  const worldLandmarks: Landmark[] = off.map(([dx, dy], i) => ({
    x: dx * 0.5,
    y: dy * 0.5,
    z: z(i),
    visibility: 0.95,
  }));
  return { timestampMs: o.timestampMs ?? 0, landmarks, worldLandmarks };
}
