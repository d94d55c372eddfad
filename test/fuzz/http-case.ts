/**
 * One generated HTTP request, symbolic until sent: `materializeHttpCase`
 * resolves entity and scroll references against the live world, signs or
 * forges credentials, places the call data in body, query string or form,
 * and writes the bytes (`raw-http.ts` sends them).
 */
import jwt from 'jsonwebtoken';
import { resolveTree, type CompanyKey, type SymbolicTree, type World } from './fuzz-world.js';
import { PROTOTYPE_KEYS } from './hostile-values.js';
import { KeyedObject, RawJson, toJsonText, type JsonTree } from './json-text.js';
import type { RawRequest } from './raw-http.js';

export type AuthKind =
  | 'bearer'
  | 'basic'
  | 'cookie'
  | 'none'
  | 'forged-signature'
  | 'alg-none'
  | 'expired'
  | 'foreign-claims'
  | 'garbage-bearer'
  | 'lowercase-bearer'
  | 'basic-bad-base64'
  | 'basic-wrong-secret'
  | 'basic-no-colon'
  | 'huge-bearer'
  | 'bearer-plus-foreign-cookie'
  | 'cookie-garbage'
  | 'empty-authorization'
  | 'unicode-authorization';

/** Where a well-formed event of the caller's witness task goes inside a hostile batch. */
export class SiblingSlot {
  constructor(readonly witness: number) {}
}

export type QueryPart = { key: string; value: SymbolicTree } | { raw: string };

export type BodySpec =
  | { kind: 'none' }
  | { kind: 'json'; tree: SymbolicTree }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; hex: string }
  | { kind: 'lines'; lines: Array<SymbolicTree | string | SiblingSlot>; eol: string }
  | { kind: 'array'; items: Array<SymbolicTree | SiblingSlot> }
  | { kind: 'form'; parts: QueryPart[] }
  | { kind: 'oversize'; what: 'body' | 'line'; shape: 'json' | 'lines' }
  | { kind: 'many-entities'; count: number; shape: 'lines' | 'tasks-field'; field?: string }
  | ManyContainersBody;

/**
 * `count` empty objects or lists (cut to what the body limit holds): in a list under `field` (as the
 * body, or as its one JSON line), one per JSON line, or as a plot's `plot_str` in an events.add body.
 */
export interface ManyContainersBody {
  kind: 'many-containers';
  count: number;
  item: '{}' | '[]';
  where: 'field' | 'line' | 'lines' | 'plot';
  field: string;
}

export interface HttpCase {
  transport: 'http';
  /** Generator class (`--skip` names these; failures are grouped by them). */
  cls: string;
  op: string;
  method: string;
  /** The path as sent; `{op}` is replaced by the operation name. */
  path: string;
  auth: AuthKind;
  caller: CompanyKey;
  headers: Array<[string, string]>;
  query: QueryPart[];
  body: BodySpec;
}

export interface Limits {
  maxBodyBytes: number;
  maxLineBytes: number;
}

/** Resolves a sibling slot to a well-formed event line (and registers it with the ledger). */
export type SiblingWriter = (slot: SiblingSlot) => JsonTree;

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 bytes (lone surrogates become U+FFFD, as any client would send them). */
export function pctEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function textOf(value: JsonTree): string | undefined {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof RawJson) return value.text.length < 10_000 ? value.text : undefined;
  return undefined;
}

/**
 * Call data as `k=v` pairs: dotted names for nested objects, repeated names
 * for lists (protocol.md §3.1). Prototype keys are kept only when asked for:
 * today such a key pollutes the process and brings it down, which would end
 * the other classes' runs too.
 */
