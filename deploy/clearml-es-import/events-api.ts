/**
 * The service's API as the importer uses it: auth.login with the key pair
 * (through the companion proxy this is the ClearML server's login), then
 * events.add_batch with the token, as NDJSON. Transient failures (no
 * connection, 429, 5xx such as 503 "retry later") are retried with growing
 * pauses; a refused credential or request stops the import.
 */
import jwt from 'jsonwebtoken';

export interface BatchAnswer {
  added: number;
  errors: number;
  errors_info?: Record<string, number>;
}

export interface EventsApiOptions {
  url: string;
  accessKey: string;
  secretKey: string;
  /** Attempts per call before giving up (the import then stops and can be resumed). */
  attempts?: number;
  /** First pause between attempts; doubled each time. */
  retryDelayMs?: number;
}

export class TransientFailure extends Error {}

export class EventsApi {
  private token?: string;
  private readonly base: string;

  constructor(private readonly options: EventsApiOptions) {
    this.base = options.url.replace(/\/+$/, '');
  }

  /** The company of the caller's token (its `identity.company` claim), read without verifying it. */
  async company(): Promise<string | undefined> {
    const claims = jwt.decode(await this.login()) as { identity?: { company?: unknown } } | null;
    return typeof claims?.identity?.company === 'string' ? claims.identity.company : undefined;
  }

  async addBatch(events: readonly object[]): Promise<BatchAnswer> {
    const body = events.map((e) => JSON.stringify(e)).join('\n');
    for (let renewed = false; ; renewed = true) {
      const token = await this.login();
      const { status, envelope } = await this.retrying(() =>
        fetch(`${this.base}/events.add_batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json-lines', authorization: `Bearer ${token}` },
          body,
        }),
      );
      if (status === 401 && !renewed) {
        this.token = undefined;
        continue;
      }
      if (status !== 200)
        throw new Error(`events.add_batch answered ${status}: ${envelope?.meta?.result_msg ?? 'no envelope'}`);
      return envelope.data as BatchAnswer;
    }
  }

  private async login(): Promise<string> {
    if (this.token !== undefined) return this.token;
    const basic = Buffer.from(`${this.options.accessKey}:${this.options.secretKey}`).toString('base64');
    const { status, envelope } = await this.retrying(() =>
      fetch(`${this.base}/auth.login`, { method: 'POST', headers: { authorization: `Basic ${basic}` } }),
    );
    if (status !== 200 || typeof envelope?.data?.token !== 'string')
      throw new Error(`auth.login answered ${status}: ${envelope?.meta?.result_msg ?? 'no envelope'}`);
    this.token = envelope.data.token as string;
    return this.token;
  }

  private async retrying(send: () => Promise<Response>): Promise<{ status: number; envelope: any }> {
    const attempts = this.options.attempts ?? 6;
    let pause = this.options.retryDelayMs ?? 1000;
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const response = await send();
        const envelope: any = await response.json().catch(() => undefined);
        if (response.status !== 429 && response.status < 500) return { status: response.status, envelope };
        last = `${response.status} ${envelope?.meta?.result_msg ?? ''}`.trim();
      } catch (error) {
        last = (error as Error).message;
      }
      if (attempt < attempts) {
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause *= 2;
      }
    }
    throw new TransientFailure(`${this.base} did not take the call after ${attempts} attempts (last: ${last})`);
  }
}
