// docker-compose.yml end to end with testcontainers, where a Docker engine exists: the stack built and
// started on free ports, an instrumented app on this machine sending to its collector, and the
// result read back from Prometheus, Redis, the processor and Grafana (provisioned data source and
// dashboards, a panel query through Grafana). Without an engine the suite reports itself skipped and why.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { StartedDockerComposeEnvironment } from 'testcontainers';
import { LANES_DASHBOARD_UID } from '../../grafana/src/lanes-dashboard.ts';
import { PROCESSOR_DASHBOARD_UID } from '../../grafana/src/processor-dashboard.ts';
import { MILESTONE_SERIES } from '../../grafana/src/series.ts';
import { freePort } from '../stack/index.ts';
import { makeCanaries } from './canaries.ts';
import { type InstrumentedApp, startInstrumentedApp } from './instrumented-app.ts';
import { eventually } from './pipeline-stack.ts';
import { closeProviderLanes, laneMapOf, type ProviderLane, startProviderLanes } from './provider-lanes.ts';
import { keysUnderPrefix } from './redis-keys.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Why the suite cannot run here, or undefined when it can. A `docker` CLI is not an engine: ask
 * testcontainers, which tries DOCKER_HOST, the config files and the usual sockets and pings the
 * daemon; then the compose plugin, which the suite drives.
 */
async function dockerUnavailable(): Promise<string | undefined> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
  } catch (error) {
    return `no Docker engine reachable (${error instanceof Error ? error.message : String(error)})`;
  }
  try {
    await promisify(execFile)('docker', ['compose', 'version'], { timeout: 30_000 });
  } catch {
    return 'a Docker engine, but no `docker compose` plugin';
  }
  return undefined;
}

const skip = await dockerUnavailable();

// Without an engine: one skipped test carrying the reason, so the run's summary counts it.
if (skip === undefined) composeSuite();
else test('docker-compose.yml with testcontainers', { skip }, () => {});

// A cold build compiles the collector (minutes; collector-config/README.md has measured times).
function composeSuite(): void {
  describe('docker-compose.yml with testcontainers', { timeout: 60 * 60_000 }, () => {
    const prefix = `lanewatch-compose-${randomBytes(4).toString('hex')}`;
    const ports: Record<string, number> = {};
    let environment: StartedDockerComposeEnvironment | undefined;
    let lanes: ProviderLane[] = [];
    let app: InstrumentedApp | undefined;
    const grafanaAuth = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
    const grafana = (path: string, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${ports.grafana}${path}`, {
        ...init,
        headers: { authorization: grafanaAuth, 'content-type': 'application/json', ...init.headers },
      });

    before(async () => {
      const { DockerComposeEnvironment, Wait } = await import('testcontainers');
      for (const name of ['otlpGrpc', 'otlpHttp', 'health', 'prometheus', 'grafana', 'redis', 'processor']) {
        ports[name] = await freePort();
      }
      environment = await new DockerComposeEnvironment(repoRoot, 'docker-compose.yml')
        .withBuild()
        .withEnvironment({
          LANEWATCH_OTLP_GRPC_PORT: String(ports.otlpGrpc),
          LANEWATCH_OTLP_HTTP_PORT: String(ports.otlpHttp),
          LANEWATCH_COLLECTOR_HEALTH_PORT: String(ports.health),
          LANEWATCH_PROMETHEUS_PORT: String(ports.prometheus),
          LANEWATCH_GRAFANA_PORT: String(ports.grafana),
          LANEWATCH_REDIS_PORT: String(ports.redis),
          LANEWATCH_PROCESSOR_PORT: String(ports.processor),
          LANEWATCH_REDIS_PREFIX: prefix,
          LANEWATCH_INTERVAL_S: '2',
        })
        .withWaitStrategy('collector-1', Wait.forHttp('/', 13133))
        .withWaitStrategy('prometheus-1', Wait.forHttp('/-/ready', 9090))
        .withWaitStrategy('grafana-1', Wait.forHttp('/api/health', 3000))
        .withWaitStrategy('processor-1', Wait.forHttp('/healthz', 4320))
        .withWaitStrategy('redis-1', Wait.forLogMessage('Ready to accept connections'))
        .up();
      lanes = await startProviderLanes(
        [{ lane: 'steady', profile: 'steady', format: 'openai-chat', model: 'steady-chat' }],
        { canaries: makeCanaries(), timeScale: 0.2 },
      );
      app = await startInstrumentedApp({
        otlpEndpoint: `http://127.0.0.1:${ports.otlpHttp}`,
        laneMap: laneMapOf(lanes),
        serviceName: 'lanewatch-compose-app',
      });
      const [steady] = lanes;
      assert.ok(steady);
      const result = await app.calls(steady.call, 120, 8);
      assert.deepEqual(result.failures, {});
    });

    after(async () => {
      await app?.stop();
      await closeProviderLanes(lanes);
      await environment?.down({ removeVolumes: true });
    });

    test('the collector turns the app’s histograms into native histograms in Prometheus', async () => {
      const series = MILESTONE_SERIES.first_text;
      await eventually(`${series} in Prometheus`, async () => {
        const query = new URLSearchParams({ query: `${series}{job="lanewatch-compose-app"}` });
        const body = (await (
          await fetch(`http://127.0.0.1:${ports.prometheus}/api/v1/query?${query}`)
        ).json()) as {
          data: { result: { histogram?: unknown }[] };
        };
        return body.data.result.some((sample) => sample.histogram !== undefined) ? true : undefined;
      });
    });

    test('the processor writes the lane’s hints into Redis and serves them', async () => {
      await eventually('the steady lane in Redis', async () => {
        const keys = (await keysUnderPrefix(ports.redis as number, prefix)).map((k) => k.key);
        return keys.includes(`{${prefix}}:lane:steady`) ? true : undefined;
      });
      const lanesServed = (await (await fetch(`http://127.0.0.1:${ports.processor}/v1/lanes`)).json()) as {
        lanes: { lane: string }[];
      };
      assert.ok(lanesServed.lanes.some((lane) => lane.lane === 'steady'));
    });

    test('Grafana has the provisioned data source and dashboards, and a panel query returns data', async () => {
      const datasource = (await (await grafana('/api/datasources/uid/lanewatch-prometheus')).json()) as {
        url: string;
      };
      assert.equal(datasource.url, 'http://prometheus:9090');
      for (const uid of [LANES_DASHBOARD_UID, PROCESSOR_DASHBOARD_UID]) {
        assert.equal((await grafana(`/api/dashboards/uid/${uid}`)).status, 200, `dashboard ${uid}`);
      }
      const expr = `histogram_quantile(0.95, sum by (lanewatch_lane) (rate(${MILESTONE_SERIES.first_text}[5m])))`;
      await eventually('a p95 of first text through Grafana', async () => {
        const response = await grafana('/api/ds/query', {
          method: 'POST',
          body: JSON.stringify({
            from: 'now-15m',
            to: 'now',
            queries: [{ refId: 'A', datasource: { uid: 'lanewatch-prometheus' }, expr, instant: true }],
          }),
        });
        const text = await response.text();
        return response.ok && text.includes('steady') ? true : undefined;
      });
    });
  });
}
