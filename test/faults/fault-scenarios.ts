/**
 * The scenario table and how each fault is injected. Every component gets
 * kill -9 then restart and SIGSTOP for the pause then SIGCONT; the three
 * stores also a clean stop (SIGTERM, waited for) for the pause then start.
 *
 * "End of the fault", from which recovery is timed: for a kill, the kill
 * itself (the restart is part of recovering: the bench restarts a service
 * process at once, the stack's supervisor restarts a store after its 1 s
 * back-off); for a stall, the SIGCONT; for a stop, the start command.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StackServer } from '../../deploy/local-stack/stack-servers.js';
import { isServiceTarget, type Component, type FaultDeployment } from './fault-deployment.js';
import { sendSignal } from './service-process.js';

export type FaultKind = 'kill' | 'stall' | 'stop';

export interface Scenario {
  name: string;
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

export function scenario(component: Component, fault: FaultKind): Scenario {
  return { name: `${COMPONENT_NAMES[component]} ${FAULT_NAMES[fault]}`, component, fault };
}

export const ALL_SCENARIOS: readonly Scenario[] = (['ingest', 'writer', 'query', 'nats', 'influxdb', 'redis'] as const).flatMap((component) => [
  scenario(component, 'kill'),
  scenario(component, 'stall'),
  ...(isServiceTarget(component) ? [] : [scenario(component, 'stop')]),
]);

export interface InjectedFault {
  /** Epoch ms at which the fault ended. */
  endedAt: number;
  /** Settles when the component is back (restarted and answering); rejects if it did not come back. */
  back: Promise<void>;
}

export async function injectFault(deployment: FaultDeployment, target: Scenario, pauseMs: number, restartTimeoutMs: number): Promise<InjectedFault> {
  const { component } = target;
  const pid = deployment.pidOf(component);
  if (pid === undefined) throw new Error(`${COMPONENT_NAMES[component]} is not running`);
  switch (target.fault) {
    case 'kill': {
      if (isServiceTarget(component)) {
        const service = deployment.services[component];
        await service.kill();
        return { endedAt: Date.now(), back: service.start() };
      }
      sendSignal(pid, 'SIGKILL');
      const endedAt = Date.now();
      return { endedAt, back: storeRestarted(deployment, component, pid, restartTimeoutMs) };
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

/** The supervisor started a new process of the store and it answers. */
async function storeRestarted(deployment: FaultDeployment, server: StackServer, killedPid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (deployment.pidOf(server) === killedPid || deployment.pidOf(server) === undefined) {
    if (Date.now() > deadline) throw new Error(`${COMPONENT_NAMES[server]} was not restarted within ${timeoutMs} ms`);
    await sleep(100);
  }
  await deployment.waitStoreUp(server, Math.max(1_000, deadline - Date.now()));
}
