/**
 * Records the store work of one API call, to replay it directly as the
 * benchmark's baseline: every InfluxDB /query request (through
 * influxHttp.request, which both the JSON and CSV readers use) and every
 * Redis command issued through the query target's client (plain commands
 * and MULTI blocks). The replay sends them with the benchmark's own
 * clients: an InfluxHttp of its own (the service's HTTP client, node:http on
 * keep-alive connections, with the store's deadline but not its metrics or
 * parsing, on connections of its own) and its own Redis client.
 *
 * The replay keeps the operation's concurrency: a step is taken to have
 * been issued when the step that finished last before it started had
 * finished (or at once when none had), so it is replayed right after that
 * step's replay; steps issued together run together.
 */
import type { RedisClient } from '../../shared/stores/redis-store.js';
import { INFLUX_DEFAULT_TIMEOUT_MS } from '../../shared/stores/influx-store.js';
import { withInfluxLimit } from '../../shared/stores/influx-call-limit.js';
import { InfluxHttp, influxHttp, type InfluxHttpAnswer, type InfluxHttpCall } from '../../shared/stores/influx-http.js';

type Step =
  | { kind: 'influx'; url: string; call: InfluxHttpCall; start: number; end: number }
  | { kind: 'redis'; method: string; args: unknown[]; start: number; end: number }
  | { kind: 'multi'; commands: Array<[string, unknown[]]>; start: number; end: number };

export type Recording = Step[];

export class StoreRecorder {
  private steps: Step[] | undefined;
  private readonly realRequest = influxHttp.request.bind(influxHttp);
  /** The replay's own connections to InfluxDB. */
  private readonly http = new InfluxHttp();

  constructor(private readonly influxUrl: string) {}

  /** Routes the service's InfluxDB calls through the recorder (queries only are recorded). */
  installInfluxHttp(): void {
    const influxQuery = `${this.influxUrl.replace(/\/+$/, '')}/query`;
    const realRequest = this.realRequest;
    // Outside a recording (every timed call) the service's call goes straight through: no async
    // wrapper of the benchmark's own is counted in the API's figures.
    influxHttp.request = (url: string, call: InfluxHttpCall): Promise<InfluxHttpAnswer> =>
      this.steps === undefined || !url.startsWith(influxQuery)
        ? realRequest(url, call)
        : this.recordInflux(this.steps, url, call);
  }

  private async recordInflux(steps: Step[], url: string, call: InfluxHttpCall): Promise<InfluxHttpAnswer> {
    const step: Step = { kind: 'influx', url, call, start: performance.now(), end: Number.POSITIVE_INFINITY };
    steps.push(step);
    const answer = await this.realRequest(url, call);
    // The body is part of the work: the recording ends when the caller has read it.
    const text = await answer.body.text();
    step.end = performance.now();
    return { statusCode: answer.statusCode, body: bodyOf(text) };
  }

  /** A client whose commands are recorded while a recording runs; give it to the query target. */
  recordingClient(client: RedisClient): RedisClient {
    const recorder = this;
    return new Proxy(client, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        if (property === 'multi') return () => recorder.recordingMulti(target.multi());
        return (...args: unknown[]) => {
          const steps = recorder.steps;
          if (steps === undefined) return value.apply(target, args);
          const step: Step = {
            kind: 'redis',
            method: property,
            args,
            start: performance.now(),
            end: Number.POSITIVE_INFINITY,
          };
          steps.push(step);
          return Promise.resolve(value.apply(target, args)).finally(() => (step.end = performance.now()));
        };
      },
    }) as RedisClient;
  }

  private recordingMulti(multi: ReturnType<RedisClient['multi']>): ReturnType<RedisClient['multi']> {
    const commands: Array<[string, unknown[]]> = [];
    const recorder = this;
    const proxy: ReturnType<RedisClient['multi']> = new Proxy(multi, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        if (property === 'exec' || property === 'execAsPipeline') {
          return async (...args: unknown[]) => {
            const steps = recorder.steps;
            const step: Step = { kind: 'multi', commands, start: performance.now(), end: Number.POSITIVE_INFINITY };
            steps?.push(step);
            try {
              return await value.apply(target, args);
            } finally {
              step.end = performance.now();
            }
          };
        }
        return (...args: unknown[]) => {
          commands.push([property, args]);
          value.apply(target, args);
          return proxy;
        };
      },
    });
    return proxy;
  }

  /** Runs `call` and answers its store work, in the order the steps started. */
  async record(call: () => Promise<unknown>): Promise<Recording> {
    const steps: Step[] = [];
    this.steps = steps;
    try {
      await call();
    } finally {
      this.steps = undefined;
    }
    return steps.sort((a, b) => a.start - b.start);
  }

  /** Replays a recording against the stores with the benchmark's own clients. */
  async replay(recording: Recording, redis: RedisClient): Promise<void> {
    const done: Array<Promise<void>> = [];
    recording.forEach((step, i) => {
      const trigger = triggerOf(recording, i);
      const after = trigger < 0 ? Promise.resolve() : done[trigger]!;
      done.push(after.then(() => this.run(step, redis)));
    });
    await Promise.all(done);
  }

  private async run(step: Step, redis: RedisClient): Promise<void> {
    if (step.kind === 'influx') {
      // The recorded call's limit (its deadline, influx-call-limit.ts) was released with the call:
      // each replay gets one of its own, as each call does.
      const { method, headers, body } = step.call;
      await withInfluxLimit(INFLUX_DEFAULT_TIMEOUT_MS, undefined, async (limit) =>
        (await this.http.request(step.url, { method, headers, body, limit })).body.text(),
      );
    } else if (step.kind === 'redis') {
      await (redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[step.method]!(...step.args);
    } else {
      const multi = redis.multi() as unknown as Record<string, (...a: unknown[]) => unknown> & {
        exec(): Promise<unknown>;
      };
      for (const [method, args] of step.commands) multi[method]!(...args);
      await multi.exec();
    }
  }
}

/** The step that finished last before step i started (-1: none): what step i waited for. */
function triggerOf(recording: Recording, i: number): number {
  let trigger = -1;
  for (let j = 0; j < i; j++)
    if (recording[j]!.end <= recording[i]!.start && (trigger < 0 || recording[j]!.end > recording[trigger]!.end))
      trigger = j;
  return trigger;
}

/** The steps in start order; steps issued together (after the same step) joined by `+`, others by `→`. */
export function describeRecording(recording: Recording): string {
  let text = '';
  recording.forEach((step, i) => {
    const name =
      step.kind === 'influx'
        ? 'influx'
        : step.kind === 'redis'
          ? redisCommandName(step)
          : `multi(${step.commands.length})`;
    text += i === 0 ? name : `${triggerOf(recording, i) === triggerOf(recording, i - 1) ? '+' : ' → '}${name}`;
  });
  return text;
}

/** The command a recorded call sent: the method, or for sendCommand its first argument (with the reply type mapping it asked for). */
function redisCommandName(step: Extract<Step, { kind: 'redis' }>): string {
  if (step.method !== 'sendCommand') return step.method;
  const [args, options] = step.args as [unknown[], { typeMapping?: object } | undefined];
  return `${String(args[0])}${options?.typeMapping ? '(bytes)' : ''}`;
}

/** A read answer as a body the service's readers take (text, dump, iteration). */
function bodyOf(text: string): InfluxHttpAnswer['body'] {
  return {
    async *[Symbol.asyncIterator]() {
      yield Buffer.from(text);
    },
    text: async () => text,
    dump: async () => undefined,
  };
}
