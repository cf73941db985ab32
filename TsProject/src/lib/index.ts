/**
 * The package's main entry, `kind-retargeting`: the engine-free library (no Node or DOM API; runs in Node,
 * browsers, bare V8/QuickJS): HumanBodyBones, skeletons, clips and forward kinematics (src/core), BVH and
 * glTF/VRM readers and writers on strings and bytes (src/io), the retargeter (src/retarget), two-bone and
 * DLS IK (src/ik), the live hub and its parts (src/rig), retarget QA (src/qa), contact detection with the
 * shipped model's pure-TS forward pass (src/contact) and foot-slide cleanup (src/cleanup).
 * Other entries: `kind-retargeting/node` (file loading, glTF decoders), `kind-retargeting/mocap`,
 * `kind-retargeting/puppet`, `kind-retargeting/onnx` (the contact model in onnxruntime-web, optional).
 */

export type { FloorEstimate as CleanupFloorEstimate, LegTrack as CleanupLegTrack } from '../cleanup';
export * from '../cleanup';
// Names two folders both export (TS2308 otherwise): the contact detector's floor and leg tracks keep the
// plain names, the cleanup's own are renamed; `Limb` is the rig's limb index table (src/rig), the IK's
// two-bone chain is `IkLimb`.
export type { FloorEstimate, LegTrack } from '../contact';
export * from '../contact';
export * from '../core';
export type { Limb as IkLimb } from '../ik';
export * from '../ik';
export * from '../io';
export * from '../qa';
export * from '../retarget';
export * from '../rig';
export { Limb } from '../rig';
