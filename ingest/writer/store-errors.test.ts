import fc from 'fast-check';
import { NatsError } from 'nats';
import {
  ClientClosedError,
  ConnectionTimeoutError,
  SimpleError,
  SocketClosedUnexpectedlyError,
  TimeoutError,
} from 'redis';
import { describe, expect, it } from 'vitest';
import { InfluxError } from '../../shared/stores/influx-store.js';
import { classifyStoreError, DEAD_LETTER_REASONS, describeError } from './store-errors.js';

const transient = { transient: true };
const refused = (reason: string) => ({ transient: false, reason });

describe('InfluxDB errors', () => {
  it('refuse the body on 400, 413 and 422 (bad point, too large, unprocessable)', () => {
    expect(
      classifyStoreError(
        new InfluxError(
          'partial write: field type conflict: input field "y" on measurement "scalar" is type integer, already exists as type float dropped=1',
          400,
        ),
      ),
    ).toEqual(refused('influx_rejected'));
    expect(
      classifyStoreError(
        new InfluxError(
          "partial write: unable to parse 'scalar,c=co': max key length exceeded: 70027 > 65535 dropped=0",
          400,
        ),
      ),
    ).toEqual(refused('influx_rejected'));
    expect(classifyStoreError(new InfluxError('Request Entity Too Large', 413))).toEqual(refused('influx_rejected'));
    expect(classifyStoreError(new InfluxError('unprocessable', 422))).toEqual(refused('influx_rejected'));
  });

  it('retry 5xx, and 401/403/404/408/429: the server or its configuration, not the point', () => {
    for (const status of [500, 502, 503, 504, 401, 403, 404, 408, 429])
      expect(classifyStoreError(new InfluxError(`status ${status}`, status))).toEqual(transient);
  });

  it('retry connection errors and timeouts', () => {
    expect(
      classifyStoreError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8086'), { code: 'ECONNREFUSED' })),
    ).toEqual(transient);
    expect(classifyStoreError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toEqual(transient);
    expect(classifyStoreError(new Error('InfluxDB write took more than 60000 ms'))).toEqual(transient);
    expect(classifyStoreError(new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') }))).toEqual(transient);
    expect(classifyStoreError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toEqual(
      transient,
    );
  });
});

describe('Redis errors', () => {
  const reply = (message: string) => new SimpleError(message);

  it('refuse WRONGTYPE, also when a script passes it on', () => {
    expect(classifyStoreError(reply('WRONGTYPE Operation against a key holding the wrong kind of value'))).toEqual(
      refused('redis_wrongtype'),
    );
    expect(
      classifyStoreError(
        reply('WRONGTYPE Operation against a key holding the wrong kind of value script: 5142c3, on @user_script:1.'),
      ),
    ).toEqual(refused('redis_wrongtype'));
  });

  it('refuse command and script errors', () => {
    expect(
      classifyStoreError(
        reply('ERR Invalid stream ID specified as stream command argument script: 26f581, on @user_script:1.'),
      ),
    ).toEqual(refused('redis_rejected'));
    expect(
      classifyStoreError(
        reply(
          "ERR user_script:71: attempt to perform arithmetic on local 'sum' (a nil value) script: ae1a2d, on @user_script:71.",
        ),
      ),
    ).toEqual(refused('redis_rejected'));
    expect(
      classifyStoreError(reply('ERR The ID specified in XADD is equal or smaller than the target stream top item')),
    ).toEqual(refused('redis_rejected'));
  });

  it('retry server states: busy, loading, out of memory, read-only, persistence failing, unknown script, credentials', () => {
    for (const message of [
      'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      'LOADING Redis is loading the dataset in memory',
      "OOM command not allowed when used memory > 'maxmemory'.",
      "OOM command not allowed when used memory > 'maxmemory'. script: 5142c3, on @user_script:12.",
      "READONLY You can't write against a read only replica.",
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
      'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.',
      'NOSCRIPT No matching script. Please use EVAL.',
      'NOAUTH Authentication required.',
      'WRONGPASS invalid username-password pair or user is disabled.',
      'ERR max number of clients reached',
      'ERR Error running script, Script killed by user with SCRIPT KILL...',
      'SOMENEWCODE a state this version does not know',
    ]) {
      expect(classifyStoreError(reply(message)), message).toEqual(transient);
    }
  });

  it('retry connection errors and command timeouts', () => {
    for (const error of [
      new ClientClosedError(),
      new SocketClosedUnexpectedlyError(),
      new ConnectionTimeoutError(),
      new TimeoutError('Command timeout'),
      new Error('Socket closed unexpectedly'),
    ]) {
      expect(classifyStoreError(error), error.message).toEqual(transient);
    }
  });
});

describe('NATS errors', () => {
  it('retry timeouts, no responders and connection loss', () => {
    for (const code of ['TIMEOUT', '503', 'CONNECTION_CLOSED', 'DISCONNECT', 'CONNECTION_REFUSED'])
      expect(classifyStoreError(NatsError.errorForCode(code))).toEqual(transient);
  });
});

describe('errors of the writer itself', () => {
  it('refuse TypeError and RangeError thrown on the input', () => {
    expect(classifyStoreError(new TypeError("Cannot read properties of null (reading 'join')"))).toEqual(
      refused('writer_error'),
    );
    expect(classifyStoreError(new RangeError('Invalid string length'))).toEqual(refused('writer_error'));
  });

  it('retry anything not recognised', () => {
    fc.assert(
      fc.property(fc.string(), (message) => {
        expect(classifyStoreError(new Error(message))).toEqual(transient);
      }),
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(classifyStoreError(value).transient).toBe(true);
      }),
    );
  });
});

describe('classification of any Redis reply', () => {
  it('is WRONGTYPE or a code refused, or transient; reasons come from the fixed set', () => {
    fc.assert(
      fc.property(fc.string(), (message) => {
        const verdict = classifyStoreError(new SimpleError(message));
        if (!verdict.transient) expect(DEAD_LETTER_REASONS).toContain(verdict.reason);
        if (message.startsWith('WRONGTYPE')) expect(verdict).toEqual(refused('redis_wrongtype'));
      }),
    );
  });
});

describe('describeError', () => {
  it('is one bounded line that keeps the end of a long message', () => {
    const text = describeError(
      new Error(`unable to parse 'scalar,m=${'a'.repeat(70_000)}\n': max key length exceeded: 70027 > 65535 dropped=0`),
    );
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text).not.toMatch(/[\r\n]/);
    expect(text).toMatch(/^unable to parse/);
    expect(text).toMatch(/max key length exceeded: 70027 > 65535 dropped=0$/);
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (message) => {
        expect(describeError(new Error(message)).length).toBeLessThanOrEqual(600);
      }),
    );
  });
});
