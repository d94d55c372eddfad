import { describe, expect, it } from 'vitest';
import { JsonBytesWriter } from '../../../shared/protocol/json-bytes.js';
import { logEventHead, writeLogEvent } from './stored-events.js';

describe('writeLogEvent', () => {
  it('splices type and task in front of the stored fields, as array elements', () => {
    const out = new JsonBytesWriter(8).text('[');
    const head = logEventHead('t "1"');
    writeLogEvent(out, head, Buffer.from('{"msg":"é","timestamp":5}'), false);
    writeLogEvent(out, head, Buffer.from('{}'), true);
    writeLogEvent(out, head, Buffer.from('{"msg":"b"}'), true);
    expect(JSON.parse(out.text(']').finish().toString())).toEqual([
      { type: 'log', task: 't "1"', msg: 'é', timestamp: 5 },
      { type: 'log', task: 't "1"' },
      { type: 'log', task: 't "1"', msg: 'b' },
    ]);
  });
});
