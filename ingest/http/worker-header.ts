/** The default `worker` of events: X-ClearML-Worker, else X-Trains-Worker (events.md §1.2). */
export function workerHeaderOf(headers: Readonly<Record<string, string | string[] | undefined>>): string | undefined {
  const value = headers['x-clearml-worker'] ?? headers['x-trains-worker'];
  return Array.isArray(value) ? value[0] : value || undefined;
}
