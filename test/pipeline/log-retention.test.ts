// Faults issue, item 2: Redis log streams get a retention setting, applied by the writer. Configured
// through the service: a task keeps its newest LOG_RETENTION_MAX_LINES lines.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({ target: 'all', env: { LOG_RETENTION_MAX_LINES: '3' } });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

it('a task keeps its newest LOG_RETENTION_MAX_LINES log lines', async () => {
  const task = unique('ret-');
  const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ type: 'log', task, msg: `line ${i}`, timestamp: 1_718_000_000_000 + i }));
  const r = await h.call('events.add_batch', undefined, { token, headers: { 'content-type': 'application/json-lines' }, rawBody: lines.join('\n') });
  expect(r.status).toBe(200);
  const deadline = Date.now() + 15_000;
  let messages: string[] = [];
  // The newest line is stored with the others in one write: once it is readable, the trim has run.
  while (!messages.includes('line 9') && Date.now() < deadline) {
    const read = await h.call('events.get_task_log', { task, batch_size: 100 }, { token });
    messages = (read.body.data.events as Array<{ msg: string }>).map((e) => e.msg);
    if (!messages.includes('line 9')) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(messages.sort()).toEqual(['line 7', 'line 8', 'line 9']);
});
