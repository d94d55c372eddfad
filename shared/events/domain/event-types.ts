/** The five event types of the contract (events.md §1.1), for ingest's checks, the query's `event_type` enum and the importer. */
export const EVENT_TYPES = [
  'training_stats_scalar',
  'training_stats_vector',
  'training_debug_image',
  'plot',
  'log',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
