/**
 * The answers of one StreamEvents call as a queue a client can await with
 * a timeout: acks, then at most one end (a failure status, or a normal end).
 */
import { status as GrpcCode, type ClientDuplexStream, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import type { ChunkAck } from '../../ingest/grpc/gen/clearml/events/v1/events_ingest_pb.js';

export type StreamEvent = { kind: 'ack'; ack: ChunkAck } | { kind: 'failed'; error: ServiceError } | { kind: 'ended' };

export class StreamInbox {
  private readonly queue: StreamEvent[] = [];
  private waiter?: () => void;
  private finished = false;

  constructor(stream: ClientDuplexStream<Buffer, ChunkAck>) {
    stream.on('data', (ack: ChunkAck) => this.push({ kind: 'ack', ack }));
    stream.on('error', (error: ServiceError) => this.finish({ kind: 'failed', error }));
    stream.on('status', (status: StatusObject) => {
      if (status.code === GrpcCode.OK) this.finish({ kind: 'ended' });
    });
  }

  /** The next event, or undefined when none came within timeoutMs. */
  async next(timeoutMs: number): Promise<StreamEvent | undefined> {
    if (this.queue.length === 0) await this.arrival(timeoutMs);
    return this.queue.shift();
  }

  /** Waits (at most timeoutMs) until the call has ended. */
  async closed(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.finished && Date.now() < deadline) await this.arrival(deadline - Date.now());
  }

  private arrival(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.waiter === done) self.waiter = undefined;
        resolve();
      }
      this.waiter = done;
    });
  }

  private push(event: StreamEvent): void {
    this.queue.push(event);
    this.waiter?.();
  }

  private finish(event: StreamEvent): void {
    if (this.finished) return;
    this.finished = true;
    this.push(event);
  }
}