export function flattenToPairs(value: JsonTree, allowPrototypeKeys: boolean, prefix = ''): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const entries =
    value instanceof KeyedObject
      ? value.entries
      : value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof RawJson)
        ? Object.entries(value)
        : undefined;
  if (entries === undefined) {
    if (Array.isArray(value)) {
      for (const item of value) {
        const text = textOf(item);
        if (text !== undefined) out.push([`${prefix}[]`, text]);
      }
      return out;
    }
    const text = textOf(value);
    return text === undefined ? out : [[prefix, text]];
  }
  for (const [key, child] of entries) {
    if (!allowPrototypeKeys && (PROTOTYPE_KEYS as readonly string[]).includes(key)) continue;
    out.push(...flattenToPairs(child, allowPrototypeKeys, prefix === '' ? key : `${prefix}.${key}`));
  }
  return out;
}

function encodePairs(parts: QueryPart[], world: World, caller: CompanyKey, allowPrototypeKeys: boolean): string {
  const out: string[] = [];
  for (const part of parts) {
    if ('raw' in part) out.push(part.raw);
    else
      for (const [key, value] of flattenToPairs(resolveTree(part.value, world, caller), allowPrototypeKeys, part.key))
        out.push(`${pctEncode(key)}=${pctEncode(value)}`);
  }
  return out.join('&');
}

function b64url(value: object | string): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

export function authHeaders(kind: AuthKind, world: World, caller: CompanyKey): Array<[string, string]> {
  const own = world.companies[caller];
  const other = world.companies[caller === 'a' ? 'b' : 'a'];
  const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;
  const [head, payload] = own.token.split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString() || '{}') as Record<string, unknown>;
  switch (kind) {
    case 'bearer':
      return [['authorization', `Bearer ${own.token}`]];
    case 'basic':
      return [['authorization', basic(own.credential.access_key, own.credential.secret_key)]];
    case 'cookie':
      return [['cookie', `clearml_token_basic=${own.token}`]];
    case 'none':
      return [];
    case 'forged-signature':
      // The caller's own token with the other company in its claims, signature unchanged.
      return [
        [
          'authorization',
          `Bearer ${head}.${b64url({ ...claims, identity: { ...(claims.identity as object), company: other.credential.company } })}.${own.token.split('.')[2]}`,
        ],
      ];
    case 'alg-none':
      return [
        [
          'authorization',
          `Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, identity: { user: 'x', company: other.credential.company, role: 'root' } })}.`,
        ],
      ];
    case 'expired':
      return [
        [
          'authorization',
          `Bearer ${jwt.sign({ ...claims, iat: 1_000_000, exp: 1_000_060 }, world.authSecret, { algorithm: 'HS256', noTimestamp: true })}`,
        ],
      ];
    case 'foreign-claims':
      return [
        [
          'authorization',
          `Bearer ${jwt.sign({ identity: { user: 'x', company: other.credential.company }, exp: 9_999_999_999 }, 'not-the-secret-not-the-secret-xx', { algorithm: 'HS256' })}`,
        ],
      ];
    case 'garbage-bearer':
      return [['authorization', 'Bearer a.b.c']];
    case 'lowercase-bearer':
      return [['authorization', `bearer ${own.token}`]];
    case 'basic-bad-base64':
      return [['authorization', 'Basic ***not base64***']];
    case 'basic-wrong-secret':
      return [['authorization', basic(own.credential.access_key, `${own.credential.secret_key}x`)]];
    case 'basic-no-colon':
      return [['authorization', `Basic ${Buffer.from(own.credential.access_key).toString('base64')}`]];
    case 'huge-bearer':
      return [['authorization', `Bearer ${'A'.repeat(60_000)}.${'B'.repeat(100)}.C`]];
    case 'bearer-plus-foreign-cookie':
      return [
        ['authorization', `Bearer ${own.token}`],
        ['cookie', `clearml_token_basic=${other.token}; __proto__=x; constructor=y`],
      ];
    case 'cookie-garbage':
      return [['cookie', `clearml_token_basic=%E0%A4%A; clearml_token_basic=${other.token}; =; ;;`]];
    case 'empty-authorization':
      return [
        ['authorization', ''],
        ['cookie', `clearml_token_basic=${own.token}`],
      ];
    case 'unicode-authorization':
      return [['authorization', `Bearer ${own.token}\u00e9\u202E`]];
  }
}

