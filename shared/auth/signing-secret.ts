/**
 * The server secret that signs tokens and cursors: AUTH_SECRET when given,
 * otherwise generated once into DATA_DIR/auth-secret (kept out of the repo).
 * Processes of one deployment must share it (same AUTH_SECRET or DATA_DIR).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function resolveSigningSecret(configured: string | undefined, dataDir: string): string {
  if (configured !== undefined) return configured;
  const file = path.join(dataDir, 'auth-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process of the same deployment created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
