/** The real target modules, by name (the launcher's and the local runner's single list). */
import { ingestTarget } from '../../ingest/ingest-target.js';
import { writerTarget } from '../../ingest/writer-target.js';
import { queryTarget } from '../../query/query-target.js';
import type { TargetModule, TargetName } from './target.js';

export const targetModules: Record<Exclude<TargetName, 'all'>, TargetModule> = {
  ingest: ingestTarget,
  writer: writerTarget,
  query: queryTarget,
};
