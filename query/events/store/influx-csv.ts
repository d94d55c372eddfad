/**
 * Bulk reads (hundreds of thousands of points) in InfluxDB's CSV form:
 * measured on 1M points, InfluxDB answers CSV ~25% faster than JSON, and
 * its cells cost half of JSON.parse to read (csv-columns-parser.ts).
 * Answers are streamed (InfluxDB's chunked mode) and parsed as they arrive;
 * a statement sent after the read tells a whole answer from one InfluxDB cut.
 */
import {
  influxAuthorization,
  InfluxError,
  influxStoreFor,
  type InfluxConfig,
  type InfluxStore,
  QUERY_HEADERS,
} from '../../../shared/stores/influx-store.js';
import { influxHttp } from '../../../shared/stores/influx-http.js';
import { withInfluxLimit } from '../../../shared/stores/influx-call-limit.js';
import { UNTIMED, type StoreCalls } from '../../../shared/stores/store-calls.js';
import { StoreUnavailableError } from '../../../shared/stores/store-errors.js';
import { COMPLETION_STATEMENT, CsvColumnsParser, type CsvColumns } from './csv-columns-parser.js';
import { trimEndChar } from '../../../shared/text/trim-char.js';

/** Rows per chunk of a streamed answer (InfluxDB's default). */
const CHUNK_ROWS = 10_000;

/**
 * Rows per chunk of a bounded page (a LIMIT of ~1,000 rows). InfluxDB writes a chunk once it has
 * read its rows, so a page in one chunk arrives whole at the end and its ~3 ms of parsing starts
 * then; in chunks of 100 rows the parse keeps pace with InfluxDB and only the last chunk's ~0.3 ms
 * follows it. The next page of 1,000 scalars: api / (store + delivery) 1.21-1.31 in one chunk,
 * 1.08-1.19 in chunks of 100, InfluxDB's own time unchanged (docs/performance.md, "Pages in
 * chunks of 100 rows"). Unbounded reads keep the default: each chunk costs InfluxDB a flush.
 */
export const PAGE_CHUNK_ROWS = 100;

export interface CsvReadOptions {
  signal?: AbortSignal;
  /** Rows per chunk InfluxDB writes (CHUNK_ROWS when unset). */
  chunkRows?: number;
}

export class InfluxCsvReader {
  private readonly base: string;
  private readonly auth: string | undefined;
  /** Asks again in JSON when a CSV answer did not end whole: CSV leaves out a statement's error. */
  private readonly json: InfluxStore;

  constructor(
    private readonly config: InfluxConfig,
    private readonly calls: StoreCalls = UNTIMED,
  ) {
    this.base = trimEndChar(config.INFLUX_URL, '/');
    this.auth = influxAuthorization(config.INFLUX_USERNAME, config.INFLUX_PASSWORD);
    this.json = influxStoreFor(config, calls);
  }

  /**
   * The named columns of one statement's answer, in answer order: `numbers`
   * as numbers (`time` included when named), `strings` as text.
   */
  async columns(
    statement: string,
    numbers: readonly string[],
    strings: readonly string[] = [],
    signal?: AbortSignal,
  ): Promise<CsvColumns> {
    return this.whole(statement, signal, async () => {
      const parser = new CsvColumnsParser(numbers, strings);
      await this.stream(statement, (piece) => parser.pushBytes(piece), signal);
      const answer = parser.end();
      return { answer, complete: parser.complete, rows: parser.rowCount };
    });
  }

  /**
   * One statement's answer read by a parser of `newParser` piece by piece as it arrives (for
   * readers that work on bytes, scalar-csv-rows.ts); like `columns`, a cut answer is never returned
   * (a second read gets a parser of its own).
   */
  async parsed<T extends { complete: boolean; rows: { readonly length: number } }>(
    statement: string,
    newParser: () => { push(piece: Uint8Array): void; end(): T },
    { signal, chunkRows = CHUNK_ROWS }: CsvReadOptions = {},
  ): Promise<T> {
    return this.whole(statement, signal, async () => {
      const parser = newParser();
      await this.stream(statement, (piece) => parser.push(piece), signal, chunkRows);
      const answer = parser.end();
      return { answer, complete: answer.complete, rows: answer.rows.length };
    });
  }

  /** Sends the statement and the completion statement, and hands each piece of the answer to `read` as it comes. */
  private async stream(
    statement: string,
    read: (piece: Uint8Array) => void,
    signal?: AbortSignal,
    chunkRows = CHUNK_ROWS,
  ): Promise<void> {
    // Chunked: InfluxDB writes each chunk of rows once it has read them (a whole answer is held
    // and written at its end), and they are parsed as they come. The raw page of 200k points: api p50
    // 437-441 ms against 590-594 ms whole (docs/performance.md, "Streamed CSV reads").
    const params = new URLSearchParams({
      db: this.config.INFLUX_DB,
      q: `${statement}; ${COMPLETION_STATEMENT}`,
      epoch: 'ns',
      chunked: 'true',
      chunk_size: String(chunkRows),
    });
    const headers: Record<string, string> = { ...QUERY_HEADERS, accept: 'application/csv' };
    if (this.auth) headers.authorization = this.auth;
    await this.calls.time('influx', 'query_csv', () =>
      withInfluxLimit(this.config.INFLUX_TIMEOUT_MS, signal, async (limit) => {
        const response = await influxHttp.request(`${this.base}/query?${params}`, {
          method: 'GET',
          headers,
          limit,
        });
        if (response.statusCode !== 200) {
          const body = await response.body.text();
          throw new InfluxError(
            `InfluxDB query failed (${response.statusCode}): ${body.slice(0, 500)}`,
            response.statusCode,
          );
        }
        for await (const chunk of response.body) read(chunk);
      }),
    );
  }

  /**
   * The answer `read` gives, once it ended with the completion statement's, or was empty and no
   * failure; never a cut one. InfluxDB leaves a failed statement's error out of CSV: the JSON
   * answer, which carries it, tells a failure (database not found, engine closed at shutdown, the
   * query cut) from an empty database (no measurement for COMPLETION_STATEMENT to show). It throws
   * for a failure; rows in either answer mean the CSV one was cut, and a cut answer is never
   * returned. Except once: a CSV answer without a row, while the JSON one has some, is read again,
   * because a database without any measurement answers CSV with nothing at all, and its first
   * points may arrive between the two (a read racing the first write: it answered 503).
   */
  private async whole<A>(
    statement: string,
    signal: AbortSignal | undefined,
    read: () => Promise<{ answer: A; complete: boolean; rows: number }>,
  ): Promise<A> {
    for (let attempt = 1; ; attempt++) {
      const { answer, complete, rows } = await read();
      if (complete) return answer;
      const results = await this.json.query(statement, { signal });
      const jsonRows = results.some((r) => r.series?.some((series) => series.values.length > 0));
      if (rows === 0 && !jsonRows) return answer;
      if (rows === 0 && attempt === 1) continue;
      throw new StoreUnavailableError('influx', 'InfluxDB ended an answer before its end (the query was cut)');
    }
  }

  /** The selected number columns of one statement, as arrays in answer order. */
  async numericColumns(statement: string, columns: readonly string[], signal?: AbortSignal): Promise<Float64Array[]> {
    return (await this.columns(statement, columns, [], signal)).numbers;
  }
}
