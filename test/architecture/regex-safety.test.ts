// No regular expression of the service backtracks super-linearly (ReDoS): a client-supplied string
// can be megabytes long, and one quadratic pattern stalls the event loop for every company (the URL
// path pattern took 0.45 s for a 16 KB path, a project name of 40,000 slashes 3 s, until
// 2026-12-02). Every regex literal of shared/, ingest/ and query/ is checked by recheck; a
// RegExp built at run time is allowed only where listed below, each reviewed.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSync } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles } from './import-graph.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const files = sourceFiles(root, ['shared', 'ingest', 'query']).filter(
  (f) => !f.endsWith('.test.ts') && !f.endsWith('-test-harness.ts') && !f.includes('/gen/'),
);

/** Where a RegExp is built from a string, and why that one cannot backtrack without bound. */
const REVIEWED_DYNAMIC: Record<string, { count: number; why: string }> = {
  'query/reports/query-language/pattern-regex.ts': {
    count: 2,
    why: 'a client pattern: either at most 32 characters without a metacharacter, or run in node:vm under a time budget (sandboxed-regex.ts)',
  },
  'query/reports/query-language/python-regex-translate.ts': {
    count: 1,
    why: '`^[0-9a-fA-F]{n}$`, n a number from the pattern: one class, linear',
  },
};

interface Found {
  where: string;
  text: string;
}

function regexesOf(file: string): { literals: Found[]; dynamic: Found[] } {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const literals: Found[] = [];
  const dynamic: Found[] = [];
  const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral)
      literals.push({ where: where(node), text: node.getText(source) });
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(source) === 'RegExp')
      dynamic.push({ where: where(node), text: node.getText(source) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { literals, dynamic };
}

const found = files.map(regexesOf);

describe('regular expressions of the service', () => {
  it('every literal is safe from catastrophic backtracking (recheck)', () => {
    const literals = found.flatMap((f) => f.literals);
    expect(literals.length).toBeGreaterThan(50);
    const unsafe = literals.flatMap(({ where, text }) => {
      const last = text.lastIndexOf('/');
      const verdict = checkSync(text.slice(1, last), text.slice(last + 1), { timeout: 10_000 });
      return verdict.status === 'safe'
        ? []
        : [
            `${where} ${text}: ${verdict.status}${'attack' in verdict && verdict.attack ? `, e.g. ${verdict.attack.pattern}` : ''}`,
          ];
    });
    expect(unsafe).toEqual([]);
  }, 120_000);

  it('a RegExp is built from a string only where it was reviewed', () => {
    const counts: Record<string, number> = {};
    for (const f of found)
      for (const d of f.dynamic) {
        const file = d.where.split(':')[0]!;
        counts[file] = (counts[file] ?? 0) + 1;
      }
    expect(counts).toEqual(Object.fromEntries(Object.entries(REVIEWED_DYNAMIC).map(([file, r]) => [file, r.count])));
  });
});