function filler(bytes: number): string {
  return 'x'.repeat(Math.max(0, bytes));
}

function bodyBytes(
  body: BodySpec,
  world: World,
  caller: CompanyKey,
  limits: Limits,
  sibling: SiblingWriter,
  allowPrototypeKeys: boolean,
): Buffer {
  const resolve = (tree: SymbolicTree | SiblingSlot): string =>
    toJsonText(tree instanceof SiblingSlot ? sibling(tree) : resolveTree(tree, world, caller), 4 * limits.maxBodyBytes);
  switch (body.kind) {
    case 'none':
      return Buffer.alloc(0);
    case 'json':
      return Buffer.from(resolve(body.tree), 'utf8');
    case 'text':
      return Buffer.from(body.text, 'utf8');
    case 'bytes':
      return Buffer.from(body.hex, 'hex');
    case 'lines':
      return Buffer.from(
        body.lines.map((line) => (typeof line === 'string' ? line : resolve(line))).join(body.eol),
        'utf8',
      );
    case 'array':
      return Buffer.from(`[${body.items.map(resolve).join(',')}]`, 'utf8');
    case 'form':
      return Buffer.from(encodePairs(body.parts, world, caller, allowPrototypeKeys), 'utf8');
    case 'oversize': {
      const task = world.companies[caller].targets[0]!;
      const size = body.what === 'body' ? limits.maxBodyBytes + 1 : limits.maxLineBytes + 1;
      const event = (msg: string) => `{"type":"log","task":"${task}","msg":"${msg}"}`;
      if (body.shape === 'json') return Buffer.from(`{"task":"${task}","pad":"${filler(size)}"}`);
      const line = event(filler(size));
      return Buffer.from(body.what === 'line' ? `${event('before')}\n${line}\n${event('after')}` : line);
    }
    case 'many-entities': {
      const prefix = `${world.companies[caller].targets[0]}-e`;
      if (body.shape === 'tasks-field')
        return Buffer.from(
          JSON.stringify({ [body.field ?? 'tasks']: Array.from({ length: body.count }, (_, i) => `${prefix}${i}`) }),
        );
      const lines: string[] = [];
      const budget = limits.maxBodyBytes - 64;
      let size = 0;
      for (let i = 0; i < body.count; i++) {
        const line = `{"type":"log","task":"${prefix}${i}","msg":"m"}`;
        if (size + line.length + 1 > budget) break;
        lines.push(line);
        size += line.length + 1;
      }
      return Buffer.from(lines.join('\n'));
    }
    case 'many-containers':
      return manyContainersBytes(body, world.companies[caller].targets[0]!, limits);
  }
}

function manyContainersBytes(body: ManyContainersBody, task: string, limits: Limits): Buffer {
  const count = Math.max(1, Math.min(body.count, Math.floor((limits.maxBodyBytes - 256) / (body.item.length + 1))));
  const items = (separator: string) => body.item + `${separator}${body.item}`.repeat(count - 1);
  if (body.where === 'lines') return Buffer.from(items('\n'));
  const list = `[${items(',')}]`;
  if (body.where === 'plot')
    return Buffer.from(
      JSON.stringify({ type: 'plot', task, iter: 1, metric: 'containers', variant: 'v', plot_str: list }),
    );
  return Buffer.from(`{${JSON.stringify(body.field)}:${list}}`);
}

export function materializeHttpCase(c: HttpCase, world: World, limits: Limits, sibling: SiblingWriter): RawRequest {
  const allowPrototypeKeys = c.cls === 'prototype-query';
  const query = encodePairs(c.query, world, c.caller, allowPrototypeKeys);
  const path = c.path.replace('{op}', c.op);
  return {
    method: c.method,
    target: query === '' ? path : `${path}?${query}`,
    headers: [...authHeaders(c.auth, world, c.caller), ...c.headers],
    body: bodyBytes(c.body, world, c.caller, limits, sibling, allowPrototypeKeys),
  };
}
