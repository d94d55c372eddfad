/**
 * The import statements of the repository's TypeScript, read with the
 * TypeScript compiler's parser (not a regex, so comments, strings and
 * multi-line imports cannot fool it): static imports, re-exports,
 * `import type`, `import()` and `import('…')` types.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** The specifier as written, e.g. `nats` or `../../shared/x.js`. */
  readonly specifier: string;
  /** For a relative specifier: the imported file, repository-relative with `/` (the `.ts` behind a `.js`). */
  readonly file?: string;
  readonly line: number;
}

/** Repository-relative `/` path of every `.ts` file (declarations excepted) under the given top-level folders. */
export function sourceFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        files.push(toRepoPath(root, full));
      }
    }
  };
  for (const folder of folders) if (existsSync(path.join(root, folder))) walk(path.join(root, folder));
  return files.sort();
}

/** The imports of one file. */
export function importsOf(root: string, file: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (literal: ts.StringLiteralLike): void => {
    const specifier = literal.text;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    edges.push({
      specifier,
      line,
      file: specifier.startsWith('.') ? resolveRelative(root, file, specifier) : undefined,
    });
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      add(node.moduleReference.expression);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node.arguments[0]);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      add(node.argument.literal);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** The imports of every file, by file. */
export function importGraph(root: string, files: readonly string[]): Map<string, ImportEdge[]> {
  return new Map(files.map((file) => [file, importsOf(root, file)]));
}

/** NodeNext specifiers name the emitted `.js`; the source is the `.ts` beside it. */
function resolveRelative(root: string, from: string, specifier: string): string {
  const target = path.resolve(root, path.dirname(from), specifier);
  const candidates = [
    target.replace(/\.js$/, '.ts'),
    target.replace(/\.mjs$/, '.mts'),
    target,
    `${target}.ts`,
    path.join(target, 'index.ts'),
  ];
  return toRepoPath(root, candidates.find((c) => existsSync(c)) ?? target);
}

function toRepoPath(root: string, full: string): string {
  return path.relative(root, full).split(path.sep).join('/');
}
