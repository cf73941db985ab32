/**
 * The judge's own forward kinematics over BVH channel values (./bvhText.ts), independent of src/core.
 *
 * Conventions (those of the BVH format as the shared data uses it; stated, not imported):
 * - A joint's local transform per frame is `T(t) * R`, column vectors, world = parentWorld * local.
 * - `R` composes the joint's rotation channels in the order listed, first listed outermost:
 *   `CHANNELS 3 Zrotation Xrotation Yrotation` with values `a b c` is `Rz(a) * Rx(b) * Ry(c)`, degrees,
 *   right-handed (`Rz(90)` takes +X to +Y). Mixed orders per joint are read per joint.
 * - `t` is the OFFSET, except that a position channel REPLACES its component (`Xposition` sets t.x).
 *   This is what the data needs: in the Bandai Namco takes every joint has position channels whose
 *   values equal the OFFSETs (Spine OFFSET `15.7357 0 0`, frame 0 `15.7357 5.1e-06 -5.5e-07`); the
 *   Bandai Hips OFFSET y is 93.9 and its Yposition about 90, a plausible hip height only when it replaces
 *   the OFFSET (adding would put the hips at 1.84 m).
 * - Positions come out in metres (file units times the caller's scale), in the file's own axes.
 */
import type { BvhText } from './bvhText';

const DEG = Math.PI / 180;

/**
 * Local rotation of joint `j` at one frame as a row-major 3x3 matrix written into `out` at `o`.
 * `row` is the frame's values, `base` the row's first index.
 */
export function localRotation(
  bvh: BvhText,
  j: number,
  row: ArrayLike<number>,
  base: number,
  out: Float64Array,
  o: number,
): void {
  let m00 = 1;
  let m01 = 0;
  let m02 = 0;
  let m10 = 0;
  let m11 = 1;
  let m12 = 0;
  let m20 = 0;
  let m21 = 0;
  let m22 = 1;
  const joint = bvh.joints[j];
  const ch = joint.channels;
  for (let k = 0; k < ch.length; k++) {
    const name = ch[k];
    if (name.charCodeAt(1) !== 114) continue; // 'r' of 'Xrotation': position channels are skipped
    const a = row[base + joint.firstChannel + k] * DEG;
    const c = Math.cos(a);
    const s = Math.sin(a);
    // M = M * R_axis(a)
    const axis = name.charCodeAt(0);
    if (axis === 88) {
      // X: columns 1 and 2 rotate
      const b01 = m01 * c + m02 * s;
      const b02 = -m01 * s + m02 * c;
      const b11 = m11 * c + m12 * s;
      const b12 = -m11 * s + m12 * c;
      const b21 = m21 * c + m22 * s;
      const b22 = -m21 * s + m22 * c;
      m01 = b01;
      m02 = b02;
      m11 = b11;
      m12 = b12;
      m21 = b21;
      m22 = b22;
    } else if (axis === 89) {
      // Y: R = [[c,0,s],[0,1,0],[-s,0,c]]
      const b00 = m00 * c - m02 * s;
      const b02 = m00 * s + m02 * c;
      const b10 = m10 * c - m12 * s;
      const b12 = m10 * s + m12 * c;
      const b20 = m20 * c - m22 * s;
      const b22 = m20 * s + m22 * c;
      m00 = b00;
      m02 = b02;
      m10 = b10;
      m12 = b12;
      m20 = b20;
      m22 = b22;
    } else {
      // Z: R = [[c,-s,0],[s,c,0],[0,0,1]]
      const b00 = m00 * c + m01 * s;
      const b01 = -m00 * s + m01 * c;
      const b10 = m10 * c + m11 * s;
      const b11 = -m10 * s + m11 * c;
      const b20 = m20 * c + m21 * s;
      const b21 = -m20 * s + m21 * c;
      m00 = b00;
      m01 = b01;
      m10 = b10;
      m11 = b11;
      m20 = b20;
      m21 = b21;
    }
  }
  out[o] = m00;
  out[o + 1] = m01;
  out[o + 2] = m02;
  out[o + 3] = m10;
  out[o + 4] = m11;
  out[o + 5] = m12;
  out[o + 6] = m20;
  out[o + 7] = m21;
  out[o + 8] = m22;
}

