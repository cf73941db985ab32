/**
 * Helpers of the puppet drawing tests and benchmark: poses made from a character's rest joints (a subtree
 * turned about a joint), a synthetic drawing whose arms hang against its body, and the side-by-side weight
 * comparison (body pixels dragged when an arm is raised).
 */
import {
  type Character,
  characterFromImage,
  computeWeights,
  createJointSet,
  DrawingRig,
  type JointSet,
  JointStateCode,
  PUPPET_JOINT_COUNT,
  PUPPET_JOINTS,
  PUPPET_PARENTS,
  type PuppetJointName,
  type PuppetMesh,
  type RgbaImage,
  skin,
  type WeightMode,
} from '../../src/puppet';

export const J = (n: PuppetJointName): number => PUPPET_JOINTS.indexOf(n);

export function copyJoints(src: JointSet): JointSet {
  const out = createJointSet();
  out.x.set(src.x);
  out.y.set(src.y);
  out.confidence.set(src.confidence);
  out.state.set(src.state);
  return out;
}

/** True when joint j is `root` or below it. */
export function inSubtree(j: number, root: number): boolean {
  for (let k = j; k >= 0; k = PUPPET_PARENTS[k]) if (k === root) return true;
  return false;
}

/** Turn the joints of the subtree starting at `root` by `angle` radians about joint `pivot` (in place; y down, positive = clockwise on screen). */
export function rotateSubtree(joints: JointSet, root: number, pivot: number, angle: number): JointSet {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const px = joints.x[pivot];
  const py = joints.y[pivot];
  for (let j = 0; j < PUPPET_JOINT_COUNT; j++) {
    if (!inSubtree(j, root)) continue;
    const dx = joints.x[j] - px;
    const dy = joints.y[j] - py;
    joints.x[j] = px + c * dx - s * dy;
    joints.y[j] = py + s * dx + c * dy;
  }
  return joints;
}

/** The rest pose with the left upper arm turned to point straight up (the forearm keeps its angle to it). */
export function leftArmRaised(character: Character): JointSet {
  const pose = copyJoints(character.restJoints);
  const s = J('LeftUpperArm');
  const e = J('LeftLowerArm');
  const now = Math.atan2(pose.y[e] - pose.y[s], pose.x[e] - pose.x[s]);
  return rotateSubtree(pose, e, s, -Math.PI / 2 - now);
}

/** Point-in-convex-quad test (corners in order). */
function inQuad(x: number, y: number, q: readonly number[]): boolean {
  let sign = 0;
  for (let k = 0; k < 4; k++) {
    const ax = q[2 * k];
    const ay = q[2 * k + 1];
    const bx = q[(2 * k + 2) % 8];
    const by = q[(2 * k + 3) % 8];
    const cr = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
    if (cr !== 0) {
      if (sign === 0) sign = Math.sign(cr);
      else if (Math.sign(cr) !== sign) return false;
    }
  }
  return true;
}

/** True when the straight path from (x0, y0) to (x1, y1) stays inside the mask (its first pixel excluded). */
export function seesInMask(character: Character, x0: number, y0: number, x1: number, y1: number): boolean {
  const len = Math.hypot(x1 - x0, y1 - y0);
  for (let t = 1; t < len; t += 0.5) {
    const x = Math.floor(x0 + ((x1 - x0) * t) / len);
    const y = Math.floor(y0 + ((y1 - y0) * t) / len);
    if (
      x < 0 ||
      y < 0 ||
      x >= character.width ||
      y >= character.height ||
      !character.mask[y * character.width + x]
    )
      return false;
  }
  return true;
}

/**
 * The body's vertices, defined without the weights: rest position inside the torso quad (RightUpperArm,
 * LeftUpperArm, LeftUpperLeg, RightUpperLeg) shrunk by 20 % towards its centre, with a straight path inside
 * the mask to the Spine joint (so an arm drawn inside the quad with a gap to the body is not body).
 */
export function torsoVertices(character: Character, mesh: PuppetMesh): number[] {
  const r = character.restJoints;
  const sp = J('Spine');
  const q = ['RightUpperArm', 'LeftUpperArm', 'LeftUpperLeg', 'RightUpperLeg'].flatMap((n) => [
    r.x[J(n as PuppetJointName)],
    r.y[J(n as PuppetJointName)],
  ]);
  const cx = (q[0] + q[2] + q[4] + q[6]) / 4;
  const cy = (q[1] + q[3] + q[5] + q[7]) / 4;
  for (let k = 0; k < 4; k++) {
    q[2 * k] = cx + 0.8 * (q[2 * k] - cx);
    q[2 * k + 1] = cy + 0.8 * (q[2 * k + 1] - cy);
  }
  const out: number[] = [];
  for (let v = 0; v < mesh.vertexCount; v++) {
    const x = mesh.vertices[2 * v];
    const y = mesh.vertices[2 * v + 1];
    if (inQuad(x, y, q) && seesInMask(character, x, y, r.x[sp], r.y[sp])) out.push(v);
  }
  return out;
}

export interface ArmRaiseResult {
  mode: WeightMode;
  /** Mean / max displacement (px) of the torso-quad vertices when the left arm is raised. */
  bodyMean: number;
  bodyMax: number;
  /** Mean distance (px) of the vertices near the left hand from where the rigid arm takes them. */
  handError: number;
  bodyCount: number;
  handCount: number;
}

