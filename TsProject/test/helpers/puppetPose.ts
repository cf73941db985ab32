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
