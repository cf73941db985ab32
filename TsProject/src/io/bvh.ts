/**
 * BVH (Biovision Hierarchy) motion files: reader and writer.
 *
 * Format: a `HIERARCHY` section of nested `ROOT`/`JOINT` blocks, each with an `OFFSET x y z` (file
 * units, parent frame), a `CHANNELS n name...` line and child joints or an `End Site { OFFSET }`,
 * followed by `MOTION`, `Frames: N`, `Frame Time: t` (seconds) and N lines of channel values in the
 * order the channels appear in the hierarchy. Rotation channels are degrees. References: the
 * Biovision BVH description as documented by M. Meredith and S. Maddock, "Motion capture file
 * formats explained" (University of Sheffield, 2001), and the CMU/Motion Builder conventions noted
 * in /work/shared/data/SOURCES.md.
 *
 * Conventions of this module (shared by reader and writer):
 * - A joint's local transform per frame is `T(translation) * R(rotation)`, where `R` composes the
 *   joint's rotation channels in the order listed: `CHANNELS 3 Zrotation Xrotation Yrotation` with
 *   values `a b c` is `Rz(a) * Rx(b) * Ry(c)` (first listed is outermost; `quatFromEuler` in src/core).
 * - Position channels REPLACE the OFFSET: they are the joint's local translation. A component with
 *   no position channel keeps the OFFSET value. Checked on the shared data: in the Bandai Namco
 *   dataset every joint has 6 channels and the non-root position values equal the OFFSETs (Spine
 *   OFFSET `15.7357 0 0`, frame 0 position `15.7357 5.1e-06 -5.5e-07`); the Rokoko take's Hips has
 *   OFFSET `0 94 0` and Yposition about 88, a hip height only "replace" makes plausible. (three.js
 *   BVHLoader adds the two instead.)
 * - Several `ROOT`s may follow one another; each starts a hierarchy (parent -1).
 * - Clip translations are metres: file value * `unitScale` (metres per file unit).
 * - The clip's skeleton has one bone per `ROOT`/`JOINT` (End Sites are not bones; they live in the
 *   {@link BvhLayout}), names kept whole, rest rotation identity, rest translation `OFFSET * unitScale`.
 * - BVH has no rest rotations: its rest pose is every rotation channel at zero. The writer therefore
 *   bakes a skeleton's rest rotations out of the joint frames (each joint is written in a frame parallel
 *   to the world in the rest pose, as {@link writeBvh} says), so the file's rest pose is the skeleton's
 *   rest pose and every frame has the same world pose; read back, the rest rotations are identity.
 * - The axes are taken as they are in the file (no axis conversion): a Z-up file stays Z-up.
 */

export {
  BVH_CHANNELS,
  type BvhChannel,
  type BvhJointLayout,
  type BvhLayout,
  BvhParseError,
  type BvhParseOptions,
  type BvhParseResult,
  BvhWriteError,
} from './bvhFormat';
export { parseBvh } from './bvhRead';
export {
  BVH_CENTIMETRE_PLAUSIBLE,
  BVH_TYPICAL_HEIGHT,
  BVH_UNIT_CANDIDATES,
  guessBvhUnitScale,
  restExtent,
} from './bvhUnits';
export {
  animatedTranslations,
  type BvhWriteOptions,
  defaultBvhLayout,
  END_SITE_FRACTION,
  writeBvh,
} from './bvhWrite';
