import { defineConfig } from 'vitest/config';

// Two projects: pure unit tests sit beside the code they test; integration
// tests under test/ share one throwaway stack (NATS, InfluxDB, Redis on free
// ports) started by the global setup.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{shared,ingest,query,deploy}/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
