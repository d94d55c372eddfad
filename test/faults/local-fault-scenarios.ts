/**
 * The scenario table of `npm run faults` and how each fault is injected. Every component gets
 * kill -9 then restart and SIGSTOP for the pause then SIGCONT; the three
 * stores also a clean stop (SIGTERM, waited for) for the pause then start.
 *
 * "End of the fault", from which recovery is timed: for a kill, the kill
 * itself (the restart is part of recovering: the bench restarts a service
 * process at once, the stack's supervisor restarts a store after its 1 s
 * back-off); for a stall, the SIGCONT; for a stop, the start command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultTiming, InjectedFault, Scenario } from './fault-deployment.js';
import { isServiceTarget, type Component, type LocalFaultDeployment } from './local-fault-deployment.js';
import { waitRestarted } from './restart-wait.js';
import { sendSignal } from './service-process.js';

export type FaultKind = 'kill' | 'stall' | 'stop';

export interface LocalScenario extends Scenario<LocalFaultDeployment> {
  component: Component;
  fault: FaultKind;
}

/** The executable names an SRE knows. */
export const COMPONENT_NAMES: Record<Component, string> = {
  ingest: 'ingest',
  writer: 'writer',
  query: 'query',
  nats: 'nats-server',
  influxdb: 'influxd',
  redis: 'redis-server',
};

const FAULT_NAMES: Record<FaultKind, string> = { kill: 'kill -9', stall: 'SIGSTOP', stop: 'stop' };

export function scenario(component: Component, fault: FaultKind): LocalScenario {
  return {
    name: `${COMPONENT_NAMES[component]} ${FAULT_NAMES[fault]}`,
    component,
    fault,
    inject: async (deployment, timing) => ({
      ...(await injectFault(deployment, component, fault, timing)),
      targets: [component],
    }),
  };
}

export const ALL_SCENARIOS: readonly LocalScenario[] = (
  ['ingest', 'writer', 'query', 'nats', 'influxdb', 'redis'] as const
).flatMap((component) => [
  scenario(component, 'kill'),
  scenario(component, 'stall'),
  ...(isServiceTarget(component) ? [] : [scenario(component, 'stop')]),
]);

async function injectFault(
  deployment: LocalFaultDeployment,
  component: Component,
  fault: FaultKind,
  { pauseMs, restartTimeoutMs }: FaultTiming,
): Promise<Omit<InjectedFault, 'targets'>> {
  const pid = deployment.pidOf(component);
  if (pid === undefined) throw new Error(`${COMPONENT_NAMES[component]} is not running`);
  switch (fault) {
    case 'kill': {
      if (isServiceTarget(component)) {
        const service = deployment.services[component];
        await service.kill();
        return { endedAt: Date.now(), back: service.start() };
      }
      sendSignal(pid, 'SIGKILL');
      const endedAt = Date.now();
      const back = waitRestarted({
        what: COMPONENT_NAMES[component],
        pidOf: () => deployment.pidOf(component),
        killedPid: pid,
        timeoutMs: restartTimeoutMs,
        answers: (left) => deployment.waitStoreUp(component, left),
      });
      return { endedAt, back };
    }
    case 'stall': {
      sendSignal(pid, 'SIGSTOP');
      try {
        await sleep(pauseMs);
      } finally {
        sendSignal(pid, 'SIGCONT');
      }
      return { endedAt: Date.now(), back: Promise.resolve() };
    }
    case 'stop': {
      if (isServiceTarget(component)) throw new Error('the stop scenario is for stores');
      await deployment.stopStore(component);
      await sleep(pauseMs);
      return { endedAt: Date.now(), back: deployment.startStore(component) };
    }
  }
}
