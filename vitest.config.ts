import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The integration suite starts real etcd clusters; on two cores, running those files one at a time
    // keeps the timing assertions (answer within timeout + 500 ms) meaningful.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
