/**
 * Per-process cache of each company's project records, validated on every
 * use by the company's project version (bumped by every project write), for
 * the `.reports` project selection and `project.<f>` projections.
 */
import type { RedisClient } from '../../../shared/stores/redis-store.js';
import type { ProjectRecordLike } from '../query-language/project-scope.js';
import { JoinedLists } from './joined-lists.js';
import type { ProjectStore } from './project-store.js';
import { decodeProjectHash } from './record-codec.js';
import type { ReportKeys } from './report-keys.js';

export type ProjectRecord = ProjectRecordLike & Readonly<Record<string, unknown>>;

interface CompanyProjects {
  version: string | null;
  records: ProjectRecord[];
}

const MAX_CACHED_COMPANIES = 200;

export class ProjectSnapshots {
  private readonly companies = new Map<string, CompanyProjects>();
  private readonly joined = new JoinedLists<ProjectRecord>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: ReportKeys,
    private readonly store: ProjectStore,
  ) {}

  /** The project records of the companies, current as of this call. */
  async projects(companies: readonly string[]): Promise<readonly ProjectRecord[]> {
    // One GET per company: their keys are in different hash slots, which one MGET cannot span on a cluster.
    const versions = await Promise.all(companies.map((c) => this.redis.get(this.keys.projectVersion(c))));
    const parts = await Promise.all(
      companies.map(async (company, i) => {
        const cached = this.companies.get(company);
        if (cached !== undefined && cached.version === versions[i]) return cached.records;
        const hashes = await this.store.loadCompanyProjects(company);
        const records = hashes
          .map(decodeProjectHash)
          .filter((r): r is ProjectRecord => r !== undefined && r.company === company);
        if (this.companies.size >= MAX_CACHED_COMPANIES) this.companies.delete(this.companies.keys().next().value!);
        this.companies.set(company, { version: versions[i] ?? null, records });
        return records;
      }),
    );
    return this.joined.join(parts);
  }
}
