/**
 * How many events an add_batch request may hold for its size: 1,000, and
 * then one per 16 bytes (gRPC messages) or characters (HTTP bodies). The
 * smallest event is two bytes (`{}`, an empty protobuf Event), and parsing
 * and checking it costs about a microsecond: a body of nothing else cost an
 * ingest process ~430 ns of CPU a byte (and protobuf-es 4.9 GB of heap for a
 * 63 MiB message), against 100-210 ns a byte for log lines. Honest events
 * are 40 bytes or more (a task id alone is 34), so the bound only ever meets
 * bodies of invalid events.
 */
import { apiError, type ApiError } from '../../shared/errors/error-catalogue.js';

export function maxEventsForSize(size: number): number {
  return 1_000 + Math.floor(size / 16);
}

/** A gRPC message (AddBatch, or a StreamEvents chunk) holding more events than its size allows. */
export function tooManyEventsInBytesError(bytes: number): ApiError {
  return apiError(
    'validation_error',
    `request holds more than ${maxEventsForSize(bytes)} events in ${bytes} bytes: at most 1000 and one per 16 bytes`,
  );
}

/** A JSON body (an array of events) holding more events than its length allows. */
export function tooManyEventsInTextError(characters: number): ApiError {
  return apiError(
    'validation_error',
    `request holds more than ${maxEventsForSize(characters)} events in ${characters} characters: at most 1000 and one per 16 characters`,
  );
}

/**
 * The bound over the lines of an NDJSON body as they arrive, so that a body
 * of short lines is refused at the first line beyond it rather than after
 * all of them were parsed. Each non-blank line counts its characters and one
 * for its separator, whatever the separator and however the body is chunked.
 */
export class LineEventDensity {
  private events = 0;
  private characters = 0;

  /** Counts a non-blank line of `length` characters; 400/12 once the lines so far hold more events than they may. */
  add(length: number): void {
    this.events++;
    this.characters += length + 1;
    if (this.events > maxEventsForSize(this.characters))
      throw apiError(
        'validation_error',
        `request holds more than ${maxEventsForSize(this.characters)} events in its first ${this.characters} characters of lines: at most 1000 and one per 16 characters`,
      );
  }
}
