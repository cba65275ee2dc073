import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line of an exposition: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed `/metrics` answer: the families' types and every sample line. */
export interface Exposition {
  /** Family name → type (`COUNTER`, `GAUGE`, `HISTOGRAM`, …) from the `# TYPE` lines. */
  types: Map<string, string>;
  samples: Sample[];
}

/**
 * Parses a Prometheus text exposition with `parse-prometheus-text-format` (no regex): the whole
 * document first (it throws on a malformed line), then each sample line on its own, because the
 * library folds the samples of a labelled histogram together (its `flattenMetrics` keeps one
 * bucket set per family) while a lone line comes back as one untyped sample with its labels.
 */
export function parseExposition(text: string): Exposition {
  const types = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f.type] as const));
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    const [family] = parsePrometheusTextFormat(`${t}\n`);
    const sample = family?.metrics[0];
    if (!family || !sample || sample.value === undefined) throw new Error(`not a sample line: ${t}`);
    samples.push({ name: family.name, labels: sample.labels ?? {}, value: Number(sample.value) });
  }
  return { types, samples };
}

/** Samples named `name` whose labels include every pair of `labels`. */
export function samplesOf(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** Sum of the values of {@link samplesOf} (0 when there is none). */
export function total(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(e, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** GETs `url` (a `/metrics` endpoint) and parses the answer; throws on a non-200 or a non-text answer. */
export async function scrape(url: string): Promise<Exposition> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`GET ${url}: content-type ${type}`);
  return parseExposition(await res.text());
}
