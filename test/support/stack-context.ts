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
  }
}
