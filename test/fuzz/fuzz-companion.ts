/**
 * The fuzzer in companion mode (`npm run fuzz -- --companion`,
 * docs/fuzzing.md): the service gets CLEARML_SERVER_URL and
 * CLEARML_TOKEN_SECRET of a ClearML stand-in (test/companion/clearml-stand-in.ts,
 * answers copied from clearml-server), the world's tasks and models exist
 * there under their company, and each company holds a ClearML-issued token,
 * as the SDK does behind the companion proxy. Every entity check then asks
 * the stand-in with the caller's credential, so hostile ids, tokens and
 * batches of 40,000 ids go through the companion client and its cache.
 */
import { randomBytes } from 'node:crypto';
import { ClearmlStandIn } from '../companion/clearml-stand-in.js';
import type { CompanyWorld, World } from './fuzz-world.js';

/** A week: longer than any run, so that no company's token expires during one. */
const TOKEN_LIFETIME_SEC = 7 * 86_400;

export class FuzzCompanion {
  readonly clearml = new ClearmlStandIn(randomBytes(32).toString('base64url'));

  start(): Promise<void> {
    return this.clearml.start();
  }

  stop(): Promise<void> {
    return this.clearml.stop();
  }

  /**
   * The service's companion settings. The stand-in shares the fuzzer's event loop, which is busy
   * generating requests: its timeout is the fuzzer's request deadline, so that a late stand-in
   * answer is not counted as the service's 503.
   */
  env(deadlineMs: number): Record<string, string> {
    return {
      CLEARML_SERVER_URL: this.clearml.url,
      CLEARML_TOKEN_SECRET: this.clearml.tokenSecret,
      CLEARML_TIMEOUT_MS: String(deadlineMs),
    };
  }

  /** The world's tasks (targets and witnesses) and models, as the ClearML server knows them. */
  register(world: World): void {
    for (const c of Object.values(world.companies)) {
      const company = c.credential.company;
      const project = { id: `${company}-project`, name: `Fuzz/${c.key}` };
      for (const id of [...c.targets, ...c.witnesses])
        this.clearml.tasks.set(id, {
          id,
          company,
          name: `task ${id}`,
          project,
          status: 'in_progress',
          type: 'training',
        });
      for (const id of c.models)
        this.clearml.models.set(id, { id, company, name: `model ${id}`, project, ready: false });
    }
  }

  /** A token as ClearML's auth.login issues it to the company's user. */
  token(c: CompanyWorld): string {
    return this.clearml.issueToken(c.credential.user, c.credential.company, TOKEN_LIFETIME_SEC);
  }
}