/**
 * Raise the left arm (upper arm straight up) and measure, for one weight mode: how far the body's vertices
 * move (should be 0) and how far the hand's vertices are from the rigid arm's motion (should be 0).
 * Hand vertices: rest distance to the LeftHand joint below 0.35 of the forearm's length, with a straight
 * path inside the mask to it. Body vertices: {@link torsoVertices}.
 */
export function armRaiseComparison(character: Character, mesh: PuppetMesh, mode: WeightMode): ArmRaiseResult {
  const weights = computeWeights(mesh, character, mode);
  const rig = new DrawingRig(character);
  const out = createJointSet();
  const tr = new Float64Array(PUPPET_JOINT_COUNT * 6);
  rig.pose(character.restJoints, out, tr); // reference = rest
  const pose = leftArmRaised(character);
  rig.pose(pose, out, tr);
  const sk = new Float32Array(2 * mesh.vertexCount);
  skin(mesh, weights, tr, sk);
  const V = mesh.vertices;
  const body = torsoVertices(character, mesh);
  let sum = 0;
  let max = 0;
  for (const v of body) {
    const d = Math.hypot(sk[2 * v] - V[2 * v], sk[2 * v + 1] - V[2 * v + 1]);
    sum += d;
    max = Math.max(max, d);
  }
  const r = character.restJoints;
  const h = J('LeftHand');
  const e = J('LeftLowerArm');
  const s = J('LeftUpperArm');
  const fore = Math.hypot(r.x[h] - r.x[e], r.y[h] - r.y[e]);
  const a =
    Math.atan2(pose.y[e] - pose.y[s], pose.x[e] - pose.x[s]) - Math.atan2(r.y[e] - r.y[s], r.x[e] - r.x[s]);
  const c = Math.cos(a);
  const sn = Math.sin(a);
  let hs = 0;
  let hn = 0;
  for (let v = 0; v < mesh.vertexCount; v++) {
    const x = V[2 * v];
    const y = V[2 * v + 1];
    if (Math.hypot(x - r.x[h], y - r.y[h]) > 0.35 * fore || !seesInMask(character, x, y, r.x[h], r.y[h]))
      continue;
    const tx = r.x[s] + c * (x - r.x[s]) - sn * (y - r.y[s]);
    const ty = r.y[s] + sn * (x - r.x[s]) + c * (y - r.y[s]);
    hs += Math.hypot(sk[2 * v] - tx, sk[2 * v + 1] - ty);
    hn++;
  }
  return {
    mode,
    bodyMean: body.length ? sum / body.length : 0,
    bodyMax: max,
    handError: hn ? hs / hn : 0,
    bodyCount: body.length,
    handCount: hn,
  };
}

/**
 * A synthetic drawing (PNG with alpha, 200 x 300) whose arms hang down against the body with a 2-px gap:
 * head disk, torso rectangle, arms as 10-px strips beside the torso joined to it at the shoulders, legs.
 * Returns the character with its joints (annotated, state Measured).
 */
export function armsDownCharacter(): Character {
  const w = 200;
  const h = 300;
  const img: RgbaImage = { width: w, height: h, data: new Uint8Array(w * h * 4) };
  const put = (x: number, y: number, r: number, g: number, b: number) => {
    const i = 4 * (y * w + x);
    img.data[i] = r;
    img.data[i + 1] = g;
    img.data[i + 2] = b;
    img.data[i + 3] = 255;
  };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const head = (x - 100) ** 2 + (y - 40) ** 2 <= 28 ** 2;
      const neck = x >= 94 && x < 106 && y >= 66 && y < 80;
      const torso = x >= 75 && x < 125 && y >= 78 && y < 180;
      const shoulders = x >= 63 && x < 137 && y >= 78 && y < 90;
      const armL = x >= 127 && x < 137 && y >= 78 && y < 175; // character's left = image right, gap 125..127
      const armR = x >= 63 && x < 73 && y >= 78 && y < 175;
      const legL = x >= 105 && x < 120 && y >= 180 && y < 285;
      const legR = x >= 80 && x < 95 && y >= 180 && y < 285;
      if (head) put(x, y, 240, 200, 160);
      else if (armL || armR || shoulders) put(x, y, 60, 90, 200);
      else if (neck || torso) put(x, y, 200, 60, 60);
      else if (legL || legR) put(x, y, 60, 140, 60);
    }
  const j = createJointSet();
  const set = (n: PuppetJointName, x: number, y: number) => {
    j.x[J(n)] = x;
    j.y[J(n)] = y;
  };
  set('Hips', 100, 175);
  set('Spine', 100, 145);
  set('Chest', 100, 110);
  set('Neck', 100, 78);
  set('Head', 100, 15);
  set('LeftUpperArm', 132, 84);
  set('LeftLowerArm', 132, 125);
  set('LeftHand', 132, 162);
  set('LeftHandTip', 132, 172);
  set('RightUpperArm', 68, 84);
  set('RightLowerArm', 68, 125);
  set('RightHand', 68, 162);
  set('RightHandTip', 68, 172);
  set('LeftUpperLeg', 112, 182);
  set('LeftLowerLeg', 112, 232);
  set('LeftFoot', 112, 275);
  set('LeftToes', 112, 283);
  set('RightUpperLeg', 88, 182);
  set('RightLowerLeg', 88, 232);
  set('RightFoot', 88, 275);
  set('RightToes', 88, 283);
  j.confidence.fill(1);
  j.state.fill(JointStateCode.Measured);
  return characterFromImage(img, j, { name: 'arms-down (synthetic)' });
}
