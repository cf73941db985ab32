/**
 * Webcam mocap (issue 23 item 1): MediaPipe BlazePose landmarks -> a humanoid source pose (HumanBodyBones,
 * world rotations, confidence and state per bone, hips translation), and whole recordings -> a clip.
 * Engine-free. Notes and measured figures: MOCAP.md.
 */
export * from './bones';
export * from './calibrate';
export { basisRotation, landmarkConfidence, readWorldPoints, UNKNOWN_CONFIDENCE } from './points';
export * from './run';
export * from './solver';
export * from './stream';
