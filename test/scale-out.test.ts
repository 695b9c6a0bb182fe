// collector-config/scale-out.yaml in front of real processor replicas: the collector built from the
// repo's manifest (collector.yaml + scale-out.yaml) routes every point by its lanewatch.lane over
// OTLP/gRPC — the only protocol its load-balancing exporter speaks — to two `lanewatch serve
// --grpc-port` processes (the built CLI). Every lane's record must be at exactly one replica, with
// every call the lane made, and all lanes must be covered. The replicas require a bearer token, which
// the collector sends as gRPC metadata (scale-out-token.yaml).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ATTR, MILESTONE_METRIC } from '@lanewatch/instrumentation';
import {
  type Collector,
  collectorConfigPath,
  freePort,
  type ManagedProcess,
  type OtlpSink,
  startCollector,
  startOtlpSink,
  startProcess,
  waitUntilReady,
} from './stack/index.ts';
import { exponentialPoint, metricsRequest, postOtlpJson } from './stack/otlp-payloads.ts';

const cli = fileURLToPath(new URL('../packages/processor/dist/cli.js', import.meta.url));

interface Replica {
  readonly url: string;
  readonly grpcEndpoint: string;
  readonly process: ManagedProcess;
}

interface LaneView {
  readonly lane: string;
  readonly samples: number;
}

const RESOURCE = { 'service.name': 'scale-out-test', 'service.instance.id': 'instance-1' };
const LANES = Array.from({ length: 16 }, (_, i) => `scale-lane-${String(i).padStart(2, '0')}`);
/** Calls per lane per round: each lane its own number, so a record shows which points it holds. */
const CALLS = new Map(LANES.map((lane, i) => [lane, i + 2]));

const ns = (ms: number) => BigInt(ms) * 1_000_000n;
const TOKEN = 'scale-out-token-4e1b';

async function startReplica(name: string): Promise<Replica> {
  const [port, grpcPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const proc = startProcess({
    name,
    command: process.execPath,
    args: [
      cli,
      'serve',
      `--port=${port}`,
      `--grpc-port=${grpcPort}`,
      '--host=127.0.0.1',
      '--store=memory:',
      '--interval=0.5',
      '--window=300',
      '--slice=10',
      `--token=${TOKEN}`,
    ],
  });
  await waitUntilReady(proc, `GET ${url}/healthz`, async () => {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  });
  return { url, grpcEndpoint: `127.0.0.1:${grpcPort}`, process: proc };
}

async function lanesAt(replica: Replica): Promise<Map<string, number>> {
  const response = await fetch(`${replica.url}/v1/lanes`, { signal: AbortSignal.timeout(5000) });
  const { lanes } = (await response.json()) as { lanes: LaneView[] };
  return new Map(lanes.filter((l) => CALLS.has(l.lane)).map((l) => [l.lane, l.samples]));
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 45_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One cumulative duration point per lane: `round` × the lane's calls since `startMs`. */
function durationRequest(round: number, startMs: number, timeMs: number) {
  return metricsRequest(RESOURCE, [
    {
      name: MILESTONE_METRIC.end,
      unit: 's',
      points: LANES.map((lane) =>
        exponentialPoint({
          values: Array<number>((CALLS.get(lane) ?? 0) * round).fill(0.5),
          scale: 5,
          attributes: {
            [ATTR.operationName]: 'chat',
            [ATTR.providerName]: 'openai',
            [ATTR.requestModel]: 'gpt-test',
            [ATTR.lane]: lane,
            [ATTR.outcome]: 'ok',
            [ATTR.sizeClass]: 's',
            [ATTR.attempt]: '1',
          },
          startNs: ns(startMs),
          timeNs: ns(timeMs),
        }),
      ),
    },
  ]);
}

describe('scale-out.yaml in front of two lanewatch serve replicas over OTLP/gRPC', () => {
  const replicas: Replica[] = [];
  let front: Collector | undefined;
  let discard: OtlpSink | undefined;

  before(async () => {
    replicas.push(await startReplica('replica-0'), await startReplica('replica-1'));
    // The front collector's Prometheus remote write and unused OTLP/HTTP exporter go nowhere that matters.
    discard = await startOtlpSink();
    front = await startCollector({
      processorEndpoint: discard.url,
      remoteWriteUrl: `${discard.url}/api/v1/write`,
      extraConfigs: [collectorConfigPath('scale-out.yaml'), collectorConfigPath('scale-out-token.yaml')],
      env: {
        LANEWATCH_PROCESSOR_REPLICAS: `[${replicas.map((r) => r.grpcEndpoint).join(', ')}]`,
        LANEWATCH_TOKEN: TOKEN,
      },
    });
  });

  after(async () => {
    await front?.stop();
    for (const replica of replicas) await replica.process.stop(10_000);
    await discard?.close();
  });

  test('every lane has its record at exactly one replica, with all its calls, batch after batch', async () => {
    assert.ok(front);
    const startMs = Date.now() - 60_000;
    const placements: Map<string, number>[] = [];
    for (const round of [1, 2]) {
      await postOtlpJson(
        front.otlpHttpUrl,
        '/v1/metrics',
        durationRequest(round, startMs, Date.now() - (3 - round) * 5_000),
      );
      // Where each lane's record is, once every lane has one holding all of this round's calls.
      const placement = await eventually(`round ${round}: every lane's calls at the replicas`, async () => {
        const seen = await Promise.all(replicas.map(lanesAt));
        const at = new Map<string, number>();
        for (const lane of LANES) {
          const holders = seen.flatMap((lanes, i) => (lanes.has(lane) ? [i] : []));
          const holder = holders[0];
          if (holders.length !== 1 || holder === undefined) return undefined;
          if (seen[holder]?.get(lane) !== (CALLS.get(lane) ?? 0) * round) return undefined;
          at.set(lane, holder);
        }
        return at;
      });
      placements.push(placement);
    }
    const [first, second] = placements;
    assert.ok(first && second);
    // Exactly one replica per lane, checked once more after both rounds (a copy would show up here).
    const seen = await Promise.all(replicas.map(lanesAt));
    for (const lane of LANES) {
      const holders = seen.flatMap((lanes, i) => (lanes.has(lane) ? [i] : []));
      assert.deepEqual(holders, [first.get(lane)], `${lane} is at replicas ${JSON.stringify(holders)}`);
      assert.equal(seen[holders[0] ?? -1]?.get(lane), (CALLS.get(lane) ?? 0) * 2, `${lane}: calls`);
    }
    assert.deepEqual([...second], [...first], 'a lane moved between batches');
    const perReplica = replicas.map((_, i) => LANES.filter((lane) => first.get(lane) === i).length);
    assert.ok(
      perReplica.every((n) => n > 0),
      `one replica got every lane: ${JSON.stringify(perReplica)}`,
    );
    assert.equal(
      perReplica.reduce((a, b) => a + b, 0),
      LANES.length,
    );
    assert.doesNotMatch(front.readLog(), /\terror\t/, 'the collector logged an error');
  });
});
