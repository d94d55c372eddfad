// docs/ingest.md "Bounded resources": a spill file leaves nothing behind, reads back what was
// written, and a disk that fails answers the request 503 (the client re-sends), never a 500.
import { readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillFile } from './spill-file.js';

describe('SpillFile', () => {
  it('reads back what was written, and is never visible in its directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    const file = new SpillFile(dir);
    expect(readdirSync(dir)).toEqual([]);
    const a = file.write(Buffer.from('hello '), 6);
    const b = file.write(Buffer.from('world!!'), 5);
    const target = Buffer.alloc(11);
    await file.read(b, target, 6);
    await file.read(a, target, 0);
    expect(target.toString()).toBe('hello world');
    await file.close();
  });

  it('tells the decoder to wait while more than a MiB of its writes are under way (a slow disk holds their buffers)', async () => {
    const file = new SpillFile();
    expect(file.backlog()).toBeUndefined();
    for (let i = 0; i < 4; i++) file.write(Buffer.alloc(512 * 1024), 512 * 1024);
    const wait = file.backlog();
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(file.backlog()).toBeUndefined();
    await file.close();
  });

  it('a spill directory that cannot be used is answered 503', () => {
    expect(() => new SpillFile('/nonexistent/spill/dir')).toThrow(
      expect.objectContaining({ id: 'events_not_persisted' }),
    );
  });
});
