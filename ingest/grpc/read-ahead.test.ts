import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { limitReadAhead } from './read-ahead.js';

/** An object-mode source that has a message whenever asked; counts what it was asked for. */
function source() {
  let produced = 0;
  const stream = new Readable({
    objectMode: true,
    read() {
      this.push({ n: produced++ });
    },
  });
  return {
    stream,
    get produced() {
      return produced;
    },
  };
}

describe('limitReadAhead', () => {
  it('lets a stream read at most the given number of messages ahead of its reader', async () => {
    const limited = source();
    expect(limitReadAhead(limited.stream, 1)).toBe(true);
    const messages = limited.stream.iterator({ destroyOnReturn: false });
    expect((await messages.next()).value).toEqual({ n: 0 });
    expect((await messages.next()).value).toEqual({ n: 1 });
    // Node reads ahead in a callback of the current turn (maybeReadMore, a nextTick); it has run after this.
    await new Promise((resolve) => setImmediate(resolve));
    // Two taken by the reader, one waiting: nothing more was asked of the source.
    expect(limited.produced).toBe(3);
    expect(limited.stream.readableLength).toBe(1);
  });

  it('is needed: by default an object-mode stream reads 16 messages ahead', async () => {
    const unlimited = source();
    const messages = unlimited.stream.iterator({ destroyOnReturn: false });
    await messages.next();
    await messages.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(unlimited.produced).toBe(18);
    expect(unlimited.stream.readableHighWaterMark).toBe(16);
  });
});
