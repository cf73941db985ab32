/**
 * Webcam mocap (issue 23 item 1): MediaPipe BlazePose landmarks -> a humanoid source pose (HumanBodyBones,
 * world rotations, confidence and state per bone, hips translation), and whole recordings -> a clip.
 * Through the live hub (item 2): `MocapHubDriver` (./hubDriver.ts), the causal foot contact
 * (./causalContact.ts), `runMocapThroughHub` (./hubRun.ts). Engine-free. Notes and measured figures: MOCAP.md.
 */
export * from './bones';
export * from './calibrate';
export * from './causalContact';
export * from './hubDriver';
export * from './hubRun';
export { basisRotation, landmarkConfidence, readWorldPoints, UNKNOWN_CONFIDENCE } from './points';
export * from './run';
export * from './solver';
export * from './stream';
