/**
 * The spine and neck chain fit ({@link ChainFit}: a target chain swung onto the source chain's curve by
 * arc-length fraction, see src/retarget/retargeter.ts) and the source pose carried to the virtual
 * hierarchy ({@link toVirtualPose}).
 */
import { quat, vec3 } from 'gl-matrix';
import { HumanBodyBones as H, quat64, readQuat, type Skeleton, vec64, writeQuat } from '../core';
import { chainBetween, poseGeometry } from './referencePose';
import type { VirtualHierarchy } from './virtualHierarchy';

/**
 * A target chain (spine or neck) fitted to the shape of the source chain: each target chain bone keeps
 * the rotation of its group's last source bone (see module docs) but is swung so its segment ends at
 * the source chain point of the same arc-length fraction, carried to the target chain's start joint
 * and scaled by the chain length ratio (so the hips-to-neck direction is kept).
 */
export interface ChainFit {
  /** Virtual target chain bones whose segments are fitted. */
  targetBones: number[];
  /** The next chain bone (the segment's end) of each, virtual index. */
  targetNext: number[];
  /** Arc fractions of the target chain joints: bone j's segment runs from targetCum[j] to targetCum[j + 1]. */
  targetCum: Float64Array;
  /** Source chain joints (real indices), from the start joint to the end joint. */
  sourcePoints: number[];
  /** Arc fractions of the source joints. */
  sourceCum: Float64Array;
  /** Virtual target index of the chain's start joint (hips or neck). */
  targetStart: number;
  /** Target chain length / source chain length (rest lengths). */
  scale: number;
}

/** Arc fractions of the joints of `chain` (rest lengths) and the chain's total length. */
function cumulative(s: Skeleton, chain: number[]): { fractions: Float64Array; length: number } {
  const out = new Float64Array(chain.length);
  let total = 0;
  for (let i = 1; i < chain.length; i++) {
    const b = chain[i];
    total += Math.hypot(
      s.restTranslations[3 * b],
      s.restTranslations[3 * b + 1],
      s.restTranslations[3 * b + 2],
    );
    out[i] = total;
  }
  if (total > 0) for (let i = 0; i < out.length; i++) out[i] /= total;
  return { fractions: out, length: total };
}

/** Chain fits for the spine (Hips..Neck/Head) and neck (Neck..Head). */
export function buildChainFits(vs: VirtualHierarchy, vt: Skeleton): ChainFit[] {
  const S = vs.skeleton;
  const fits: ChainFit[] = [];
  const sm = S.humanoid;
  const tm = vt.humanoid;
  const make = (tChain: number[], sChain: number[]) => {
    // chains include both end joints: [start, bones..., end]
    if (tChain.length < 3 || sChain.length < 2) return;
    const tCum = cumulative(vt, tChain);
    const sCum = cumulative(S, sChain);
    const scale = sCum.length > 0 ? tCum.length / sCum.length : 1;
    fits.push({
      targetBones: tChain.slice(1, -1),
      targetNext: tChain.slice(2),
      targetCum: tCum.fractions.slice(1),
      sourcePoints: sChain.map((b) => vs.realOf[b]),
      sourceCum: sCum.fractions,
      targetStart: tChain[0],
      scale,
    });
  };
  const tEnd = tm[H.Neck] >= 0 ? tm[H.Neck] : tm[H.Head];
  const sEnd = sm[H.Neck] >= 0 ? sm[H.Neck] : sm[H.Head];
  make(chainBetween(vt, tm[H.Hips], tEnd), chainBetween(S, sm[H.Hips], sEnd));
  if (tm[H.Neck] >= 0 && sm[H.Neck] >= 0) {
    make(chainBetween(vt, tm[H.Neck], tm[H.Head]), chainBetween(S, sm[H.Neck], sm[H.Head]));
  }
  return fits;
}

/** A real-order local pose of `real` expressed on its virtual hierarchy (set-up time). */
export function toVirtualPose(
  vh: VirtualHierarchy,
  real: Skeleton,
  rot: Float64Array,
  pos: Float64Array,
): { rotations: Float64Array; translations: Float64Array } {
  if (vh.identity) return { rotations: rot, translations: pos };
  const g = poseGeometry(real, rot, pos);
  const vs = vh.skeleton;
  const n = vs.boneCount;
  const rotations = new Float64Array(4 * n);
  const translations = new Float64Array(3 * n);
  const q = quat64();
  const pq = quat64();
  const v = vec64();
  for (let i = 0; i < n; i++) {
    const r = vh.realOf[i];
    const p = vs.parents[i];
    readQuat(q, g.rotations, r);
    v[0] = g.positions[3 * r];
    v[1] = g.positions[3 * r + 1];
    v[2] = g.positions[3 * r + 2];
    if (p >= 0) {
      const pr = vh.realOf[p];
      readQuat(pq, g.rotations, pr);
      quat.invert(pq, pq);
      quat.multiply(q, pq, q);
      v[0] -= g.positions[3 * pr];
      v[1] -= g.positions[3 * pr + 1];
      v[2] -= g.positions[3 * pr + 2];
      vec3.transformQuat(v, v, pq);
    }
    writeQuat(rotations, i, q);
    translations.set(v, 3 * i);
  }
  return { rotations, translations };
}
