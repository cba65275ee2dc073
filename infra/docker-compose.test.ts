/**
 * Structure of docker-compose.yml (the scale-out stack for users). It cannot be started on the
 * CI machine (no Docker engine), so this checks what a broken file would get wrong: services,
 * images, environment, start order, scalability, and that every file it references exists.
 * When the `docker compose` CLI is present it also runs `docker compose config -q`, which needs
 * no engine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { TOPICS } from '@agent-warden/contracts';

const ROOT = join(__dirname, '..');
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');

interface DependsOn {
  condition?: string;
}
interface Healthcheck {
  test?: string[] | string;
}
interface Service {
  image?: string;
  build?: { context?: string; dockerfile?: string } | string;
  command?: string[] | string;
  entrypoint?: string[] | string;
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, DependsOn>;
  healthcheck?: Healthcheck;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  container_name?: string;
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

// `merge: true`: the file shares settings between app services with YAML merge keys (`<<`).
const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as Compose;

function service(name: string): Service {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service "${name}"`);
  return s;
}
function env(name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(service(name).environment ?? {})) out[k] = v == null ? '' : String(v);
  return out;
}
function commandText(s: Service): string {
  const parts = [s.entrypoint, s.command].flatMap((c) => (c == null ? [] : Array.isArray(c) ? c : [c]));
  return parts.join(' ');
}

const INFRA = ['kafka', 'kafka-init', 'postgres', 'redis'];
const APP = ['migrate', 'gateway', 'projector', 'api', 'intelligence'];
const LONG_RUNNING_APP = ['gateway', 'projector', 'api', 'intelligence'];
const SCALABLE = ['gateway', 'projector', 'intelligence'];

describe('docker-compose.yml', () => {
  test('has every expected service', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining([...INFRA, ...APP, 'gateway-lb']));
  });

  test('uses Kafka 3.9.x, PostgreSQL 15 and Redis 7 images', () => {
    expect(service('kafka').image).toMatch(/^apache\/kafka:3\.9\.\d+$/);
    expect(service('kafka-init').image).toBe(service('kafka').image);
    expect(service('postgres').image).toMatch(/^postgres:15(\.|$|-)/);
    expect(service('redis').image).toMatch(/^redis:7(\.|$|-)/);
  });

  test('runs Kafka as a single KRaft node with replication factor 1 and no topic auto-creation', () => {
    const e = env('kafka');
    expect(e.KAFKA_PROCESS_ROLES?.split(',').sort()).toEqual(['broker', 'controller']);
    expect(e.KAFKA_NODE_ID).toBe('1');
    expect(e.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka:9093');
    expect(e.KAFKA_CONTROLLER_LISTENER_NAMES).toBe('CONTROLLER');
    expect(e.KAFKA_ADVERTISED_LISTENERS).toContain('PLAINTEXT://kafka:9092');
    expect(e.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR).toBe('1');
    expect(e.KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR).toBe('1');
    expect(e.KAFKA_TRANSACTION_STATE_LOG_MIN_ISR).toBe('1');
    expect(e.KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
    expect(e.CLUSTER_ID).toBeTruthy();
  });

  test('kafka-init creates every topic named in libs/contracts', () => {
    const text = commandText(service('kafka-init'));
    expect(text).toContain('/opt/kafka/bin/kafka-topics.sh');
    for (const topic of Object.values(TOPICS)) {
      expect(text).toMatch(new RegExp(`--create --if-not-exists --topic ${topic.replace(/\./g, '\\.')} `));
    }
    expect(text).toMatch(/--topic agent-events --partitions \$\{WARDEN_EVENT_PARTITIONS:-6\}/);
    expect(service('kafka-init').depends_on?.kafka?.condition).toBe('service_healthy');
  });

  test('infra/kafka/kafka.sh creates the same topics for the local broker', () => {
    const script = readFileSync(join(ROOT, 'infra/kafka/kafka.sh'), 'utf8');
    const m = /KAFKA_APP_TOPICS="\$\{KAFKA_APP_TOPICS:-([^}]*)\}"/.exec(script);
    expect(m?.[1]?.split(/\s+/).sort()).toEqual(Object.values(TOPICS).sort());
  });

  test('PostgreSQL, Redis and Kafka have healthchecks', () => {
    for (const name of ['kafka', 'postgres', 'redis']) {
      expect(service(name).healthcheck?.test).toBeDefined();
    }
  });

  test('every service_healthy dependency has a healthcheck, every dependency exists', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      for (const [dep, how] of Object.entries(s.depends_on ?? {})) {
        expect({ name, dep, exists: dep in compose.services }).toEqual({ name, dep, exists: true });
        if (how.condition === 'service_healthy') {
          expect({ name, dep, healthcheck: Boolean(service(dep).healthcheck) }).toEqual({
            name,
            dep,
            healthcheck: true,
          });
        }
        if (how.condition === 'service_completed_successfully') {
          expect({ name, dep, restart: service(dep).restart }).toEqual({ name, dep, restart: 'no' });
        }
      }
    }
  });

  test('start order: migrate after postgres; services after migrate and their servers', () => {
    const dep = (name: string, on: string) => service(name).depends_on?.[on]?.condition;
    expect(dep('migrate', 'postgres')).toBe('service_healthy');
    for (const name of ['gateway', 'projector']) {
      expect(dep(name, 'kafka')).toBe('service_healthy');
      expect(dep(name, 'kafka-init')).toBe('service_completed_successfully');
      expect(dep(name, 'postgres')).toBe('service_healthy');
      expect(dep(name, 'migrate')).toBe('service_completed_successfully');
    }
    expect(dep('api', 'postgres')).toBe('service_healthy');
    expect(dep('api', 'migrate')).toBe('service_completed_successfully');
    for (const name of ['projector', 'api', 'intelligence'])
      expect(dep(name, 'redis')).toBe('service_healthy');
    expect(dep('intelligence', 'postgres')).toBe('service_healthy');
    expect(dep('intelligence', 'migrate')).toBe('service_completed_successfully');
  });

  test('every app command runs an entry point or npm script that exists', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of APP) {
      const cmd = commandText(service(name));
      const entry = cmd.match(/(services\/[\w-]+\/src\/[\w-]+\.ts)/)?.[1];
      const script = cmd.match(/npm run ([\w:-]+)/)?.[1];
      if (entry)
        expect({ name, entry, exists: existsSync(join(ROOT, entry)) }).toEqual({ name, entry, exists: true });
      else
        expect({ name, script, defined: script !== undefined && script in pkg.scripts }).toEqual({
          name,
          script,
          defined: true,
        });
    }
  });

  test('app services build from infra/docker/Dockerfile, which exists', () => {
    const images = new Set<string | undefined>();
    for (const name of APP) {
      const s = service(name);
      const build = typeof s.build === 'string' ? { context: s.build } : s.build;
      expect(build?.context).toBe('.');
      expect(build?.dockerfile).toBe('infra/docker/Dockerfile');
      images.add(s.image);
    }
    expect(images.size).toBe(1); // one image, built once
    const dockerfile = readFileSync(join(ROOT, 'infra/docker/Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/node:24-bookworm-slim/);
    expect(dockerfile).toMatch(/\bnpm install\b/);
  });

  test('each app service runs its own entry point', () => {
    for (const name of LONG_RUNNING_APP) {
      expect(service(name).command).toEqual(['npx', 'tsx', `services/${name}/src/main.ts`]);
    }
    expect(service('migrate').command).toEqual(['npm', 'run', 'db:migrate']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['db:migrate']).toBeTruthy();
  });

  test('app services get the connection settings they need, pointing at compose services', () => {
    for (const name of LONG_RUNNING_APP) {
      const e = env(name);
      expect(e.DATABASE_URL).toMatch(/^postgresql:\/\/warden(:[^@]*)?@postgres:5432\/warden$/);
      if (name !== 'intelligence') expect(e.KAFKA_BROKERS).toBe('kafka:9092');
      expect(e.REDIS_URL).toBe('redis://redis:6379');
      expect(e.LOG_LEVEL).toBeTruthy();
      expect(e.PORT).toMatch(/^\d+$/);
    }
    expect(env('migrate').DATABASE_URL).toBe(env('gateway').DATABASE_URL);
    expect(env('gateway').PORT).toBe('7401');
    expect(env('api').PORT).toBe('7402');
    expect(env('intelligence').PORT).toBe('7404');
    expect(env('gateway')).toHaveProperty('WARDEN_INIT_API_KEY');
    expect(env('api')).toHaveProperty('WARDEN_INIT_API_KEY');
  });

  test('scalable services have no container_name and no fixed host port', () => {
    for (const name of Object.keys(compose.services)) {
      expect({ name, container_name: service(name).container_name }).toEqual({
        name,
        container_name: undefined,
      });
    }
    for (const name of SCALABLE) {
      expect({ name, ports: service(name).ports }).toEqual({ name, ports: undefined });
    }
    expect(service('gateway').expose).toContain('7401');
  });

  test('gateway-lb publishes 7401 and proxies to the gateway replicas', () => {
    const lb = service('gateway-lb');
    expect(lb.ports?.some((p) => /:7401$/.test(p))).toBe(true);
    const mount = lb.volumes?.find((v) => v.includes('gateway-lb.conf'));
    expect(mount).toBeDefined();
    const conf = readFileSync(join(ROOT, (mount ?? '').split(':')[0] ?? ''), 'utf8');
    expect(conf).toMatch(/resolver 127\.0\.0\.11/);
    expect(conf).toMatch(/http:\/\/gateway:7401/);
  });

  test('every bind-mounted file exists and every named volume is declared', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      for (const v of s.volumes ?? []) {
        const source = v.split(':')[0] ?? '';
        if (source.startsWith('.') || source.startsWith('/')) {
          expect({ name, source, exists: existsSync(join(ROOT, source)) }).toEqual({
            name,
            source,
            exists: true,
          });
        } else {
          expect({ name, source, declared: source in (compose.volumes ?? {}) }).toEqual({
            name,
            source,
            declared: true,
          });
        }
      }
    }
  });

  // `docker compose config -q` would validate the file too, but this machine's docker client has no
  // compose plugin (infra/README.md); the structural checks above are what CI runs.
});
