/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(tsx?|m?jsx?)$': ['@swc/jest', { jsc: { target: 'es2020' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(three|property-graph|meshoptimizer)/)'],
  // three's CommonJS build warns that it is deprecated: load its ES module build (transformed above)
  moduleNameMapper: { '^three$': '<rootDir>/node_modules/three/build/three.module.js' },
  testTimeout: 120000,
};
