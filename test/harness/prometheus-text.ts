/**
 * Reads Prometheus' text exposition format (what /metrics answers): the
 * declared metric families with their types, and every sample.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  /** Metric family name -> type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(\s+\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/y;

export function parsePrometheusText(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ');
      types.set(name!, type!);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const inner = (match[2] ?? '{}').slice(1, -1);
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < inner.length) {
      const label = LABEL.exec(inner);
      if (!label) throw new Error(`bad labels in: ${line}`);
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { types, samples };
}

/** Sum of the samples of `name` whose labels include `labels`. */
export function sampleSum(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

export function hasSample(scrape: Scrape, name: string, labels: Record<string, string> = {}): boolean {
  return scrape.samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/**
 * Every series name a query may use: the families, plus the _bucket, _sum
 * and _count series of histograms and the _sum and _count of summaries.
 */
export function seriesNames(scrape: Scrape): Set<string> {
  const names = new Set<string>(scrape.samples.map((s) => s.name));
  for (const [name, type] of scrape.types) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}
