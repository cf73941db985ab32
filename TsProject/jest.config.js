const os = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
  // at least two workers: jest's default (cores - 1) runs the suites one by one on a 2-core CI machine,
  // while many of them wait on child processes, sockets and the browser; no test asserts a duration
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(tsx?|m?jsx?)$': ['@swc/jest', { jsc: { target: 'es2020' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(three|property-graph|meshoptimizer)/)'],
  // three's CommonJS build warns that it is deprecated: load its ES module build (transformed above)
  moduleNameMapper: { '^three$': '<rootDir>/node_modules/three/build/three.module.js' },
  // A hang guard, not a speed check: the slowest test (the interrupt runs of kind puppet render) takes
  // about 40 s on a quiet 2-core machine and went past 120 s under stress-ng (issue 26). No test sets a
  // shorter timeout of its own; waits inside tests (browser pages, sockets) allow minutes likewise.
  testTimeout: 900_000,
};
