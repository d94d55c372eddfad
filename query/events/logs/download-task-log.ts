/**
 * events.download_task_log (events.md §6.2): the whole log, oldest first,
 * as a streamed plain-text attachment. Everything that can fail with an
 * enveloped error (line_format, the task) is checked before the first byte;
 * the body then pages through the log streams as the client reads it.
 */
import { Readable } from 'node:stream';
import { defineOperation, type Operation, type RawReply } from '../../../shared/protocol/operation.js';
import { requestSchema, str } from '../../../shared/protocol/request-fields.js';
import type { QueryDeps } from '../../query-deps.js';
import {
  compileLineFormat,
  DEFAULT_LINE_FORMAT,
  jsonLogLine,
  logLineTypeOf,
  type LogLineFormatter,
} from './log-line-format.js';
import { MergedLogReader } from '../store/log-stream-reader.js';
import { decodeLogEntry } from '../store/stored-events.js';

const READ_CHUNK = 5000;
const ANSWER_TYPE = 'text/plain';
/** Lines are handed to the response in pieces of about this many characters. */
const WRITE_PIECE = 64 * 1024;

const request = requestSchema({
  task: str({ required: true }),
  line_type: str(),
  line_format: str({ default: DEFAULT_LINE_FORMAT }),
});

export function downloadTaskLogOperation(deps: QueryDeps): Operation {
  return defineOperation({
    name: 'events.download_task_log',
    minVersion: '1.0',
    request,
    rawAnswer: {
      mediaType: ANSWER_TYPE,
      description: 'The whole log, oldest line first, as an attachment named task_<id>.log',
    },
    async handle(req, context): Promise<RawReply> {
      const render: (event: Record<string, unknown>) => string =
        logLineTypeOf(req.line_type) === 'json'
          ? jsonLogLine
          : (compileLineFormat(req.line_format) as LogLineFormatter);
      await deps.entities.requireOne(context.identity.company, 't', req.task);
      const reader = await MergedLogReader.open(deps.redis, deps.keyPrefix, req.task, {
        direction: 'asc',
        chunk: READ_CHUNK,
        readAhead: true,
      });
      return {
        raw: true,
        headers: {
          'content-type': ANSWER_TYPE,
          'content-disposition': `attachment; filename=${attachmentName(req.task)}`,
          'cache-control': 'no-store, max-age=0',
        },
        body: Readable.from(lines(reader, req.task, render, context.signal), { objectMode: false }),
      };
    },
  });
}

async function* lines(
  reader: MergedLogReader,
  task: string,
  render: (event: Record<string, unknown>) => string,
  signal: AbortSignal,
): AsyncGenerator<string> {
  let piece = '';
  for (let entry = await reader.next(); entry !== undefined; entry = await reader.next()) {
    if (signal.aborted) return;
    piece += render(decodeLogEntry(task, entry.id, entry.json).event);
    if (piece.length >= WRITE_PIECE) {
      yield piece;
      piece = '';
    }
  }
  if (piece !== '') yield piece;
}

/** `task_<id>.log`; characters a header cannot carry are percent-encoded. */
function attachmentName(task: string): string {
  const safe = /^[\x21-\x7e]*$/.test(task) && !/[";\\]/.test(task) ? task : encodeURIComponent(task);
  return `task_${safe}.log`;
}