/** Local translation of joint `j` at one frame (file units): the OFFSET with position channels replacing. */
export function localTranslation(
  bvh: BvhText,
  j: number,
  row: ArrayLike<number>,
  base: number,
  out: Float64Array,
  o: number,
): void {
  const joint = bvh.joints[j];
  out[o] = joint.offset[0];
  out[o + 1] = joint.offset[1];
  out[o + 2] = joint.offset[2];
  const ch = joint.channels;
  for (let k = 0; k < ch.length; k++) {
    if (ch[k].charCodeAt(1) !== 112) continue; // 'p' of 'Xposition'
    out[o + ch[k].charCodeAt(0) - 88] = row[base + joint.firstChannel + k];
  }
}

/** World positions of joints and End Sites. */
export interface WorldPositions {
  frameCount: number;
  /** Joints first (index = joint index), then every End Site in joint order. */
  pointCount: number;
  /** `endSitePoints[j]`: point indices of joint j's End Sites. */
  endSitePoints: number[][];
  /** `Float64Array(frameCount * pointCount * 3)`, metres, the file's axes. */
  positions: Float64Array;
}

/**
 * Forward kinematics of every frame.
 * @param scale metres per file unit.
 * @param values channel values (default the file's own), `frameCount * channelCount`.
 */
export function worldPositions(
  bvh: BvhText,
  scale: number,
  values: Float64Array = bvh.values,
): WorldPositions {
  const J = bvh.joints.length;
  const C = bvh.channelCount;
  const F = values.length / C;
  const endSitePoints: number[][] = [];
  let P = J;
  for (const j of bvh.joints) {
    endSitePoints.push(j.endSites.map(() => P++));
  }
  const positions = new Float64Array(F * P * 3);
  const rot = new Float64Array(9 * J); // world rotations of the current frame
  const loc = new Float64Array(9);
  const t = new Float64Array(3);
  for (let f = 0; f < F; f++) {
    const base = f * C;
    const pf = f * P * 3;
    for (let j = 0; j < J; j++) {
      const parent = bvh.joints[j].parent;
      localRotation(bvh, j, values, base, loc, 0);
      localTranslation(bvh, j, values, base, t, 0);
      const o = pf + 3 * j;
      if (parent < 0) {
        rot.set(loc, 9 * j);
        positions[o] = t[0] * scale;
        positions[o + 1] = t[1] * scale;
        positions[o + 2] = t[2] * scale;
      } else {
        const r = 9 * parent;
        const po = pf + 3 * parent;
        for (let a = 0; a < 3; a++) {
          positions[o + a] =
            positions[po + a] +
            (rot[r + 3 * a] * t[0] + rot[r + 3 * a + 1] * t[1] + rot[r + 3 * a + 2] * t[2]) * scale;
          for (let b = 0; b < 3; b++)
            rot[9 * j + 3 * a + b] =
              rot[r + 3 * a] * loc[b] + rot[r + 3 * a + 1] * loc[3 + b] + rot[r + 3 * a + 2] * loc[6 + b];
        }
      }
      const sites = bvh.joints[j].endSites;
      for (let e = 0; e < sites.length; e++) {
        const s = sites[e];
        const so = pf + 3 * endSitePoints[j][e];
        for (let a = 0; a < 3; a++)
          positions[so + a] =
            positions[o + a] +
            (rot[9 * j + 3 * a] * s[0] + rot[9 * j + 3 * a + 1] * s[1] + rot[9 * j + 3 * a + 2] * s[2]) *
              scale;
      }
    }
  }
  return { frameCount: F, pointCount: P, endSitePoints, positions };
}

/** Rest positions (every channel zero... except that position channels keep the OFFSET): file units, `3 * J`. */
export function restPositions(bvh: BvhText): Float64Array {
  const J = bvh.joints.length;
  const out = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    const p = bvh.joints[j].parent;
    for (let a = 0; a < 3; a++) out[3 * j + a] = (p >= 0 ? out[3 * p + a] : 0) + bvh.joints[j].offset[a];
  }
  return out;
}
