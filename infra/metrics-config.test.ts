/**
 * The example Prometheus configuration and Grafana dashboard in `infra/` (docs/operations.md
 * "Metrics"): the scrape jobs reach each service of docker-compose.yml on the port it serves
 * `/metrics` on by default, and every series the dashboard queries is one the services expose.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ApiConfig } from '@agent-warden/api';
import { GatewayConfig } from '@agent-warden/gateway';
import { IntelligenceConfig } from '@agent-warden/intelligence-service';
import { ProjectorConfig } from '@agent-warden/projector';
import { createMetrics } from '@agent-warden/observability';

const ROOT = join(__dirname, '..');

interface ScrapeConfig {
  job_name: string;
  metrics_path?: string;
  dns_sd_configs?: { names: string[]; type: string; port: number }[];
}
interface Target {
  expr: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
  datasource?: { type: string; uid: string };
}

/** `/metrics` port of each compose service with the services' own defaults. */
function defaultPorts(): Record<string, number> {
  const env = { DATABASE_URL: 'postgresql://x', KAFKA_BROKERS: 'kafka:9092', REDIS_URL: 'redis://redis' };
  return {
    gateway: GatewayConfig.parse(env).PORT,
    api: ApiConfig.parse({ ...env, WARDEN_JWT_SECRET: 'a session secret of at least thirty-two chars' }).PORT,
    projector: ProjectorConfig.parse(env).WARDEN_METRICS_PORT,
    intelligence: IntelligenceConfig.parse(env).WARDEN_METRICS_PORT,
  };
}

describe('infra/prometheus/prometheus.yml', () => {
  const config = parse(readFileSync(join(ROOT, 'infra/prometheus/prometheus.yml'), 'utf8')) as {
    scrape_configs: ScrapeConfig[];
  };
  const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, unknown>;
  };

  test('scrapes every replica of each service on its default /metrics port', () => {
    const ports = defaultPorts();
    expect(ports).toEqual({ gateway: 7401, api: 7402, projector: 9403, intelligence: 9404 });
    const jobs = Object.fromEntries(
      config.scrape_configs.map((c) => [c.dns_sd_configs?.[0]?.names[0], c] as const),
    );
    for (const [service, port] of Object.entries(ports)) {
      expect(compose.services[service]).toBeDefined();
      const job = jobs[service];
      expect(job).toBeDefined();
      expect(job!.metrics_path).toBe('/metrics');
      expect(job!.dns_sd_configs).toEqual([expect.objectContaining({ names: [service], type: 'A', port })]);
    }
    expect(new Set(config.scrape_configs.map((c) => c.job_name)).size).toBe(config.scrape_configs.length);
  });
});

describe('infra/grafana/agent-warden.json', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'infra/grafana/agent-warden.json'), 'utf8')) as {
    uid: string;
    panels: Panel[];
    templating: { list: { name: string; type: string; query: string }[] };
  };
  const panels = dashboard.panels.filter((p) => p.type !== 'row');

  test('has the panels an operator looks at first', () => {
    const titles = panels.map((p) => p.title);
    for (const t of [
      'Ingest rate',
      'Guard check latency p50 / p99',
      'Guard decisions',
      'Consumer lag per partition',
      'Job queue depth',
      'Approvals pending',
    ])
      expect(titles).toContain(t);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    for (const p of panels) {
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length).toBeGreaterThan(0);
    }
  });

  test('queries only series the services expose', async () => {
    // Every source observed, as the services together do: each family is in the registry.
    const metrics = createMetrics({ processMetrics: true });
    metrics.observeConsumerLag(async () => []);
    metrics.observeQueue('session-ready', async () => ({ waiting: 0, active: 0, delayed: 0, failed: 0 }));
    metrics.observePendingApprovals(async () => 0);
    metrics.observeEvaluationRecorder(async () => ({ buffered: 0, published: 0, rejected: 0, lost: 0 }));
    await metrics.scrape();
    const families = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    const used = new Set(
      panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) => t.expr.match(/\b(?:warden|process|nodejs)_[a-z0-9_]+\b/g) ?? []),
      ),
    );
    expect(used.size).toBeGreaterThan(10);
    for (const name of used) {
      const family = name.replace(/_(bucket|sum|count)$/, '');
      expect({ name, exposed: families.has(name) || families.has(family) }).toEqual({ name, exposed: true });
    }
  });
});
