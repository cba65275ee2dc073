/** Types of `parse-prometheus-text-format` 1.1 (the package ships none): what the tests use. */
declare module 'parse-prometheus-text-format' {
  interface ParsedSample {
    value?: string;
    labels?: Record<string, string>;
  }
  interface ParsedFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: ParsedSample[];
  }
  /** Parses a Prometheus text exposition (format 0.0.4); throws `InvalidLineError` on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
