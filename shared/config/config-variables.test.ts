import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema, describeGivenValue } from './config.js';
import { formatVariableDocs, isSecretName, variableDocs } from './config-variables.js';

const docs = variableDocs(configSchema.shape);

describe('variableDocs', () => {
  it('describes every variable of the schema, with its default', () => {
    expect(docs.map((d) => d.name)).toEqual(Object.keys(configSchema.shape));
    for (const doc of docs) expect(doc.description, doc.name).not.toBe('');
    const byName = Object.fromEntries(docs.map((d) => [d.name, d]));
    expect(byName.API_PORT!.defaultText).toBe('8008');
    expect(byName.REDIS_CLUSTER!.defaultText).toBe('false');
    expect(byName.CORS_ALLOWED_ORIGINS!.defaultText).toBe('none');
    expect(byName.INFLUX_USERNAME!.defaultText).toBe('none');
    expect(byName.MAX_LINE_BYTES!.defaultText).toBe('MAX_BODY_BYTES');
  });

  it('marks the secrets, by the schema or else by the name', () => {
    expect(docs.filter((d) => d.secret).map((d) => d.name)).toEqual([
      'AUTH_SECRET',
      'INFLUX_PASSWORD',
      'CLEARML_TOKEN_SECRET',
    ]);
    // A prefix of key names, not a key.
    expect(describeGivenValue('REDIS_KEY_PREFIX', 'a b')).toBe('"a b"');
    for (const name of ['SOME_API_KEY', 'S3_SECRET', 'DB_PASSWORD', 'GITHUB_TOKEN', 'PRIVATE_KEY_FILE'])
      expect(isSecretName(name, undefined), name).toBe(true);
    expect(isSecretName('SOME_TOKEN', { secret: false })).toBe(false);
    expect(describeGivenValue('NEW_API_KEY', 'hunter2')).toBe('a value of 7 characters (not shown: secret)');
  });

  it('wraps descriptions for a terminal', () => {
    const lines = formatVariableDocs(
      [{ name: 'X', description: 'word '.repeat(40), defaultText: '1', secret: false }],
      40,
    );
    expect(lines[0]).toBe('  X  (default: 1)');
    for (const line of lines.slice(1)) {
      expect(line.startsWith('      word')).toBe(true);
      expect(line.length).toBeLessThanOrEqual(40);
    }
  });

  it('docs/configuration.md has a row for every variable', () => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
    for (const { name } of docs) expect(text, name).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, 'm'));
  });
});
