/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(tsx?|m?jsx?)$': ['@swc/jest', { jsc: { target: 'es2020' }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(three|property-graph)/)'],
  testTimeout: 120000,
};
