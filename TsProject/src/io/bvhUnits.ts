/**
 * BVH file units: the guess of metres per file unit from the rest skeleton's size (centimetres, metres,
 * inches, ...) and the rest extent it is based on. See src/io/bvh.ts for the module's conventions.
 */

import type { BvhLayout } from './bvhFormat';

// ---------------------------------------------------------------------------------------------
// Units

/** A unit known to the auto guess: metres per file unit and its name. */
interface UnitCandidate {
  scale: number;
  name: string;
  /** Added to the log-ratio error: a prior against rarer units. */
  penalty: number;
}

/**
 * Candidate units for `unitScale: 'auto'`. CMU ASF length units: the CMU Graphics Lab Motion Capture
 * Database converts its asf/amc lengths to metres with `(1.0/0.45)*2.54/100.0 = 0.056444` (0.45 is the ASF
 * header scale, the data is in inches; http://mocap.cs.cmu.edu/faqs.php, "How do I convert the lengths
 * used in the asf/amc files into meters?"); CMU-derived BVH files keep those units.
 */
export const BVH_UNIT_CANDIDATES: readonly UnitCandidate[] = [
  { scale: 1, name: 'metres', penalty: 0 },
  { scale: 0.0254 / 0.45, name: 'CMU ASF units (1/0.45 inch)', penalty: 0.1 },
  { scale: 0.0254, name: 'inches', penalty: 0 },
  { scale: 0.01, name: 'centimetres', penalty: 0 },
  { scale: 0.001, name: 'millimetres', penalty: 0 },
];

/** Typical human height in metres that the auto guess aims for. */
export const BVH_TYPICAL_HEIGHT = 1.7;

/**
 * Joint extents in metres (`[min, max]`) that count as a plausible humanoid when the file is read as
 * centimetres; within this range the auto guess picks centimetres ({@link guessBvhUnitScale}).
 */
export const BVH_CENTIMETRE_PLAUSIBLE: readonly [number, number] = [0.5, 2.6];

/**
 * Guess metres per file unit from the size of a rest skeleton.
 *
 * Rule: `extent` is the largest side of the axis-aligned bounding box of the rest-pose positions of
 * all joints and End Sites (offsets accumulated with identity rotations, i.e. the BVH rest pose). The
 * largest side is used, not the Y extent, because files may be Z-up or have rotated rest frames; for a
 * human it is about the standing height (or the arm span of a T-pose, which is similar).
 * 1. Centimetres prior: centimetres win whenever `extent * 0.01` is a plausible humanoid size,
 *    {@link BVH_CENTIMETRE_PLAUSIBLE} (0.5 m to 2.6 m). Centimetres are the common BVH unit and the
 *    unit this project writes ({@link writeBvh}); without the prior a retarget onto a small avatar
 *    (CesiumMan.glb, ~1.19 m tall, joint extent below 1 m) reads back as inches.
 * 2. Otherwise the unit of {@link BVH_UNIT_CANDIDATES} whose `extent * scale` is nearest to
 *    {@link BVH_TYPICAL_HEIGHT} in ratio wins: smallest `|ln(extent * scale / 1.7)| + penalty`, where
 *    CMU units carry a 0.1 penalty as the rarer unit.
 * Bands that follow (extent in file units): < 7.5 metres, 7.5-42.7 CMU units, 42.7-50 inches,
 * 50-537.6 centimetres, > 537.6 millimetres. A skeleton with zero extent gets centimetres.
 * Trade-off: an adult skeleton written in inches (50-102 in of extent) reads as a 0.5-1 m skeleton in
 * centimetres; give the unit explicitly (`unitScale: 0.0254`) for such files.
 * On the shared test takes (extent in file units): Bandai walk/dance 183.7 and run 193.7 (cm),
 * pirouette 152.7 (cm), CMU jumping_jacks 25.8 (CMU units, 1.46 m), FAIR jumping 45.4 (inches, 1.15 m;
 * in CMU units it would be an implausible 2.56 m, in cm 0.45 m), Rokoko 130.0 (cm; its rest frames are
 * rotated, so the box is not the standing height).
 * @returns the scale, a description such as `'centimetres (auto)'`, and the extent (file units).
 */
export function guessBvhUnitScale(layout: BvhLayout): {
  unitScale: number;
  unitGuess: string;
  extent: number;
} {
  const extent = restExtent(layout);
  if (!(extent > 0))
    return { unitScale: 0.01, unitGuess: 'centimetres (auto: skeleton has no extent)', extent };
  const asCm = extent * 0.01;
  if (asCm >= BVH_CENTIMETRE_PLAUSIBLE[0] && asCm <= BVH_CENTIMETRE_PLAUSIBLE[1])
    return { unitScale: 0.01, unitGuess: 'centimetres (auto)', extent };
  let best = BVH_UNIT_CANDIDATES[0];
  let bestErr = Number.POSITIVE_INFINITY;
  for (const c of BVH_UNIT_CANDIDATES) {
    const err = Math.abs(Math.log((extent * c.scale) / BVH_TYPICAL_HEIGHT)) + c.penalty;
    if (err < bestErr) {
      bestErr = err;
      best = c;
    }
  }
  return { unitScale: best.scale, unitGuess: `${best.name} (auto)`, extent };
}

/** Largest side of the bounding box of rest joint and End Site positions, file units. */
export function restExtent(layout: BvhLayout): number {
  const joints = layout.joints;
  const pos = new Float64Array(3 * joints.length);
  const lo = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const hi = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const add = (x: number, k: number) => {
    if (x < lo[k]) lo[k] = x;
    if (x > hi[k]) hi[k] = x;
  };
  for (let j = 0; j < joints.length; j++) {
    const p = joints[j].parent;
    for (let k = 0; k < 3; k++) {
      const v = (p >= 0 ? pos[3 * p + k] : 0) + joints[j].offset[k];
      pos[3 * j + k] = v;
      add(v, k);
      const e = joints[j].endSite;
      if (e) add(v + e[k], k);
    }
  }
  if (joints.length === 0) return 0;
  return Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

export function describeScale(s: number): string {
  for (const c of BVH_UNIT_CANDIDATES) if (c.scale === s) return `${c.name} (given)`;
  return `${s} m per unit (given)`;
}
