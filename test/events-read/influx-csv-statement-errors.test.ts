// InfluxDB's CSV answers leave out a statement's error (InfluxDB 1.6 writes only a request-level
// error in CSV), and a streamed (chunked) one cut by a failure simply ends: a CSV read must take
// neither a failed statement for an empty answer nor a cut answer for a whole one.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject, describe, expect, it } from 'vitest';
import { InfluxCsvReader, PAGE_CHUNK_ROWS } from '../../query/events/store/influx-csv.js';
import { JsonNumberLists, RawPageCsvParser } from '../../query/events/store/raw-page-csv.js';
import { ScalarCsvParser } from '../../query/events/store/scalar-csv-rows.js';
import { decodeInfluxRows } from '../../query/events/store/stored-events.js';
import { eventsAnswer } from '../../query/events/task-events/task-events-answer.js';
import { decodeTagValue } from '../../shared/events/storage-layout.js';
import { JsonBytesWriter } from '../../shared/protocol/json-bytes.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { isTransientStoreError } from '../../shared/stores/store-errors.js';
import { unique } from '../harness/service-harness.js';
import { startPrivateServer } from '../faults/private-server.js';

const reader = (database: string, url = inject('stack').influxUrl) =>
  new InfluxCsvReader({ INFLUX_URL: url, INFLUX_DB: database, INFLUX_TIMEOUT_MS: 30_000 });

/** A database of its own, dropped afterwards. */
async function withDatabase(url: string, use: (database: string, influx: InfluxStore) => Promise<void>) {
  const database = unique('csv');
  const influx = new InfluxStore({ url, database });
  await influx.ensureDatabase();
  try {
    await use(database, influx);
  } finally {
    await influx.query(`DROP DATABASE "${database}"`, { method: 'POST' });
  }
}

/**
 * `points` scalar points of 10 variants, 10,000 a write: tag values with a comma and quotes, and in
 * the last 1,000 points values that are not ASCII (so that an answer turns non-ASCII after its first chunks).
 */
async function writePoints(influx: InfluxStore, points: number): Promise<void> {
  for (let from = 0; from < points; from += 10_000) {
    let body = '';
    for (let i = from; i < Math.min(points, from + 10_000); i++) {
      const variant = i < points - 1_000 ? `var\\,"${i % 10}"` : `värïant 🚀${i % 10}`.replaceAll(' ', '\\ ');
      body += `scalar,v=${variant} y=${Math.sin(i) * 1e3},q=${i}i,at=${1_718_000_000_000 + i}i,w="w,\\"${i % 3}\\"" ${Math.floor(i / 10)}\n`;
    }
    await influx.write(body);
  }
}

