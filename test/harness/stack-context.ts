/**
 * What the integration global setup hands to test files through
 * `inject('stack')`: the URLs of the throwaway (or existing) servers.
 */
export interface StackContext {
  natsUrl: string;
  influxUrl: string;
  redisUrl: string;
  /** Temp directory of this test run; servers' data and logs are under it. */
  dataDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: { natsUrl: string; influxUrl: string; redisUrl: string; dataDir: string };
    /** Only in the cluster pass (test/harness/cluster-global-setup.ts). */
    cluster: {
      baseUrl: string;
      grpcAddress: string;
      env: Record<string, string>;
      pairs: Array<{
        a: { access_key: string; secret_key: string; company: string; user: string };
        b: { access_key: string; secret_key: string; company: string; user: string };
      }>;
      /** Directory where each harness claims a pair by creating `<n>` exclusively. */
      claims: string;
    };
  }
}
