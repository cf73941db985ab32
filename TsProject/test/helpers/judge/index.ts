/**
 * The foot-slide judge (issue 20): an independent BVH reader and forward kinematics, a written-down
 * reference contact definition, measures of a cleaned take against its source, and degraded copies of
 * clean takes. Lives outside src/ on purpose: it must not become part of what it judges, and it imports
 * nothing from src (test/footJudge.test.ts checks its forward kinematics against src's on the real data).
 * Used by test/footJudge.test.ts and bench/cleanupJudge.ts (`npm run bench -- cleanup-judge`).
 */
export * from './bvhText';
export * from './degrade';
export * from './fk';
export * from './legs';
export * from './measures';
export * from './reference';
