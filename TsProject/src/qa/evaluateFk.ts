/**
 * Forward kinematics for the QA evaluation (src/qa/evaluate.ts) over the bones its measures read only:
 * the same formulas in the same order as core `forwardKinematics`, so the same values for those bones.
 */
/** The bones in `bones` (entries < 0 skipped) and all their ancestors, in ascending index order. */
export function neededBones(parents: Int32Array | ArrayLike<number>, bones: ArrayLike<number>): Int32Array {
  const need = bonesAndAncestors(parents, bones);
  const out: number[] = [];
  for (let b = 0; b < need.length; b++) if (need[b]) out.push(b);
  return Int32Array.from(out);
}

/** 1 for the bones in `bones` (entries < 0 skipped) and all their ancestors, else 0; one per bone. */
export function bonesAndAncestors(
  parents: Int32Array | ArrayLike<number>,
  bones: ArrayLike<number>,
): Uint8Array {
  const need = new Uint8Array(parents.length);
  for (let i = 0; i < bones.length; i++)
    for (let b = bones[i]; b >= 0 && !need[b]; b = parents[b]) need[b] = 1;
  return need;
}

/**
 * Core `forwardKinematics` (same formulas, same order) over the bones in `order` only (ascending, closed
 * under parents), reading the local pose at bone offset `b0` of `lr` (4 per bone) and `lp` (3 per bone).
 * World positions only where `withPos[bone]` is 1 (a set closed under parents, e.g. from
 * {@link bonesAndAncestors}): the measures read the positions of a few joints and the rotations of many,
 * and a position costs as much as a rotation.
 */
export function fkSome(
  parents: ArrayLike<number>,
  order: Int32Array,
  lr: ArrayLike<number>,
  lp: ArrayLike<number>,
  b0: number,
  outRot: Float64Array,
  outPos: Float64Array,
  withPos: Uint8Array,
): void {
  const r0 = 4 * b0;
  const t0 = 3 * b0;
  for (let j = 0; j < order.length; j++) {
    const i = order[j];
    const p = parents[i];
    const i4 = 4 * i;
    const i3 = 3 * i;
    const l4 = r0 + i4;
    const l3 = t0 + i3;
    if (p < 0) {
      outRot[i4] = lr[l4];
      outRot[i4 + 1] = lr[l4 + 1];
      outRot[i4 + 2] = lr[l4 + 2];
      outRot[i4 + 3] = lr[l4 + 3];
      if (withPos[i] === 1) {
        outPos[i3] = lp[l3];
        outPos[i3 + 1] = lp[l3 + 1];
        outPos[i3 + 2] = lp[l3 + 2];
      }
      continue;
    }
    const p4 = 4 * p;
    const p3 = 3 * p;
    const qx = outRot[p4];
    const qy = outRot[p4 + 1];
    const qz = outRot[p4 + 2];
    const qw = outRot[p4 + 3];
    if (withPos[i] === 1) {
      const x = lp[l3];
      const y = lp[l3 + 1];
      const z = lp[l3 + 2];
      const uvx = qy * z - qz * y;
      const uvy = qz * x - qx * z;
      const uvz = qx * y - qy * x;
      outPos[i3] = outPos[p3] + x + 2 * (qw * uvx + qy * uvz - qz * uvy);
      outPos[i3 + 1] = outPos[p3 + 1] + y + 2 * (qw * uvy + qz * uvx - qx * uvz);
      outPos[i3 + 2] = outPos[p3 + 2] + z + 2 * (qw * uvz + qx * uvy - qy * uvx);
    }
    const bx = lr[l4];
    const by = lr[l4 + 1];
    const bz = lr[l4 + 2];
    const bw = lr[l4 + 3];
    outRot[i4] = qx * bw + qw * bx + qy * bz - qz * by;
    outRot[i4 + 1] = qy * bw + qw * by + qz * bx - qx * bz;
    outRot[i4 + 2] = qz * bw + qw * bz + qx * by - qy * bx;
    outRot[i4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
  }
}
