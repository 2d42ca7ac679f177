import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Servers bind loopback ports; one file at a time per worker keeps port use predictable.
    pool: 'forks',
  },
});
