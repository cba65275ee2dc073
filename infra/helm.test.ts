/**
 * The Helm chart (infra/helm/agent-warden, docs/operations.md "Kubernetes"), checked with the real
 * `helm`: `helm lint --strict`, then `helm template` rendered and read as a user's cluster would get
 * it. No cluster here, so the checks are structural: what objects exist, how they are wired, and
 * that the pods run unprivileged with secrets as files. `scripts/test.sh` provides `HELM_BIN`
 * (infra/helm/ensure-helm.sh builds helm from the Go module proxy when the machine has none).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const CHART = join(__dirname, 'helm/agent-warden');
const COMPONENTS = ['gateway', 'projector', 'intelligence', 'api'];

/** The helm binary: $HELM_BIN, else `helm` on PATH. Fails (never skips) when there is none. */
function helmBin(): string {
  const candidates = [process.env.HELM_BIN, 'helm'].filter((c): c is string => !!c);
  for (const c of candidates) if (spawnSync(c, ['version', '--short']).status === 0) return c;
  throw new Error('no helm binary: run `bash infra/helm/ensure-helm.sh` and set HELM_BIN to what it prints');
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function render(...args: string[]): K8sObject[] {
  const out = execFileSync(helmBin(), ['template', 'warden', CHART, '--kube-version', '1.30.0', ...args], {
    encoding: 'utf8',
  });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

const byKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];

describe('Helm chart infra/helm/agent-warden', () => {
  let objs: K8sObject[];
  beforeAll(() => {
    objs = render();
  });

  test('passes helm lint --strict', () => {
    const r = spawnSync(helmBin(), ['lint', '--strict', CHART], { encoding: 'utf8' });
    expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
  });

  test('renders one Deployment per service, each running its compiled entry point', () => {
    const deployments = byKind(objs, 'Deployment');
    expect(deployments.map(component).sort()).toEqual([...COMPONENTS].sort());
    for (const d of deployments) {
      const [c] = d.spec.template.spec.containers;
      expect(c.command).toEqual(['node', `services/${component(d)}/src/main.js`]);
      expect(c.image).toBe('agent-warden:0.1.0');
      // The selector picks only this component's pods.
      expect(d.spec.selector.matchLabels['app.kubernetes.io/component']).toBe(component(d));
      expect(d.spec.template.metadata.labels['app.kubernetes.io/component']).toBe(component(d));
    }
  });

  test('every pod runs as a non-root user, read-only root filesystem, no capabilities, with requests and limits', () => {
    const pods = [
      ...byKind(objs, 'Deployment').map((d) => d.spec.template.spec),
      ...byKind(objs, 'Job').map((j) => j.spec.template.spec),
    ];
    expect(pods).toHaveLength(5);
    for (const pod of pods) {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.resources.requests.memory).toBeTruthy();
        expect(c.resources.limits.memory).toBeTruthy();
        // Writable places only: the data and tmp scratch volumes.
        const writable = c.volumeMounts
          .filter((m: { readOnly?: boolean }) => !m.readOnly)
          .map((m: { mountPath: string }) => m.mountPath);
        expect(writable.sort()).toEqual(['/data', '/tmp']);
      }
    }
  });

  test('secrets reach the services as files from an existing Secret, never as values', () => {
    expect(byKind(objs, 'Secret')).toEqual([]);
    for (const d of [...byKind(objs, 'Deployment'), ...byKind(objs, 'Job')]) {
      const pod = d.spec.template.spec;
      const env = Object.fromEntries(
        pod.containers[0].env.map((e: { name: string; value: string }) => [e.name, e.value]),
      );
      expect(env.DATABASE_URL).toBeUndefined();
      expect(env.DATABASE_URL_FILE).toBe('/run/secrets/warden/database-url');
      expect(pod.volumes.find((v: { name: string }) => v.name === 'secrets').secret.secretName).toBe(
        'agent-warden',
      );
      expect(
        pod.containers[0].volumeMounts.find((m: { name: string }) => m.name === 'secrets'),
      ).toMatchObject({
        mountPath: '/run/secrets/warden',
        readOnly: true,
      });
    }
    const api = byKind(objs, 'Deployment').find((d) => component(d) === 'api')!;
    const names = api.spec.template.spec.containers[0].env.map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(['WARDEN_JWT_SECRET_FILE', 'WARDEN_INIT_API_KEY_FILE']));
    expect(names).not.toContain('WARDEN_JWT_SECRET');
  });

  test('liveness on /health and readiness on /ready, on the port the service listens on', () => {
    for (const d of byKind(objs, 'Deployment')) {
      const [c] = d.spec.template.spec.containers;
      const port = Number(c.env.find((e: { name: string }) => e.name === 'PORT').value);
      expect(c.ports).toEqual([{ name: 'http', containerPort: port }]);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
    }
  });

  test('each Deployment has a CPU HorizontalPodAutoscaler aimed at it; the projector stops at the partition count', () => {
    const hpas = byKind(objs, 'HorizontalPodAutoscaler');
    expect(hpas.map(component).sort()).toEqual([...COMPONENTS].sort());
    const deployments = new Map(byKind(objs, 'Deployment').map((d) => [d.metadata.name, d]));
    for (const h of hpas) {
      expect(h.apiVersion).toBe('autoscaling/v2');
      expect(deployments.has(h.spec.scaleTargetRef.name)).toBe(true);
      expect(h.spec.metrics).toEqual([
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } },
        },
      ]);
      expect(h.spec.minReplicas).toBeLessThanOrEqual(h.spec.maxReplicas);
      // With an HPA the Deployment leaves replicas to it.
      expect(deployments.get(h.spec.scaleTargetRef.name)!.spec.replicas).toBeUndefined();
    }
    expect(hpas.find((h) => component(h) === 'projector')!.spec.maxReplicas).toBeLessThanOrEqual(6);
  });

  test('migrations run as a pre-install / pre-upgrade hook Job', () => {
    const [job] = byKind(objs, 'Job');
    expect(job!.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'pre-install,pre-upgrade' });
    expect(job!.spec.template.spec.containers[0].command).toEqual([
      'node',
      'libs/migrations/src/cli/migrate.js',
    ]);
    expect(job!.spec.template.spec.restartPolicy).toBe('Never');
  });

  test('Services for the gateway and the api select their pods by port name', () => {
    const services = byKind(objs, 'Service');
    expect(services.map(component).sort()).toEqual(['api', 'gateway']);
    for (const s of services) {
      expect(s.spec.selector['app.kubernetes.io/component']).toBe(component(s));
      expect(s.spec.ports[0].targetPort).toBe('http');
    }
  });

  test('values change the output: fixed replicas without autoscaling, an Ingress when enabled', () => {
    const custom = render(
      '--set',
      'gateway.autoscaling.enabled=false',
      '--set',
      'gateway.replicas=3',
      '--set',
      'ingress.enabled=true',
      '--set',
      'kafka.brokers=k1:9092\\,k2:9092\\,k3:9092',
    );
    const gateway = byKind(custom, 'Deployment').find((d) => component(d) === 'gateway')!;
    expect(gateway.spec.replicas).toBe(3);
    expect(byKind(custom, 'HorizontalPodAutoscaler').map(component)).not.toContain('gateway');
    const env = gateway.spec.template.spec.containers[0].env.find(
      (e: { name: string }) => e.name === 'KAFKA_BROKERS',
    );
    expect(env.value).toBe('k1:9092,k2:9092,k3:9092');
    const [ingress] = byKind(custom, 'Ingress');
    const backends = ingress!.spec.rules.map(
      (r: { http: { paths: { backend: { service: { name: string } } }[] } }) =>
        r.http.paths[0]!.backend.service.name,
    );
    expect(backends).toEqual(['warden-agent-warden-gateway', 'warden-agent-warden-api']);
  });
});
