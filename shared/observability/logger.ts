/**
 * Structured logs (pino). One root logger per process, built at the
 * composition root; requests get child loggers bound to their call id.
 * Secrets never reach the log: authorization headers, cookies and keys are
 * redacted by path.
 *
 * JSON lines, one per entry, for files, pipes and log collectors; for a
 * person at a terminal (LOG_FORMAT=auto and standard output a TTY, or
 * LOG_FORMAT=pretty) the same entries pass through pino-pretty in this
 * process, synchronously, so that nothing is lost when the process exits.
 */
import { pino, type Logger, type DestinationStream } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { Config } from '../config/config.js';

export type { Logger } from 'pino';

export type LogFormat = Config['LOG_FORMAT'];

/** What `auto` means on this output. */
export function resolveLogFormat(format: LogFormat, outputIsTerminal: boolean): 'json' | 'pretty' {
  return format === 'auto' ? (outputIsTerminal ? 'pretty' : 'json') : format;
}

function prettyStream(): DestinationStream {
  return PinoPretty({
    destination: 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'hostname',
  });
}

export function createLogger(options: {
  level: string;
  name: string;
  format?: LogFormat;
  destination?: DestinationStream;
}): Logger {
  const pretty =
    options.destination === undefined &&
    resolveLogFormat(options.format ?? 'json', process.stdout.isTTY === true) === 'pretty';
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          'headers.authorization',
          'headers.cookie',
          '*.secret_key',
          'secret_key',
          'token',
        ],
        censor: '[redacted]',
      },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    pretty ? prettyStream() : options.destination,
  );
}
