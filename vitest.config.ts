import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/temp-root.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CI reads the JSON summary to print its closing "N passed, N failed" line.
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: 'build/test-results.json' }]]
      : ['default'],
  },
});
