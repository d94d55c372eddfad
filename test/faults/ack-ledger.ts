/**
 * What the clients of one scenario saw: which events a 200 acknowledged
 * (per task), how many answers of each kind they got on the way, and the
 * longest time a client kept failing (its "503 window"); reads are counted
 * apart from ingest.
 */
export interface ClientCounters {
  requests: number;
  serverErrors: number;
  tooMany: number;
  /** No answer: connection refused or reset, or no answer within the client's timeout. */
  noAnswer: number;
  /** 4xx or partial acceptance of well-formed events: a bench error or a service fault, never expected. */
  rejected: number;
  /** Requests given up at the scenario's deadline without a 200. */
  abandoned: number;
}

/** What happened to one request, step by step, to explain a lost or duplicated event. */
export class RequestHistory {
  private readonly steps: Array<[at: number, step: string]> = [];

  add(step: string): void {
    this.steps.push([Date.now(), step]);
  }

  /** The steps with their times in seconds relative to `origin` (the fault's start: negative before it). */
  describe(origin: number): string {
    return this.steps
      .map(([at, step]) => `${at < origin ? '' : '+'}${((at - origin) / 1000).toFixed(2)}s ${step}`)
      .join(', ');
  }
}

/** Answers of one kind of traffic (ingest or reads): counters, first examples, and failure windows per client. */
export class ClientTally {
  readonly counters: ClientCounters = {
    requests: 0,
    serverErrors: 0,
    tooMany: 0,
    noAnswer: 0,
    rejected: 0,
    abandoned: 0,
  };
  /** A few answers that explain the counters (first of each kind). */
  readonly examples: string[] = [];
  /** client → when its current run of failed attempts began (the first failed attempt's send). */
  private readonly failingSince = new Map<string, number>();
  /** Longest run of failed attempts of one client, from the first failed attempt's send to the next 200 (ms). */
  longestFailingMs = 0;
  longestFailingClient?: string;

  constructor(private readonly label = '') {}

  note(kind: keyof ClientCounters, example?: string): void {
    this.counters[kind]++;
    const tagged = `${this.label}${kind}`;
    if (example !== undefined && this.examples.length < 12 && !this.examples.some((e) => e.startsWith(`${tagged}:`)))
      this.examples.push(`${tagged}: ${example}`);
  }

  /** An attempt of `client`, sent at `sentAt`, failed and will be retried. */
  failed(client: string, sentAt: number): void {
    if (!this.failingSince.has(client)) this.failingSince.set(client, sentAt);
  }

  /** `client` got a 200: its run of failures, if any, ends now. */
  succeeded(client: string, at = Date.now()): void {
    const since = this.failingSince.get(client);
    if (since === undefined) return;
    this.failingSince.delete(client);
    this.measure(client, at - since);
  }

  /** Runs still open (a client that never got its 200) end at `at`. */
  closeOpenRuns(at = Date.now()): void {
    for (const client of [...this.failingSince.keys()]) this.succeeded(client, at);
  }

  private measure(client: string, ms: number): void {
    if (ms <= this.longestFailingMs) return;
    this.longestFailingMs = ms;
    this.longestFailingClient = client;
  }
}

export class AckLedger extends ClientTally {
  /** The read clients' answers (reads acknowledge nothing). */
  readonly reads = new ClientTally('read ');
  /** task → company (every task of the scenario, acknowledged or not). */
  readonly companyOf = new Map<string, number>();
  /** task → acknowledged keys. */
  readonly acked = new Map<string, Set<string>>();
  /** When the scenario's fault began (epoch ms): request histories are told relative to it. */
  faultAt = 0;
  /** `<task> <key>` → the history of the request that carried the event. */
  private readonly histories = new Map<string, RequestHistory>();

  addTask(task: string, company: number): void {
    this.companyOf.set(task, company);
    this.acked.set(task, new Set());
  }

  ack(task: string, keys: readonly string[]): void {
    const set = this.acked.get(task)!;
    for (const key of keys) set.add(key);
  }

  recordRequest(task: string, keys: readonly string[], history: RequestHistory): void {
    for (const key of keys) this.histories.set(`${task} ${key}`, history);
  }

  /** What happened to the request that carried an event, told relative to the fault. */
  historyOf(task: string, key: string): string {
    return this.histories.get(`${task} ${key}`)?.describe(this.faultAt) ?? 'probe, not re-sent';
  }

  get ackedCount(): number {
    let n = 0;
    for (const set of this.acked.values()) n += set.size;
    return n;
  }
}
