/**
 * Entry of the writer thread of an `all` process (WRITER_THREAD): the writer
 * target on its own event loop, so that storing events does not wait behind
 * parsing them (and the other way round) and the process uses a second core.
 * It serves no HTTP: the main thread answers /ready and /metrics with what
 * this thread reports.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { writerTarget } from '../../ingest/writer-target.js';
import { createLogger } from '../observability/logger.js';
import { startService } from './service.js';
import type { HostRequest, ThreadMessage, WriterThreadData } from './writer-thread-messages.js';

const port = parentPort!;
const post = (message: ThreadMessage) => port.postMessage(message);
const { config, logFormat } = workerData as WriterThreadData;
const logger = createLogger({ level: config.LOG_LEVEL, name: 'clearml-all', format: logFormat }).child({
  thread: 'writer',
});

try {
  const service = await startService({
    target: 'writer',
    config,
    logger,
    modules: { writer: writerTarget },
    serveHttp: false,
    metricsTarget: 'all',
  });
  port.on('message', (request: HostRequest) => {
    switch (request.type) {
      case 'metrics':
        void service.services.metrics.metrics().then((text) => post({ type: 'metrics', id: request.id, text }));
        break;
      case 'ready':
        void service.services.readiness().then((report) => post({ type: 'ready', id: request.id, report }));
        break;
      case 'stop':
        void service.stop().then(() => {
          post({ type: 'stopped' });
          port.close();
        });
        break;
    }
  });
  post({ type: 'started' });
} catch (error) {
  logger.error({ err: error }, 'writer thread failed to start');
  post({ type: 'failed', message: (error as Error).message });
  port.close();
}
