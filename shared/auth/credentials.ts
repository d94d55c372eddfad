/**
 * Access/secret key pairs from CREDENTIALS_FILE (protocol.md §7.1): a JSON
 * array of {access_key, secret_key, company, user[, role, user_name,
 * company_name]}. Several companies may share one file.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Identity } from './identity.js';

const ROLES = ['system', 'root', 'admin', 'superuser', 'user', 'annotator', 'guest'] as const;

const credentialSchema = z.object({
  access_key: z.string().min(1),
  secret_key: z.string().min(1),
  company: z.string().min(1),
  user: z.string().min(1),
  role: z.enum(ROLES).default('user'),
  user_name: z.string().optional(),
  company_name: z.string().optional(),
});

export type Credential = z.infer<typeof credentialSchema>;

export class CredentialStore {
  private readonly byAccessKey: Map<string, Credential>;

  constructor(credentials: Credential[]) {
    this.byAccessKey = new Map(credentials.map((c) => [c.access_key, c]));
  }

  /** The identity of a valid pair, or undefined (unknown key or wrong secret). */
  verify(accessKey: string, secretKey: string): Identity | undefined {
    const credential = this.byAccessKey.get(accessKey);
    if (credential === undefined) return undefined;
    const expected = Buffer.from(credential.secret_key, 'utf8');
    const given = Buffer.from(secretKey, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return identityOf(credential);
  }

  get size(): number {
    return this.byAccessKey.size;
  }
}

function identityOf(c: Credential): Identity {
  return {
    user: c.user,
    company: c.company,
    role: c.role,
    ...(c.user_name ? { user_name: c.user_name } : {}),
    ...(c.company_name ? { company_name: c.company_name } : {}),
  };
}

export function loadCredentials(file: string): CredentialStore {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`CREDENTIALS_FILE ${file}: cannot read it (${(error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the fault: a secret key, here.
    throw new Error(`CREDENTIALS_FILE ${file}: cannot read a JSON array of credentials (it is not valid JSON)`);
  }
  const result = z.array(credentialSchema).min(1).safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(
      `CREDENTIALS_FILE ${file}: expected [{"access_key", "secret_key", "company", "user"}, ...]; ${issue?.path.join('.')}: ${issue?.message}`,
    );
  }
  return new CredentialStore(result.data);
}

const randomKey = (bytes: number, alphabet: string): string =>
  [...randomBytes(bytes)].map((b) => alphabet[b % alphabet.length]).join('');

/** Creates a credentials file with one fresh pair for company "default" (first `npm start`). */
export function createDefaultCredentials(file: string): Credential {
  const credential: Credential = {
    access_key: randomKey(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    secret_key: randomKey(48, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    company: 'default',
    user: 'admin',
    role: 'admin',
    user_name: 'Admin',
    company_name: 'default',
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify([credential], null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return credential;
}

/** Creates the default credentials file when there is none (`npm start`, `npm run start:cluster`); true when it did. */
export function ensureDefaultCredentials(file: string): boolean {
  if (existsSync(file)) return false;
  createDefaultCredentials(file);
  return true;
}
