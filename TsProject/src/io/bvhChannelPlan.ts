/**
 * The reader's plan of a frame's channel values (which value is which joint's position or angle), the
 * header's byte length, and channel labels for error messages. Used by src/io/bvhRead.ts.
 */

import type { EulerOrder } from '../core/quat';
import { type BvhLayout, channelAxis, isRotation } from './bvhFormat';

/**
 * Per-joint channel plan. For joint j: `posSlot[3j + axis]` is the index within a frame of its
 * position channel for that axis (-1 when absent); `rotSlot[3j + k]` the index of the k-th angle of the
 * rotation sequence `axes[3j..3j+2]` (-1 when absent: angle 0). The sequence lists the joint's rotation
 * axes in file order, padded with the missing axes in X, Y, Z order, so fewer than three rotation
 * channels still compose correctly (the padded angles are 0). `orders[j]` names the same sequence
 * (e.g. 'ZXY') and `parity[j]` is +1 when it is a cyclic permutation of XYZ, else -1.
 */
interface ChannelPlan {
  channelCount: number;
  posSlot: Int32Array;
  rotSlot: Int32Array;
  axes: Int32Array;
  parity: Float64Array;
  orders: EulerOrder[];
  hasRot: Uint8Array;
}

export function buildPlan(layout: BvhLayout): ChannelPlan {
  const n = layout.joints.length;
  const posSlot = new Int32Array(3 * n).fill(-1);
  const rotSlot = new Int32Array(3 * n).fill(-1);
  const axes = new Int32Array(3 * n);
  const parity = new Float64Array(n);
  const orders: EulerOrder[] = [];
  const hasRot = new Uint8Array(n);
  let c = 0;
  for (let j = 0; j < n; j++) {
    const seq: number[] = [];
    const slots: number[] = [];
    for (const ch of layout.joints[j].channels) {
      const a = channelAxis(ch);
      if (isRotation(ch)) {
        seq.push(a);
        slots.push(c);
      } else posSlot[3 * j + a] = c;
      c++;
    }
    for (let a = 0; a < 3; a++) if (!seq.includes(a)) seq.push(a);
    for (let k = 0; k < 3; k++) axes[3 * j + k] = seq[k];
    for (let k = 0; k < slots.length; k++) rotSlot[3 * j + k] = slots[k];
    hasRot[j] = slots.length ? 1 : 0;
    parity[j] = (seq[1] - seq[0] + 3) % 3 === 1 ? 1 : -1;
    orders.push(seq.map((a) => 'XYZ'[a]).join('') as EulerOrder);
  }
  return { channelCount: c, posSlot, rotSlot, axes, parity, orders, hasRot };
}

/**
 * Byte index where the header of a BVH file given as bytes ends: after the later of the `Frames` and
 * `Frame Time` lines that follow the `MOTION` line (the length when not found; the header parser then
 * reports what is missing). Only this part is decoded to text.
 */
export function headerByteEnd(b: Uint8Array): number {
  const n = b.length;
  const lineEndAfter = (i: number) => {
    let e = i;
    while (e < n && b[e] !== 10 && b[e] !== 13) e++;
    if (e < n) e += b[e] === 13 && b[e + 1] === 10 ? 2 : 1;
    return e;
  };
  // ASCII letters compared in either case (keywords are case-insensitive, see parseBvh)
  const find = (word: number[], from: number, lineStart: boolean) => {
    for (let i = from; i + word.length <= n; i++) {
      let k = 0;
      while (k < word.length && (b[i + k] | 0x20) === (word[k] | 0x20)) k++;
      if (k < word.length) continue;
      if (!lineStart) return i;
      let j = i - 1;
      while (j >= 0 && (b[j] === 32 || b[j] === 9)) j--;
      if (j < 0 || b[j] === 10 || b[j] === 13) return i;
    }
    return -1;
  };
  const m = find([77, 79, 84, 73, 79, 78], 0, true); // MOTION
  if (m < 0) return n;
  const frames = find([70, 114, 97, 109, 101, 115], m, true); // Frames
  const time = find([84, 105, 109, 101], m, false); // (Frame) Time
  if (frames < 0 || time < 0) return n;
  return lineEndAfter(Math.max(frames, time));
}

/** UTF-8 byte length of `s.slice(0, end)`. */
export function utf8Length(s: string, end: number): number {
  let len = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) len++;
    else if (c < 0x800) len += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < end) {
      len += 4;
      i++;
    } else len += 3;
  }
  return len;
}

export function channelLabel(layout: BvhLayout, k: number): string {
  let c = 0;
  for (const j of layout.joints) {
    if (k < c + j.channels.length) return `channel ${k + 1} ('${j.name}' ${j.channels[k - c]})`;
    c += j.channels.length;
  }
  return `channel ${k + 1}`;
}
