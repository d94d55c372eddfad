// Which store failures answer 503 (store-errors.ts): only those a retry can fix, since the SDK retries a 503
// forever. The errors are the clients' own classes and shapes (node-redis, undici's fetch, nats.js).
import { ClientOfflineError, ErrorReply, SocketClosedUnexpectedlyError, SocketTimeoutError } from 'redis';
import { NatsError } from 'nats';
import { describe, expect, it } from 'vitest';
import { InfluxError } from './influx-store.js';
import { isTransientStoreError, StoreUnavailableError, storeUnavailableAnswer } from './store-errors.js';

const natsError = (code: string, api?: { code: number; err_code: number; description: string }) => {
  const error = new NatsError(code, code);
  if (api) error.api_error = api;
  return error;
};
const fetchFailed = (code: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

describe('transient: a retry can fix it', () => {
  it.each([
    ['our own timeout', new StoreUnavailableError('redis', 'Redis did not answer')],
    ['Redis offline', new ClientOfflineError()],
    ['Redis socket lost', new SocketClosedUnexpectedlyError()],
    ['Redis socket timeout', new SocketTimeoutError(1000)],
    ['Redis loading its data', new ErrorReply('LOADING Redis is loading the dataset in memory')],
    ['Redis busy with a script', new ErrorReply('BUSY Redis is busy running a script')],
    ['Redis out of memory', new ErrorReply('OOM command not allowed when used memory > maxmemory')],
    ['a Redis Cluster redirection not followed', new ErrorReply('MOVED 12345 127.0.0.1:7002')],
    ['a Redis Cluster slot being migrated', new ErrorReply('ASK 12345 127.0.0.1:7002')],
    ['InfluxDB 503', new InfluxError('InfluxDB query failed (503)', 503)],
    ['InfluxDB refused connection', fetchFailed('ECONNREFUSED')],
    ['InfluxDB socket closed', fetchFailed('UND_ERR_SOCKET')],
    ['an AbortSignal.timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['NATS request timeout', natsError('TIMEOUT')],
    ['NATS no responders', natsError('503')],
    [
      'JetStream stream full',
      natsError('BAD API', { code: 503, err_code: 10077, description: 'maximum messages exceeded' }),
    ],
    [
      'JetStream stream not found',
      natsError('BAD API', { code: 404, err_code: 10059, description: 'stream not found' }),
    ],
  ])('%s', (_, error) => {
    expect(isTransientStoreError(error)).toBe(true);
    expect(storeUnavailableAnswer(error)?.message).toBe('Store unavailable, retry later');
  });
});

describe('not transient: answered 500, never 503', () => {
  it.each([
    ['a Lua script error', new ErrorReply('ERR user_script:1: Script attempted to access nonexistent global variable')],
    ['WRONGTYPE', new ErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value')],
    ['InfluxDB 400', new InfluxError('InfluxDB query failed: error parsing query', 400)],
    ['a caller abort (client gone)', new DOMException('This operation was aborted', 'AbortError')],
    [
      'JetStream message too large',
      natsError('BAD API', { code: 400, err_code: 10054, description: 'message size exceeds maximum allowed' }),
    ],
    ['NATS payload too large', natsError('MAX_PAYLOAD_EXCEEDED')],
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['not an error at all', 'ECONNREFUSED'],
    ['null', null],
  ])('%s', (_, error) => {
    expect(isTransientStoreError(error)).toBe(false);
    expect(storeUnavailableAnswer(error)).toBeUndefined();
  });

  it('stops following a cycle of causes', () => {
    const a: { cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    expect(isTransientStoreError(a)).toBe(false);
  });
});
