/**
 * A normalised event with every field present, for tests that feed the
 * production encoder directly (bypassing the normaliser's checks on purpose).
 */
import type { NormalizedEvent } from '../events/event-normalizer.js';

export type EventSpec = Partial<NormalizedEvent> & Pick<NormalizedEvent, 'type' | 'entity'>;

export function normalizedEvent(spec: EventSpec): NormalizedEvent {
  return {
    namespace: 't',
    allowLocked: false,
    iter: undefined,
    timestamp: 1_700_000_000_000,
    metric: '',
    variant: '',
    worker: 'w1',
    value: undefined,
    values: undefined,
    url: undefined,
    key: undefined,
    plotStr: undefined,
    skipValidation: undefined,
    level: undefined,
    msg: undefined,
    xAxisLabel: undefined,
    ...spec,
  };
}
