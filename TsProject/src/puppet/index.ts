/**
 * The drawing puppet (issue 12): MediaPipe landmarks -> 21 joints with confidences -> a rig-less drawing
 * deformed by CPU linear blend skinning. Engine-free (no Node or DOM API). See types.ts for the pipeline.
 */
export * from './types';
