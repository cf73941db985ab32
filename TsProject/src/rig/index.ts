/** The live rig's parts: finger muscles, limb weights, props, settings, pose transfer. Engine-free. */
export * from './fingers';
export * from './hub';
export * from './hubState';
export * from './ikQuality';
export * from './limbWeights';
export * from './poseTransfer';
export * from './props';
export * from './settings';
export * from './sourceStage';
