/** Jest runs TypeScript and middy's ESM through SWC as CommonJS; no experimental VM modules. */
const swc = [
  '@swc/jest',
  {
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
  },
]

module.exports = {
  testEnvironment: 'node',
  // Powertools keeps an invocation store on globalThis by design; keep it between test files.
  testEnvironmentOptions: { globalsCleanup: 'off' },
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The figures' 50,000-grant proof is volume (about 4 minutes here): `npm run test:scale`, which
  // .ci/run runs once, keeps it out of the suite's time (issue 29: 360 s, CI within 15 minutes).
  testPathIgnorePatterns: ['/node_modules/', '/test/reliability/figures-scale\\.test\\.ts$'],
  transform: { '^.+\\.(ts|js|mjs)$': swc },
  // middy ships ESM only; everything else in node_modules is left alone.
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  // The client package imports its siblings as ./x.js, as Node ESM requires.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // One DynamoDB Local for the whole run.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/quiet-logs.ts'],
  maxWorkers: 2,
  // Generous: some tests start Java or spawn the CLI, and CI shares two cores with them.
  testTimeout: 180_000,
}
