/**
 * Test fixtures for the protocol layer: operations that answer with the
 * call data they received, so tests can observe body parsing and the
 * query-string merge, and operations with other minimum versions, to
 * exercise version resolution (protocol.md §2.3), and a streamed answer
 * that can fail mid-way.
 */
import { z } from 'zod';
import type { TargetModule } from '../../shared/launcher/target.js';
import { defineOperation, JsonStream } from '../../shared/protocol/operation.js';

const anything = z.record(z.string(), z.unknown());

export const echoTarget: TargetModule = () => ({
  operations: [
    defineOperation({
      name: 'test.echo',
      minVersion: '1.0',
      request: anything,
      handle: async (request) => ({ received: request }),
    }),
    defineOperation({ name: 'test.newer', minVersion: '2.12', request: anything, handle: async () => ({}) }),
    defineOperation({
      name: 'test.served',
      minVersion: '2.9',
      servedFrom: '1.0',
      request: anything,
      handle: async () => ({}),
    }),
    defineOperation({
      name: 'test.stream',
      minVersion: '1.0',
      request: z.object({ parts: z.number().int(), fail_after: z.number().int().optional() }),
      handle: async ({ parts, fail_after }: { parts: number; fail_after?: number }) =>
        new JsonStream(async function* () {
          yield Buffer.from('{"items":[');
          for (let i = 0; i < parts; i++) {
            if (i === fail_after) throw new Error('store failed mid-answer');
            // Big enough to leave the process before the failure.
            yield Buffer.from(`${i > 0 ? ',' : ''}"${String(i).repeat(1 + 64 * 1024)}"`);
          }
          yield Buffer.from(`],"count":${parts}}`);
        }),
    }),
    defineOperation({
      name: 'test.identity',
      minVersion: '1.0',
      request: anything,
      handle: async (_request, context) => ({ company: context.identity.company, user: context.identity.user }),
    }),
  ],
});

/** One module contributing the parts of several (a real target plus fixtures). */
export function combineModules(...modules: TargetModule[]): TargetModule {
  return (services) => {
    const parts = modules.map((module) => module(services));
    return {
      operations: parts.flatMap((p) => p.operations ?? []),
      components: parts.flatMap((p) => p.components ?? []),
      readiness: parts.flatMap((p) => p.readiness ?? []),
    };
  };
}
