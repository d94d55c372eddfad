import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../shared/errors/error-catalogue.js';
import { OpenCallLimit } from './open-call-limit.js';

function refusal(open: () => unknown) {
  try {
    open();
  } catch (error) {
    if (isApiError(error)) return { http: error.entry.http, message: error.message, headers: error.headers };
    throw error;
  }
  return undefined;
}

describe('OpenCallLimit', () => {
  it('lets each company, and the callers without credentials together, hold a quarter of the calls', () => {
    const limit = new OpenCallLimit(8);
    limit.open('a');
    limit.open('a');
    expect(refusal(() => limit.open('a'))).toEqual({
      http: 429,
      message: 'Too many calls open, retry later (at most 2 for a company, 8 in all)',
      headers: { 'retry-after': '1' },
    });
    limit.open(undefined);
    limit.open(undefined);
    expect(refusal(() => limit.open(undefined))?.message).toBe(
      'Too many calls open, retry later (at most 2 for callers without valid credentials, 8 in all)',
    );
    // An empty company id is a company, not the callers without credentials.
    limit.open('');
    expect(limit.inUse).toBe(5);
  });

  it('refuses any call once the process holds the limit, whoever asks', () => {
    const limit = new OpenCallLimit(4);
    for (const company of ['a', 'b', 'c', 'd']) limit.open(company);
    expect(refusal(() => limit.open('e'))?.http).toBe(429);
    expect(refusal(() => limit.open(undefined))?.http).toBe(429);
  });

  it('gives a place back once, however often its call ends', () => {
    const registry = new Registry();
    const limit = new OpenCallLimit(4, registry);
    const release = limit.open('a');
    limit.open('b');
    release();
    release();
    expect(limit.inUse).toBe(1);
    expect(refusal(() => limit.open('a'))).toBeUndefined();
    expect(limit.inUse).toBe(2);
  });

  it('lets one call open under a limit below four', () => {
    const limit = new OpenCallLimit(1);
    limit.open('a');
    expect(refusal(() => limit.open('b'))?.http).toBe(429);
  });

  it('shows the calls open as a gauge', async () => {
    const registry = new Registry();
    const limit = new OpenCallLimit(40, registry);
    const release = limit.open('a');
    limit.open(undefined);
    release();
    expect(await registry.getSingleMetricAsString('clearml_grpc_calls_open')).toContain('clearml_grpc_calls_open 1');
  });
});
