/**
 * What the mocap page draws besides the avatar (browser only):
 * - {@link ConfidenceSkeleton}: the solver's 21 bones as a three.js stick figure (a capsule from each joint to
 *   its parent, at the solver's world joint positions), each bone coloured by its state and confidence
 *   ({@link boneColour});
 * - {@link drawLandmarks}: the 33 image landmarks and BlazePose's connections over the camera / video
 *   image (a 2D canvas), each landmark coloured by its confidence.
 */
import * as THREE from 'three';
import { MOCAP_BONE_COUNT, MOCAP_PARENTS, MocapStateCode } from '../../mocap';
import type { PoseFrame } from '../../puppet';

/** Colour of a bone: measured from red (confidence 0) through yellow to green (1); held amber; filled grey. */
export function boneColour(state: number, confidence: number): string {
  if (state === MocapStateCode.Held) return '#ff9f1a';
  if (state === MocapStateCode.Filled) return '#8a8f98';
  const c = Math.max(0, Math.min(1, confidence));
  return `hsl(${Math.round(120 * c)}, 85%, 50%)`;
}

const Y = new THREE.Vector3(0, 1, 0);
const a = new THREE.Vector3();
const b = new THREE.Vector3();

/** The solver's skeleton as capsules coloured per bone (its root's position is the side-by-side offset). */
export class ConfidenceSkeleton {
  readonly root = new THREE.Group();
  private readonly links: THREE.Mesh[] = [];
  private readonly joints: THREE.Mesh[] = [];
  private readonly mats: THREE.MeshBasicMaterial[] = [];

  constructor() {
    const geo = new THREE.CylinderGeometry(1, 1, 1, 8).translate(0, 0.5, 0);
    const ball = new THREE.SphereGeometry(0.022, 10, 8);
    for (let i = 0; i < MOCAP_BONE_COUNT; i++) {
      const m = new THREE.MeshBasicMaterial({ color: 0x8a8f98 });
      this.mats.push(m);
      const link = new THREE.Mesh(geo, m);
      const joint = new THREE.Mesh(ball, m);
      link.visible = joint.visible = false;
      this.links.push(link);
      this.joints.push(joint);
      this.root.add(link, joint);
    }
  }

  /** Joint positions `3 * 21` (metres, the solver's frame = three.js's), states and confidences per bone. */
  update(positions: ArrayLike<number>, state: ArrayLike<number>, confidence: ArrayLike<number>): void {
    for (let i = 0; i < MOCAP_BONE_COUNT; i++) {
      this.mats[i].color.set(boneColour(state[i], confidence[i]));
      const j = this.joints[i];
      j.position.set(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
      j.visible = true;
      const p = MOCAP_PARENTS[i];
      const link = this.links[i];
      if (p < 0) continue;
      a.set(positions[3 * p], positions[3 * p + 1], positions[3 * p + 2]);
      b.set(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]).sub(a);
      const len = b.length();
      link.visible = len > 1e-6;
      if (!link.visible) continue;
      link.position.copy(a);
      link.quaternion.setFromUnitVectors(Y, b.divideScalar(len));
      link.scale.set(0.014, len, 0.014);
    }
  }
}

/** BlazePose's 33-landmark connections (the pose model's topology: MediaPipe's POSE_CONNECTIONS, as pairs). */
// biome-ignore format: pairs
const CONNECTIONS: readonly [number, number][] = [
  [0, 1], [1, 2], [2, 3], [3, 7], [0, 4], [4, 5], [5, 6], [6, 8], [9, 10],
  [11, 12], [11, 13], [13, 15], [15, 17], [15, 19], [15, 21], [17, 19],
  [12, 14], [14, 16], [16, 18], [16, 20], [16, 22], [18, 20],
  [11, 23], [12, 24], [23, 24], [23, 25], [24, 26], [25, 27], [26, 28],
  [27, 29], [28, 30], [29, 31], [30, 32], [27, 31], [28, 32],
];

/** A landmark's confidence as the solver reads it (min of visibility and presence; unknown 0.8). */
function landmarkConf(l: { visibility?: number; presence?: number }): number {
  const v = typeof l.visibility === 'number' ? l.visibility : 0.8;
  return typeof l.presence === 'number' ? Math.min(v, l.presence) : v;
}

/**
 * Draw `frame`'s image landmarks over the whole canvas (normalised x, y -> canvas pixels): connections in
 * white, landmarks coloured red (0) -> green (1) by confidence. Draws nothing for a frame with no person.
 */
export function drawLandmarks(g: CanvasRenderingContext2D, frame: PoseFrame | null): void {
  const lm = frame?.landmarks;
  if (lm?.length !== 33) return;
  const W = g.canvas.width;
  const H = g.canvas.height;
  g.lineWidth = Math.max(1.5, W / 300);
  g.strokeStyle = 'rgba(255,255,255,0.8)';
  g.beginPath();
  for (const [i, j] of CONNECTIONS) {
    g.moveTo(lm[i].x * W, lm[i].y * H);
    g.lineTo(lm[j].x * W, lm[j].y * H);
  }
  g.stroke();
  const r = Math.max(2.5, W / 160);
  for (const l of lm) {
    g.fillStyle = `hsl(${Math.round(120 * Math.max(0, Math.min(1, landmarkConf(l))))}, 85%, 50%)`;
    g.beginPath();
    g.arc(l.x * W, l.y * H, r, 0, 2 * Math.PI);
    g.fill();
  }
}