describe('InfluxCsvReader', () => {
  it('fails a statement InfluxDB failed, as the JSON reader does (the database gone: not transient)', async () => {
    const missing = unique('gone');
    const read = reader(missing).columns('SELECT "y" FROM "scalar"', ['y']);
    await expect(read).rejects.toThrow(`database not found: ${missing}`);
    const error = await read.catch((e: unknown) => e);
    expect(isTransientStoreError(error)).toBe(false);
  });

  it('answers an empty result as empty, and rows as rows', async () => {
    await withDatabase(inject('stack').influxUrl, async (database, influx) => {
      expect((await reader(database).columns('SELECT "y" FROM "scalar"', ['y'])).numbers[0]).toHaveLength(0);
      await influx.write('scalar,c=co y=0.5 1\nscalar,c=co y=2 2\n');
      expect([...(await reader(database).columns('SELECT "y" FROM "scalar"', ['y'])).numbers[0]!]).toEqual([0.5, 2]);
      // A measurement without the rows asked for: empty, not a failure.
      expect(
        (await reader(database).columns('SELECT "y" FROM "scalar" WHERE time > 5', ['y'])).numbers[0],
      ).toHaveLength(0);
    });
  });

  it('reads an answer InfluxDB streams in several chunks whole and in order, as its JSON answer holds it', async () => {
    await withDatabase(inject('stack').influxUrl, async (database, influx) => {
      await writePoints(influx, 25_000);
      const statement = 'SELECT "y", "q", "v" FROM "scalar" ORDER BY time ASC';
      const csv = await reader(database).columns(statement, ['time', 'y', 'q'], ['v']);
      const [series] = (await influx.query(statement))[0]!.series!;
      const rows = series!.values;
      expect(rows).toHaveLength(25_000);
      expect(csv.numbers.map((column) => column.length)).toEqual([25_000, 25_000, 25_000]);
      const at = (name: string) => series!.columns.indexOf(name);
      expect([...csv.numbers[0]!]).toEqual(rows.map((row) => row[at('time')]));
      expect([...csv.numbers[1]!]).toEqual(rows.map((row) => row[at('y')]));
      expect([...csv.numbers[2]!]).toEqual(rows.map((row) => row[at('q')]));
      expect(csv.strings[0]).toEqual(rows.map((row) => row[at('v')]));
    });
  });

  it('reads scalar rows as bytes, in several chunks, into the events the JSON answer holds', async () => {
    await withDatabase(inject('stack').influxUrl, async (database, influx) => {
      const missing = unique('gone');
      const failed = reader(missing).parsed('SELECT * FROM "scalar"', () => new ScalarCsvParser());
      await expect(failed).rejects.toThrow(`database not found: ${missing}`);
      expect(isTransientStoreError(await failed.catch((e: unknown) => e))).toBe(false);
      expect((await reader(database).parsed('SELECT * FROM "scalar"', () => new ScalarCsvParser())).rows).toEqual([]);
      await writePoints(influx, 25_000);
      const statement = 'SELECT * FROM "scalar" ORDER BY time ASC';
      const [series] = (await influx.query(statement))[0]!.series!;
      const text = (answer: ReturnType<typeof eventsAnswer>) =>
        typeof answer === 'string' ? answer : answer.finish().toString('utf8');
      const expected = text(eventsAnswer(decodeInfluxRows(series!, 'scalar'), ']}'));
      // InfluxDB's default chunks of 10,000 rows, the pages' chunks, and chunks of an odd size.
      for (const chunkRows of [undefined, PAGE_CHUNK_ROWS, 7]) {
        const { rows } = await reader(database).parsed(statement, () => new ScalarCsvParser(), { chunkRows });
        expect(rows).toHaveLength(25_000);
        expect(text(eventsAnswer(rows, ']}'))).toBe(expected);
      }
    });
  });

  it('reads a raw page as bytes, in several chunks, into what the JSON answer holds', async () => {
    await withDatabase(inject('stack').influxUrl, async (database, influx) => {
      await writePoints(influx, 25_000);
      // The raw page's columns (scalar-raw-pages.ts); these points' `at` stands in for `ts`.
      const statement = 'SELECT "y", "at" AS "ts", "q", "v" FROM "scalar" ORDER BY time ASC';
      const [series] = (await influx.query(statement))[0]!.series!;
      const at = (name: string) => series!.columns.indexOf(name);
      const rows = series!.values;
      for (const chunkRows of [undefined, PAGE_CHUNK_ROWS, 7]) {
        const values = new JsonNumberLists();
        const page = (await reader(database).parsed(statement, () => new RawPageCsvParser(values), { chunkRows })).rows;
        expect(page.length).toBe(25_000);
        expect([...page.x]).toEqual(rows.map((row) => row[at('time')]));
        expect(page.variant).toEqual(rows.map((row) => decodeTagValue(row[at('v')] as string)));
        expect(page.arrival(24_999)).toEqual({ ts: rows[24_999]![at('ts')], seq: rows[24_999]![at('q')] });
        const out = new JsonBytesWriter();
        values.write(out, [...page.y]);
        expect(out.finish().toString()).toBe(rows.map((row) => JSON.stringify(row[at('y')])).join(','));
      }
    });
  });

  it('reads again, instead of failing, when a database got its first points between the CSV answer and the check', async () => {
    // A database without any measurement answers CSV with nothing at all (not even the completion
    // statement's answer). Points written just after (the first ones a writer stores) then made
    // the JSON check see rows, and the read failed as cut (503). A proxy writes them at that moment.
    await withDatabase(inject('stack').influxUrl, async (database, influx) => {
      let csvAnswers = 0;
      const proxy = createServer((request, response) => {
        void (async () => {
          const upstream = await fetch(`${inject('stack').influxUrl}${request.url}`, {
            headers: { accept: request.headers.accept ?? '*/*' },
          });
          const body = Buffer.from(await upstream.arrayBuffer());
          if (request.headers.accept === 'application/csv' && csvAnswers++ === 0) {
            expect(body.length).toBe(0);
            await influx.write('scalar,c=co,e=t1,n=t,m=loss,v=v1 y=0.5,at=1i,ts=1i,q=1i,w="" 3\n');
          }
          response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? '' });
          response.end(body);
        })();
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        const { rows } = await reader(database, url).parsed('SELECT * FROM "scalar"', () => new ScalarCsvParser());
        expect(rows.map((row) => row.event)).toMatchObject([{ metric: 'loss', variant: 'v1', iter: 3, value: 0.5 }]);
        expect(csvAnswers).toBe(2);
      } finally {
        proxy.close();
      }
    });
  });

  it('never returns an answer InfluxDB cut: a query past its query-timeout fails as transient, whatever came first', async () => {
    const server = await startPrivateServer('influxdb', { influxQueryTimeout: '100ms' });
    try {
      await withDatabase(server.url, async (database, influx) => {
        await writePoints(influx, 200_000);
        const read = reader(database, server.url).columns('SELECT "y", "q", "v" FROM "scalar"', ['y', 'q'], ['v']);
        const error = await read.then(
          (columns) => new Error(`a cut answer was returned: ${columns.numbers[0]!.length} of 200000 rows`),
          (e: unknown) => e,
        );
        expect(isTransientStoreError(error), String(error)).toBe(true);
        const parsed = reader(database, server.url).parsed('SELECT * FROM "scalar"', () => new ScalarCsvParser());
        const parseError = await parsed.then(
          ({ rows }) => new Error(`a cut answer was returned: ${rows.length} of 200000 rows`),
          (e: unknown) => e,
        );
        expect(isTransientStoreError(parseError), String(parseError)).toBe(true);
      });
    } finally {
      await server.stop();
    }
  }, 120_000);
});
