import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AlwaysOnSampler, ParentBasedSampler } from '@opentelemetry/sdk-trace';
import { type OtlpSink, startOtlpSink } from '../../../test/stack/otlp-sink.ts';
import { sse, startScriptedServer } from '../test/harness.ts';
import { SPAN_ATTR } from './names.ts';
import { ownSpanSamplerFromEnv } from './start.ts';

const run = promisify(execFile);
const fixture = fileURLToPath(new URL('../test/fixtures/traced-app-counting.mjs', import.meta.url));

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  events: Array<{ name: string }>;
}
interface ResourceSpans {
  resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
  scopeSpans: Array<{ scope: { name: string; version?: string }; spans: OtlpSpan[] }>;
}

/** The app with a span of its own around one streaming call, under register; what it exported. */
async function runTracedApp(env: Record<string, string>) {
  const chunk = (delta: object) => sse({ model: 'gpt-test', choices: [{ index: 0, delta }] });
  const provider = await startScriptedServer(() => ({
    headersAt: 5,
    pieces: [
      { at: 10, bytes: chunk({ role: 'assistant' }) },
      { at: 20, bytes: chunk({ content: 'hi' }) },
      { at: 30, bytes: sse({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } }) },
      { at: 35, bytes: 'data: [DONE]\n\n' },
    ],
  }));
  let sink: OtlpSink | undefined;
  try {
    sink = await startOtlpSink();
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', '@lanewatch/instrumentation/register', fixture],
      {
        env: {
          ...process.env,
          TARGET_URL: provider.url,
          OTEL_SERVICE_NAME: 'own-spans-test',
          OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_NODE_RESOURCE_DETECTORS: 'env',
          ...env,
        },
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        timeout: 30_000,
      },
    );
    assert.match(stdout, /^200 \d+/, 'the app got its response');
    const traceRequests = sink.requests.filter((r) => r.path === '/v1/traces');
    const resourceSpans = traceRequests.flatMap(
      (r) => JSON.parse(r.body.toString()).resourceSpans as ResourceSpans[],
    );
    const spans = resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    const lanewatch = spans.find((s) => s.name.startsWith('chat'));
    const app = spans.find((s) => s.name === 'app-work');
    assert.ok(lanewatch && app, `both spans exported:\n${JSON.stringify(spans.map((s) => s.name))}`);
    const ownSpans = Number(/own tracer spans: (\d+)/.exec(stdout)?.[1]);
    return { ownSpans, stderr, resourceSpans, lanewatch, app, traceRequests: traceRequests.length };
  } finally {
    await provider.close();
    await sink?.close();
  }
}

/**
 * What an exported lanewatch span says, but its ids and its timings — and the diagnosis, a label
 * read off those timings (on a loaded machine two runs can land on either side of its thresholds),
 * which is there as a string.
 */
function shape(span: OtlpSpan) {
  const timed = new Set<string>([SPAN_ATTR.outputTokensPerSecond, SPAN_ATTR.diagnosis]);
  const diagnosis = span.attributes.find((a) => a.key === SPAN_ATTR.diagnosis)?.value.stringValue;
  return {
    name: span.name,
    kind: span.kind,
    diagnosis: typeof diagnosis === 'string' && diagnosis.length > 0,
    attributes: span.attributes
      .filter((a) => !a.key.endsWith('_ms') && !timed.has(a.key))
      .map((a) => [a.key, a.key === 'server.port' ? 'port' : a.value])
      .sort(),
    events: span.events.map((e) => e.name),
  };
}

describe("register: lanewatch's spans made by lanewatch (OwnTracer), handed to the SDK's span processor", () => {
  it("by default: the span the SDK's tracer makes when a setting asks for it, under the app's span, in its resource and batch", async () => {
    const own = await runTracedApp({});
    assert.equal(own.stderr, '');
    assert.equal(own.ownSpans, 1, 'lanewatch started its span through its own tracer');
    // A span limit (here the default itself) is what only the SDK's tracer applies: it makes the span then.
    const sdk = await runTracedApp({ OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '128' });
    assert.equal(sdk.ownSpans, 0, "with a span limit set, lanewatch's span goes through the SDK's tracer");
    assert.equal(shape(own.lanewatch).diagnosis, true, 'the span carries its diagnosis');
    assert.deepEqual(shape(own.lanewatch), shape(sdk.lanewatch));
    for (const { lanewatch, app, resourceSpans, traceRequests } of [own, sdk]) {
      assert.equal(lanewatch.traceId, app.traceId, "in the app's trace");
      assert.equal(lanewatch.parentSpanId, app.spanId, "the app's span is its parent");
      assert.equal(traceRequests, 1, 'one batch, one export, as the SDK batches its own spans');
      assert.equal(resourceSpans.length, 1, "one resource: the SDK's");
      const service = resourceSpans[0]?.resource.attributes.find((a) => a.key === 'service.name');
      assert.equal(service?.value.stringValue, 'own-spans-test');
      const scopes = resourceSpans[0]?.scopeSpans.map((s) => s.scope.name).sort();
      assert.deepEqual(scopes, ['@lanewatch/instrumentation', 'traced-app']);
    }
  });

  it('OTEL_BSP_* settings apply to the span processor register makes (a batch of 1: one export a span)', async () => {
    const { ownSpans, traceRequests } = await runTracedApp({ OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1' });
    assert.equal(ownSpans, 1);
    assert.equal(traceRequests, 2, 'the app span and the lanewatch span, exported one at a time');
  });

  it('another sampler: the SDK makes the span, and samples it its way', async () => {
    const sampled = await runTracedApp({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1',
    });
    assert.equal(sampled.ownSpans, 0);
    assert.equal(sampled.lanewatch.parentSpanId, sampled.app.spanId);
  });

  it('which settings leave the span to the SDK: other samplers, span limits, the SDK metrics about spans', () => {
    const parentBased = new ParentBasedSampler({ root: new AlwaysOnSampler() }).toString();
    for (const sampler of [undefined, '', ' ', 'parentbased_always_on']) {
      const env = sampler === undefined ? {} : { OTEL_TRACES_SAMPLER: sampler };
      assert.equal(ownSpanSamplerFromEnv(env)?.toString(), parentBased, `OTEL_TRACES_SAMPLER=${sampler}`);
    }
    assert.equal(ownSpanSamplerFromEnv({ OTEL_TRACES_SAMPLER: 'always_on' })?.toString(), 'AlwaysOnSampler');
    for (const sampler of [
      'always_off',
      'traceidratio',
      'parentbased_traceidratio',
      'parentbased_always_off',
      'ALWAYS_ON',
      'jaeger_remote',
    ]) {
      assert.equal(ownSpanSamplerFromEnv({ OTEL_TRACES_SAMPLER: sampler }), undefined, sampler);
    }
    for (const limit of [
      'OTEL_ATTRIBUTE_COUNT_LIMIT',
      'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT',
      'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT',
      'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
      'OTEL_SPAN_EVENT_COUNT_LIMIT',
      'OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT',
      'OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT',
    ]) {
      assert.equal(ownSpanSamplerFromEnv({ [limit]: '16' }), undefined, limit);
      assert.ok(ownSpanSamplerFromEnv({ [limit]: ' ' }), `${limit} blank is unset`);
    }
    assert.equal(ownSpanSamplerFromEnv({ OTEL_NODE_EXPERIMENTAL_SDK_METRICS: ' True ' }), undefined);
    assert.ok(ownSpanSamplerFromEnv({ OTEL_NODE_EXPERIMENTAL_SDK_METRICS: 'false' }));
  });
});
