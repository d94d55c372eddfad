import { describe, expect, it } from 'vitest';
import {
  arrivalSeq,
  decodeRecords,
  frameRecord,
  logRecordBody,
  pointWithSeq,
  type EntitySummary,
  type LogRecord,
} from '../../shared/events/wire-format.js';
import { PointBuffer } from './point-buffer.js';
import fc from 'fast-check';
import { MalformedMessage, recordFrame, scanRecords } from './record-scanner.js';

function scan(payload: string, streamSeq = 7) {
  const points = new PointBuffer();
  const logs: Array<[LogRecord, number]> = [];
  const summaries: Array<[EntitySummary, number]> = [];
  const malformed: number[] = [];
  scanRecords(Buffer.from(payload, 'utf8'), streamSeq, {
    point: (src, start, end, seq, _index, header) => points.append(src, start, end, seq, header),
    log: (record, seq) => logs.push([record, seq]),
    summary: (summary, seq) => summaries.push([summary, seq]),
    malformed: (index) => malformed.push(index),
  });
  return { lines: points.bytes().toString('utf8'), points: points.points, logs, summaries, malformed };
}

describe('scanRecords', () => {
  it('splices the arrival seq into points exactly as pointWithSeq does, for ASCII and non-ASCII payloads', () => {
    const bodies = [
      'scalar,c=a,e=t,m=loss,n=t,v=v y=0.5,ts=1i,at=1i,w="w" 3',
      'plot,c=a,e=t,m=größe\\ ✓,n=t,v=𝄞 p="p{\\"x\\": \\"é\\nz\\"}" -9223372036854775806',
    ];
    const log: LogRecord = ['a', 't', 5, JSON.stringify({ msg: 'tqdm ██▌ 50%\nnext' })];
    const payload = frameRecord('I', bodies[0]!) + frameRecord('L', JSON.stringify(log)) + frameRecord('I', bodies[1]!);
    const seq = 123_456_789;
    const out = scan(payload, seq);
    expect(out.lines).toBe(
      `${pointWithSeq(bodies[0]!, arrivalSeq(seq, 0))}\n${pointWithSeq(bodies[1]!, arrivalSeq(seq, 2))}\n`,
    );
    expect(out.logs).toEqual([[log, arrivalSeq(seq, 1)]]);
    expect([...decodeRecords(payload)].map((r) => r.kind)).toEqual(['I', 'L', 'I']);
  });

  it('reads a log record as ingest writes it (a header line, then the stored event JSON as it is) and as earlier versions did (one JSON array)', () => {
    const eventJson = JSON.stringify({ msg: 'say "hi"\n\ttqdm ██▌ 50%', level: 'info', timestamp: 5 });
    const record: LogRecord = ['co\nmpany', 't"1', 5, eventJson];
    const current = logRecordBody('co\nmpany', 't"1', 5, eventJson);
    // The stored JSON is carried as it is, not escaped a second time inside a JSON string.
    expect(current.endsWith(`\n${eventJson}`)).toBe(true);
    const out = scan(frameRecord('L', current) + frameRecord('L', JSON.stringify(record)));
    expect(out.malformed).toEqual([]);
    expect(out.logs).toEqual([
      [record, arrivalSeq(7, 0)],
      [record, arrivalSeq(7, 1)],
    ]);
  });

  it('reads back every log record logRecordBody writes', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.jsonValue(),
        (company, task, timestamp, stored) => {
          const eventJson = JSON.stringify(stored);
          const out = scan(frameRecord('L', logRecordBody(company, task, timestamp, eventJson)));
          expect(out.logs).toEqual([[[company, task, timestamp, eventJson], arrivalSeq(7, 0)]]);
        },
      ),
    );
  });

  it('reads summaries', () => {
    const summary: EntitySummary = { c: 'a', n: 't', e: 'x', u: 'u', at: 1, scalars: [], listing: [] };
    expect(scan(frameRecord('R', JSON.stringify(summary))).summaries).toEqual([[summary, arrivalSeq(7, 0)]]);
  });

  it.each([
    ['an unknown kind', 'X3:abc'],
    ['a missing length', 'I:abc'],
    ['a length past the end', 'I10:abc 1'],
    ['a length that splits a character', 'I1:𝄞'],
  ])('refuses the whole message for %s (the frames after it cannot be found)', (_, payload) => {
    expect(() => scan(payload)).toThrow(MalformedMessage);
  });

  const good = frameRecord('I', 'scalar,c=a,e=t,m=m,n=t,v=v y=1 1');
  it.each([
    ['a point without fields or time', frameRecord('I', 'scalar,c=a')],
    ['a log that is not JSON', frameRecord('L', '[1,')],
    ['a log of the wrong shape', frameRecord('L', '{"a":1}')],
    ['a log whose header line is not JSON', frameRecord('L', '["a","t",\n{}')],
    ['a log whose header line has the wrong shape', frameRecord('L', '["a",1,5]\n{}')],
    ['a log without its event JSON', frameRecord('L', '["a","t",5]\n')],
    ['a summary of the wrong shape', frameRecord('R', '[]')],
    [
      'a summary with a non-finite value',
      frameRecord(
        'R',
        '{"c":"a","n":"t","e":"x","u":"u","at":1,"scalars":[{"metric":"m","variant":"v","value":1e999,"iter":1,"timestamp":1,"min":1,"minIter":1,"max":1,"maxIter":1,"first":1,"firstIter":1,"count":1,"sum":1}],"listing":[]}',
      ),
    ],
  ])('refuses %s alone and reads its siblings', (_, bad) => {
    const out = scan(good + bad + good);
    expect(out.malformed).toEqual([1]);
    expect(out.points).toBe(2);
  });

  it('never throws anything but MalformedMessage, whatever the payload', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('I', 'L', 'R', ':', '1', '{}', '[]')), {
            maxLength: 30,
          })
          .map((parts) => parts.join('')),
        (payload) => {
          try {
            scan(payload);
          } catch (error) {
            expect(error).toBeInstanceOf(MalformedMessage);
          }
        },
      ),
    );
  });
});

describe('recordFrame', () => {
  it('answers the framed bytes of one record, for any records', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('I', 'L', 'R'), fc.string({ unit: 'grapheme', maxLength: 60 })), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.nat(),
        (records, pick) => {
          const frames = records.map(([kind, body]) => frameRecord(kind as 'I', body));
          const index = pick % frames.length;
          expect(recordFrame(Buffer.from(frames.join(''), 'utf8'), index).toString('utf8')).toBe(frames[index]);
        },
      ),
    );
  });
});
