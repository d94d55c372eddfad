/**
 * Runs JavaScript regular expressions (needed only for backreferences and
 * lookaround, which a linear-time engine cannot do) inside `node:vm` with a
 * timeout, so a hostile pattern cannot stall the process. Each vm call costs
 * ~0.1 ms of watchdog set-up, hence batches and a per-matcher result cache.
 */
import vm from 'node:vm';

/** Wall-clock allowance for sandboxed matching over one query evaluation. */
export class RegexBudget {
  private remaining: number;

  constructor(readonly totalMs = 50) {
    this.remaining = totalMs;
  }

  get remainingMs(): number {
    return this.remaining;
  }

  spend(ms: number): void {
    this.remaining -= ms;
  }
}

export class RegexTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`matching took longer than ${budgetMs} ms`);
  }
}

const sandbox = vm.createContext(Object.create(null) as object);
const testBatch = new vm.Script(
  '(() => { const out = new Array(texts.length); for (let i = 0; i < texts.length; i++) out[i] = re.test(texts[i]); return out; })()',
);

function runInSandbox(re: RegExp, texts: readonly string[], budget: RegexBudget): boolean[] {
  if (budget.remainingMs <= 0) throw new RegexTimeout(budget.totalMs);
  const globals = sandbox as { re?: RegExp; texts?: readonly string[] };
  globals.re = re;
  globals.texts = texts;
  const started = performance.now();
  try {
    return testBatch.runInContext(sandbox, { timeout: Math.max(1, Math.ceil(budget.remainingMs)) }) as boolean[];
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      budget.spend(Infinity);
      throw new RegexTimeout(budget.totalMs);
    }
    throw error;
  } finally {
    budget.spend(performance.now() - started);
    globals.re = undefined;
    globals.texts = undefined;
  }
}

/** A matcher over a JavaScript RegExp whose every evaluation happens in the sandbox. */
export class SandboxedMatcher {
  private readonly cache = new Map<string, boolean>();

  constructor(
    private readonly re: RegExp,
    private readonly budget: RegexBudget,
  ) {}

  test(text: string): boolean {
    const known = this.cache.get(text);
    if (known !== undefined) return known;
    const [result] = runInSandbox(this.re, [text], this.budget);
    this.cache.set(text, result!);
    return result!;
  }

  /** Evaluates every not-yet-known text in one sandbox call. */
  prime(texts: Iterable<string>): void {
    const pending = new Set<string>();
    for (const t of texts) if (!this.cache.has(t)) pending.add(t);
    if (pending.size === 0) return;
    const batch = [...pending];
    const results = runInSandbox(this.re, batch, this.budget);
    batch.forEach((t, i) => this.cache.set(t, results[i]!));
  }
}
