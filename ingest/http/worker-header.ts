type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** A header's first value; undefined when absent or empty. */
export function headerOf(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
}

/** The default `worker` of events: X-ClearML-Worker, else X-Trains-Worker (events.md §1.2). */
export function workerHeaderOf(headers: Headers): string | undefined {
  return headerOf(headers, 'x-clearml-worker') ?? headerOf(headers, 'x-trains-worker');
}
