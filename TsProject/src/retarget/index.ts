/** Retargeting: reference poses, calibration, world-rotation offsets, hips modes, chain distribution. Engine-free. */

export * from './quality';
export * from './referencePose';
export * from './retargeter';
export * from './virtualHierarchy';
