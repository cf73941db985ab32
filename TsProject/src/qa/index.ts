/**
 * Retarget QA (issue 6): compare a golden clip with a retargeted one bone by bone and frame by frame,
 * split twist from swing, filter short spikes, score severity, flag runs of frames and classify their
 * likely cause. Engine-free (no Node or DOM API). See evaluate.ts for the rules.
 */
export * from './evaluate';
export * from './measures';
export * from './profile';
