// Faults issue, item 2: Redis log streams get a retention setting, applied by the writer. Configured
// through the service: a task keeps its newest LOG_RETENTION_MAX_LINES lines.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, unique, type Harness } from '../harness/service-harness.js';
import { logLines, ndjson } from '../harness/event-builders.js';
import { eventually } from '../harness/eventually.js';

let h: Harness;
let token: string;
beforeAll(async () => {
  h = await startHarness({ target: 'all', env: { LOG_RETENTION_MAX_LINES: '3' } });
  token = await h.login(h.credentials.a);
});
afterAll(() => h?.stop());

it('a task keeps its newest LOG_RETENTION_MAX_LINES log lines', async () => {
  const task = unique('ret-');
  const r = await h.call('events.add_batch', undefined, {
    token,
    headers: { 'content-type': 'application/json-lines' },
    rawBody: ndjson(logLines(task, 10)),
  });
  expect(r.status).toBe(200);
  // The newest line is stored with the others in one write: once it is readable, the trim has run.
  const messages = await eventually(
    async () =>
      (
        (await h.call('events.get_task_log', { task, batch_size: 100 }, { token })).body.data.events as Array<{
          msg: string;
        }>
      ).map((e) => e.msg),
    (m) => m.includes('line 9'),
    { what: 'line 9' },
  );
  expect(messages.sort()).toEqual(['line 7', 'line 8', 'line 9']);
});
