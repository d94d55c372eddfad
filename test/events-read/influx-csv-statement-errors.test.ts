// InfluxDB's CSV answers leave out a statement's error (InfluxDB 1.6 writes only a request-level
// error in CSV): a CSV read must not take a failed statement for an empty answer.
import { inject, describe, expect, it } from 'vitest';
import { InfluxCsvReader } from '../../query/events/store/influx-csv.js';
import { InfluxStore } from '../../shared/stores/influx-store.js';
import { isTransientStoreError } from '../../shared/stores/store-errors.js';
import { unique } from '../harness/service-harness.js';

const reader = (database: string) =>
  new InfluxCsvReader({ INFLUX_URL: inject('stack').influxUrl, INFLUX_DB: database, INFLUX_TIMEOUT_MS: 10_000 });

describe('InfluxCsvReader', () => {
  it('fails a statement InfluxDB failed, as the JSON reader does (the database gone: not transient)', async () => {
    const missing = unique('gone');
    const read = reader(missing).columns('SELECT "y" FROM "scalar"', ['y']);
    await expect(read).rejects.toThrow(`database not found: ${missing}`);
    const error = await read.catch((e: unknown) => e);
    expect(isTransientStoreError(error)).toBe(false);
  });

  it('answers an empty result as empty, and rows as rows', async () => {
    const database = unique('csv');
    const influx = new InfluxStore({ url: inject('stack').influxUrl, database });
    await influx.ensureDatabase();
    try {
      expect((await reader(database).columns('SELECT "y" FROM "scalar"', ['y'])).numbers[0]).toHaveLength(0);
      await influx.write('scalar,c=co y=0.5 1\nscalar,c=co y=2 2\n');
      expect([...(await reader(database).columns('SELECT "y" FROM "scalar"', ['y'])).numbers[0]!]).toEqual([0.5, 2]);
    } finally {
      await influx.query(`DROP DATABASE "${database}"`, { method: 'POST' });
    }
  });
});
