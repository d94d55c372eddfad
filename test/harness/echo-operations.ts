/**
 * Test fixtures for the protocol layer: operations that answer with the
 * call data they received, so tests can observe body parsing and the
 * query-string merge, and operations with other minimum versions, to
 * exercise version resolution (protocol.md §2.3).
 */
import { z } from 'zod';
import type { TargetModule } from '../../shared/launcher/target.js';
import { defineOperation } from '../../shared/protocol/operation.js';

const anything = z.record(z.string(), z.unknown());

export const echoTarget: TargetModule = () => ({
  operations: [
    defineOperation({ name: 'test.echo', minVersion: '1.0', request: anything, handle: async (request) => ({ received: request }) }),
    defineOperation({ name: 'test.newer', minVersion: '2.12', request: anything, handle: async () => ({}) }),
    defineOperation({ name: 'test.served', minVersion: '2.9', servedFrom: '1.0', request: anything, handle: async () => ({}) }),
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
