// The import boundaries of docs/architecture.md ("Import boundaries"), checked on the
// import statements of every .ts file as the TypeScript parser reads them.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles, type ImportEdge } from './import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const graph = importGraph(root, sourceFiles(root, ['shared', 'ingest', 'query', 'deploy', 'test']));

/** The composition roots of the targets: the only modules of ingest/ and query/ the launcher (shared/launcher) may import. */
const TARGET_MODULES = ['ingest/ingest-target.ts', 'ingest/writer-target.ts', 'query/query-target.ts'];

/**
 * Folders of pure logic, found by name wherever they are: every `domain` folder, the
 * helpers query/events' capabilities share (`common`), and the reports query language.
 */
const PURE_FOLDER_NAMES = new Set(['domain', 'common', 'query-language']);

/** Store and network client packages a pure module never imports (any subpath included). */
const STORE_CLIENTS = [
  'nats',
  'redis',
  '@influxdata/influxdb-client',
  '@grpc/grpc-js',
  'fastify',
  'node:net',
  'node:http',
  'node:https',
  'node:http2',
  'node:tls',
  'net',
  'http',
  'https',
  'http2',
  'tls',
];

const topFolder = (file: string) => file.split('/')[0];
const segments = (file: string) => file.split('/').slice(0, -1);
const isTest = (file: string) => file.endsWith('.test.ts');
const isStoreClient = (specifier: string) =>
  STORE_CLIENTS.some((p) => specifier === p || specifier.startsWith(`${p}/`));
const inStoreFolder = (file: string) => segments(file).some((s) => s === 'store' || s === 'stores');
const isPure = (file: string) => segments(file).some((s) => PURE_FOLDER_NAMES.has(s));
const show = (file: string, edge: ImportEdge) => `${file}:${edge.line} imports ${edge.specifier}`;

/** Every import (file, edge) for which `refused` answers a reason. */
function violations(refused: (file: string, edge: ImportEdge) => string | undefined): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    for (const edge of edges) {
      const reason = refused(file, edge);
      if (reason !== undefined) found.push(`${show(file, edge)}: ${reason}`);
    }
  }
  return found;
}

describe('import boundaries', () => {
  it('ingest/ and query/ never import each other', () => {
    const other: Record<string, string> = { ingest: 'query', query: 'ingest' };
    expect(
      violations((file, edge) =>
        edge.file !== undefined && other[topFolder(file)] === topFolder(edge.file) ? 'the other target' : undefined,
      ),
    ).toEqual([]);
  });

  it('shared/ imports neither ingest/ nor query/, except the launcher importing the target modules', () => {
    expect(
      violations((file, edge) => {
        if (
          topFolder(file) !== 'shared' ||
          edge.file === undefined ||
          !['ingest', 'query'].includes(topFolder(edge.file))
        )
          return undefined;
        if (file.startsWith('shared/launcher/') && TARGET_MODULES.includes(edge.file)) return undefined;
        return file.startsWith('shared/launcher/')
          ? `the launcher composes targets through ${TARGET_MODULES.join(', ')} only`
          : 'shared code depends on no target';
      }),
    ).toEqual([]);
  });

  it('finds the pure folders (a rename would otherwise drop them from the check silently)', () => {
    const pureFolders = new Set([...graph.keys()].filter(isPure).map((f) => path.posix.dirname(f)));
    expect([...pureFolders].some((f) => f.startsWith('shared/') && f.endsWith('/domain'))).toBe(true);
    expect([...pureFolders].some((f) => f.startsWith('query/events/') && f.endsWith('/common'))).toBe(true);
    expect([...pureFolders].some((f) => f.endsWith('/query-language'))).toBe(true);
  });

  it('in query/events only store/ imports a store client: capability folders call its adapters', () => {
    expect(
      violations((file, edge) =>
        file.startsWith('query/events/') && !file.startsWith('query/events/store/') && isStoreClient(edge.specifier)
          ? 'store clients belong under query/events/store/'
          : undefined,
      ),
    ).toEqual([]);
  });

  it('pure folders import no store client and nothing from a store/ folder, directly or through what they import', () => {
    // Walks the relative imports of every pure module: a module it reaches may not import a store client or live in a store folder.
    // One line per refused import, with the pure module that first reached it.
    const found = new Map<string, string>();
    for (const start of [...graph.keys()].filter(isPure)) {
      const seen = new Set<string>([start]);
      const queue: Array<{ file: string; via: string[] }> = [{ file: start, via: [] }];
      while (queue.length > 0) {
        const { file, via } = queue.shift()!;
        for (const edge of graph.get(file) ?? []) {
          const refused = isStoreClient(edge.specifier)
            ? 'a store client'
            : edge.file !== undefined && inStoreFolder(edge.file)
              ? 'a store adapter'
              : undefined;
          if (refused !== undefined) {
            if (!found.has(show(file, edge)))
              found.set(show(file, edge), `${show(file, edge)}: ${refused}, reached by ${[...via, file].join(' -> ')}`);
          } else if (edge.file !== undefined && !seen.has(edge.file)) {
            seen.add(edge.file);
            queue.push({ file: edge.file, via: [...via, file] });
          }
        }
      }
    }
    expect([...found.values()]).toEqual([]);
  });

  it('every module of shared/ serves both targets (ingest/ and query/) or the launcher that composes them', () => {
    const importers = new Map<string, Set<string>>();
    for (const [file, edges] of graph) {
      for (const edge of edges)
        if (edge.file !== undefined) importers.set(edge.file, (importers.get(edge.file) ?? new Set()).add(file));
    }
    // Who uses a shared module: the targets importing it, directly or through other shared modules (tests, deploy/ and test/ do not count).
    const users = (file: string, seen = new Set<string>()): Set<string> => {
      const found = new Set<string>();
      if (seen.has(file)) return found;
      seen.add(file);
      for (const importer of importers.get(file) ?? []) {
        if (isTest(importer)) continue;
        if (importer.startsWith('shared/launcher/')) found.add('launcher');
        else if (topFolder(importer) === 'shared') for (const user of users(importer, seen)) found.add(user);
        else if (topFolder(importer) === 'ingest' || topFolder(importer) === 'query') found.add(topFolder(importer));
      }
      return found;
    };
    const lonely = [...graph.keys()]
      .filter((f) => topFolder(f) === 'shared' && !isTest(f) && !f.startsWith('shared/launcher/'))
      .map((f) => ({ file: f, by: users(f) }))
      .filter(({ by }) => !by.has('launcher') && !(by.has('ingest') && by.has('query')))
      .map(
        ({ file, by }) => `${file} is used by ${[...by].join(', ') || 'nothing'}: move it into its target or delete it`,
      );
    expect(lonely).toEqual([]);
  });
});
