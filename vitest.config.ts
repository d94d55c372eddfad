import { configDefaults, defineConfig } from 'vitest/config';

// Three projects: pure unit tests sit beside the code they test (with the
// static checks of test/architecture, which need no stack); integration
// tests under test/ share one throwaway stack (NATS, InfluxDB, Redis on free
// ports) started by the global setup; the cluster pass runs the public-API
// scenario files once more against the split deployment on clustered stores
// (docs/scaling.md, "Tests on both shapes").

/** Scenario files that go through the public API only, covering every operation; the cluster pass runs them. */
const CLUSTER_PASS = [
  'test/protocol/tenant-isolation.test.ts',
  'test/events-read/metrics-listing.test.ts',
  'test/events-read/scalars-histogram.test.ts',
  'test/events-read/scalars-latest-single-vector.test.ts',
  'test/events-read/scalars-metric-data.test.ts',
  'test/events-read/scalars-raw.test.ts',
  'test/events-read/scalars-caps.test.ts',
  'test/events-read/task-events-paging.test.ts',
  'test/events-read/logs-get-task-log.test.ts',
  'test/events-read/logs-download-clear.test.ts',
  'test/events-read/plots-sample.test.ts',
  'test/events-read/plots-task-plots.test.ts',
  'test/events-read/plots-window.test.ts',
  'test/events-read/debug-images-sample.test.ts',
  'test/reports/reports-scenario.test.ts',
  'test/reports/reports-lifecycle.test.ts',
  'test/reports/reports-query.test.ts',
  'test/reports/web-ui-shapes.test.ts',
];
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{shared,ingest,query,deploy}/**/*.test.ts', 'test/architecture/**/*.test.ts'],
          environment: 'node',
          // Property tests of 20,000 runs take 4-5 s alone and more beside the integration project's stores:
          // a time-out is no finding of theirs.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/architecture/**'],
          environment: 'node',
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'cluster',
          include: CLUSTER_PASS,
          environment: 'node',
          env: { TEST_SHAPE: 'cluster' },
          globalSetup: ['test/harness/cluster-global-setup.ts'],
          testTimeout: 90_000,
          hookTimeout: 180_000,
          pool: 'forks',
          // 17 processes of the cluster share the machine with the test files: after the
          // other projects (a later group), two files at a time.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
