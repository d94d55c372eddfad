/**
 * Names of ClearML projects, for reports put into them by id (companion
 * mode, docs/reports.md decision 12): the ClearML server is asked with the
 * caller's credential, and its answer is filtered again by company, as for
 * entity facts. Not cached: reports.create and reports.move are rare, and a
 * rename in the ClearML server should be seen at once.
 */
import { callerCredential } from './caller-credential.js';
import type { ClearmlClient } from './clearml-client.js';

export interface ProjectNamesSource {
  /** The full name of project `id` of `company`, or undefined when the caller's company has no such project. */
  nameOf(company: string, id: string): Promise<string | undefined>;
}

export class ClearmlProjectNames implements ProjectNamesSource {
  constructor(private readonly client: ClearmlClient) {}

  async nameOf(company: string, id: string): Promise<string | undefined> {
    const found = await this.client.projects([id], callerCredential());
    return found.find((p) => p.id === id && p.company === company)?.name;
  }
}
