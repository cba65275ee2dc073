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
  secrets?: string[];
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  container_name?: string;
  restart?: string;
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
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
    // Replication from the container's environment (so the three-broker override can raise it).
    expect(
      text.match(
        /--replication-factor \$\$WARDEN_TOPIC_REPLICATION --config min\.insync\.replicas=\$\$WARDEN_TOPIC_MIN_ISR/g,
      ),
    ).toHaveLength(Object.values(TOPICS).length);
    expect(env('kafka-init')).toMatchObject({ WARDEN_TOPIC_REPLICATION: '1', WARDEN_TOPIC_MIN_ISR: '1' });
    expect(service('kafka-init').depends_on?.kafka?.condition).toBe('service_healthy');
  });

  test('infra/kafka/kafka.sh creates the same topics for the local broker', () => {
    const script = readFileSync(join(ROOT, 'infra/kafka/kafka.sh'), 'utf8');
    const m = /KAFKA_APP_TOPICS="\$\{KAFKA_APP_TOPICS:-([^}]*)\}"/.exec(script);
    expect(m?.[1]?.split(/\s+/).sort()).toEqual(Object.values(TOPICS).sort());
  });

  test('every long-running service has a healthcheck; one-shot jobs do not restart', () => {
    for (const [name, s] of Object.entries(compose.services)) {
      if (s.restart === 'no') continue;
      expect({ name, healthcheck: Array.isArray(s.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
    expect(service('migrate').restart).toBe('no');
    expect(service('kafka-init').restart).toBe('no');
  });

  test('no default passwords: secrets come from files through <NAME>_FILE', () => {
    const text = readFileSync(COMPOSE_FILE, 'utf8');
    expect(text).not.toMatch(/PASSWORD:-/);
    expect(text).not.toMatch(/postgresql:\/\/[^@\s]*:[^@\s]+@/); // no URL with a password
    expect(env('postgres').POSTGRES_PASSWORD).toBeUndefined();
    expect(env('postgres').POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    for (const name of APP) {
      const e = env(name);
      expect({ name, DATABASE_URL: e.DATABASE_URL }).toEqual({ name, DATABASE_URL: undefined });
      expect(e.DATABASE_URL_FILE).toBe('/run/secrets/database_url');
      expect(service(name).secrets).toContain('database_url');
    }
    expect(env('api').WARDEN_JWT_SECRET).toBeUndefined();
    expect(env('api').WARDEN_JWT_SECRET_FILE).toBe('/run/secrets/jwt_secret');
    // Every secret a service mounts is declared with a file that make-secrets.sh writes.
    const script = readFileSync(join(ROOT, 'infra/docker/make-secrets.sh'), 'utf8');
    for (const [name, s] of Object.entries(compose.services))
      for (const secret of s.secrets ?? []) {
        expect({ name, secret, file: compose.secrets?.[secret]?.file }).toEqual({
          name,
          secret,
          file: `./secrets/${secret}`,
        });
        expect(script).toMatch(new RegExp(`^write ${secret} `, 'm'));
      }
    expect(readFileSync(join(ROOT, '.gitignore'), 'utf8')).toMatch(/^\/secrets\/$/m);
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
    // The load balancer waits until a gateway answers, not until its container started.
    expect(dep('gateway-lb', 'gateway')).toBe('service_healthy');
  });

  test('every app command runs an entry point or npm script that exists', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of APP) {
      const cmd = commandText(service(name));
      // The image runs the compiled JavaScript (scripts/build-js.mjs) of a TypeScript entry point.
      const entry = cmd.match(/((?:services|libs)\/[\w-]+\/src\/[\w/-]+)\.js/)?.[1]?.concat('.ts');
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

  test('the Dockerfile builds a production image: compiled, pruned, non-root, a data volume, a HEALTHCHECK', () => {
    const dockerfile = readFileSync(join(ROOT, 'infra/docker/Dockerfile'), 'utf8');
    const stages = [...dockerfile.matchAll(/^FROM \S+ AS (\w+)$/gm)].map((m) => m[1]);
    expect(stages).toEqual(['manifests', 'deps', 'build', 'runtime']);
    const runtime = dockerfile.slice(dockerfile.indexOf('AS runtime'));
    expect(dockerfile).toMatch(/^RUN bash infra\/docker\/build-production\.sh$/m);
    const build = readFileSync(join(ROOT, 'infra/docker/build-production.sh'), 'utf8');
    expect(build).toMatch(/^node scripts\/build-js\.mjs$/m);
    expect(build).toMatch(/^npm prune --omit=dev/m);
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(runtime).toMatch(/WARDEN_DATA_DIR=\/data/);
    expect(runtime).toMatch(/chown node:node \/data/);
    expect(runtime).toMatch(/^HEALTHCHECK /m);
    expect(runtime).toMatch(/^CMD \["node", "services\/standalone\/src\/main\.js"\]$/m);
    expect(runtime).not.toMatch(/tsx/);
    expect(existsSync(join(ROOT, 'scripts/build-js.mjs'))).toBe(true);
    expect(existsSync(join(ROOT, 'tsconfig.build.json'))).toBe(true);
  });

  test('each app service runs its own entry point', () => {
    for (const name of LONG_RUNNING_APP) {
      expect(service(name).command).toEqual(['node', `services/${name}/src/main.js`]);
    }
    expect(service('migrate').command).toEqual(['node', 'libs/migrations/src/cli/migrate.js']);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // The same entry point as `npm run db:migrate` in a checkout.
    expect(pkg.scripts['db:migrate']).toBe('tsx libs/migrations/src/cli/migrate.ts');
  });

  test('app services get the connection settings they need, pointing at compose services', () => {
    for (const name of LONG_RUNNING_APP) {
      const e = env(name);
      expect(e.DATABASE_URL_FILE).toBe('/run/secrets/database_url');
      if (name !== 'intelligence') expect(e.KAFKA_BROKERS).toBe('${WARDEN_KAFKA_BROKERS:-kafka:9092}');
      expect(e.REDIS_URL).toBe('redis://redis:6379');
      expect(e.LOG_LEVEL).toBeTruthy();
      expect(e.PORT).toMatch(/^\d+$/);
    }
    expect(env('migrate').DATABASE_URL_FILE).toBe(env('gateway').DATABASE_URL_FILE);
    expect(env('gateway').PORT).toBe('7401');
    expect(env('api').PORT).toBe('7402');
    expect(env('intelligence').PORT).toBe('7404');
    expect(env('api').WARDEN_INIT_API_KEY_FILE).toBe('/run/secrets/init_api_key');
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

describe('infra/compose/kafka-cluster.yml (three brokers)', () => {
  // Compose's `!reset` tag (drop the base file's value) read as an empty sequence.
  const reset = { tag: '!reset', collection: 'seq' as const, resolve: () => [] };
  const override = parse(readFileSync(join(ROOT, 'infra/compose/kafka-cluster.yml'), 'utf8'), {
    merge: true,
    customTags: [reset],
  }) as Compose;
  const brokers = ['kafka', 'kafka-2', 'kafka-3'];
  const envOf = (name: string) =>
    Object.fromEntries(
      Object.entries(override.services[name]?.environment ?? {}).map(([k, v]) => [
        k,
        v == null ? '' : String(v),
      ]),
    );

  test('three KRaft nodes, each broker and controller, voting together, with distinct ids', () => {
    const ids = brokers.map((b) => envOf(b).KAFKA_NODE_ID);
    expect(ids).toEqual(['1', '2', '3']);
    for (const b of brokers) {
      const e = envOf(b);
      expect(e.KAFKA_CONTROLLER_QUORUM_VOTERS).toBe('1@kafka:9093,2@kafka-2:9093,3@kafka-3:9093');
      expect(e.KAFKA_PROCESS_ROLES).toBe('broker,controller');
      expect(e.KAFKA_ADVERTISED_LISTENERS).toBe(`PLAINTEXT://${b}:9092`);
      expect(e.CLUSTER_ID).toBe(env('kafka').CLUSTER_ID);
    }
    for (const b of ['kafka-2', 'kafka-3']) {
      expect(override.services[b]?.image).toBe(service('kafka').image);
      expect(override.services[b]?.healthcheck?.test).toBeDefined();
      const volume = (override.services[b]?.volumes ?? [])[0]?.split(':')[0] ?? '';
      expect(volume in (override.volumes ?? {})).toBe(true);
    }
  });

  test('replication factor 3 and min.insync.replicas 2 for every topic, internal ones included', () => {
    for (const b of brokers) {
      expect(envOf(b)).toMatchObject({
        KAFKA_DEFAULT_REPLICATION_FACTOR: '3',
        KAFKA_MIN_INSYNC_REPLICAS: '2',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '3',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '3',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '2',
      });
    }
    // kafka-init creates the application topics with these (its command reads them at run time).
    expect(envOf('kafka-init')).toEqual({ WARDEN_TOPIC_REPLICATION: '3', WARDEN_TOPIC_MIN_ISR: '2' });
    expect(override.services['kafka-init']?.depends_on?.['kafka-3']?.condition).toBe('service_healthy');
  });

  test('the services that use Kafka get all three brokers', () => {
    for (const name of ['gateway', 'projector', 'api'])
      expect(envOf(name).KAFKA_BROKERS).toBe('kafka:9092,kafka-2:9092,kafka-3:9092');
  });
});
