import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCredentials } from './credentials.js';

function loadError(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'credentials-test-')), 'credentials.json');
  writeFileSync(file, text);
  try {
    loadCredentials(file);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected loadCredentials to fail');
}

/** No 6 consecutive characters of the secret (JSON.parse quotes about 10 around a fault). */
function expectNoPartOf(secret: string, message: string): void {
  for (let i = 0; i + 6 <= secret.length; i++) expect(message).not.toContain(secret.slice(i, i + 6));
}

describe('loadCredentials errors', () => {
  it('never quote the secret keys of the file', () => {
    const secret = 'sk-very-secret-value-0123456789';
    // An unquoted value: JSON.parse's own message would quote the text around it.
    expectNoPartOf(secret, loadError(`[{"access_key": "AK", "secret_key": ${secret}, "company": "c", "user": "u"}]`));
    expect(loadError(`[{"access_key": "AK", "secret_key": "${secret}", "company": 5, "user": "u"}]`)).not.toContain(
      'secret-value',
    );
    expect(
      loadError(`[{"access_key": "AK", "secret_key": "${secret}", "company": "c", "user": "u", "role": "${secret}"}]`),
    ).not.toContain('secret-value');
  });
});
