/**
 * Where a partition's single writer is enforced: right before each store
 * call of a batch (every retry included) and before its acknowledgement.
 * The call is issued only while the lease is certainly valid
 * (PartitionOwnership.holds: renewed less than 0.8 TTL ago), so a writer
 * that was paused or cut off mid-batch stops at its next step instead of
 * finishing the batch over the next owner's writes (docs/scaling.md,
 * "Writer leases").
 *
 * It also remembers when the batch's first and last calls were issued: the
 * writer logs them with the batch, which is how a test proves that two
 * writers never wrote one partition at the same time.
 */
import { LeaseLost } from './store-retry.js';

export interface IssueSpan {
  /** Epoch ms of the first and the last store call issued. */
  issuedFrom: number;
  issuedTo: number;
}

export class WriteFence {
  private first = 0;
  private last = 0;

  constructor(
    private readonly partition: number,
    private readonly holds: () => boolean,
  ) {}

  /** Called right before a store call is issued: throws LeaseLost when the lease may have passed to another writer. */
  pass(): void {
    if (!this.holds())
      throw new LeaseLost(
        `partition ${this.partition}: lease not renewed in time; the batch is left for the next owner`,
      );
    const now = Date.now();
    if (this.first === 0) this.first = now;
    this.last = now;
  }

  /** The calls issued since the last take (undefined: none), and starts over. */
  take(): IssueSpan | undefined {
    const span = this.first === 0 ? undefined : { issuedFrom: this.first, issuedTo: this.last };
    this.first = 0;
    this.last = 0;
    return span;
  }
}
