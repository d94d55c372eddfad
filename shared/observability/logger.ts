/**
 * Structured logs (pino). One root logger per process, built at the
 * composition root; requests get child loggers bound to their call id.
 * Secrets never reach the log: authorization headers, cookies and keys are
 * redacted by path.
 */
import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

export function createLogger(options: { level: string; name: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: {
        paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie', '*.secret_key', 'secret_key', 'token'],
        censor: '[redacted]',
      },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
