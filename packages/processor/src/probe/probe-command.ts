import type { CliContext, Command } from '../cli/cli-context.ts';
import { bedrockRegionOf } from './aws-signing.ts';
import { type ProbeOptions, parseProbeOptions, probeHelp } from './probe-options.ts';
import { probeTable, summarizeCalls } from './probe-stats.ts';
import { endpointOf } from './provider-request.ts';
import { type ProbeRun, runProbe } from './run-probe.ts';

export const EXIT_NO_SUCCESS = 1;
export const EXIT_BAD_TARGET = 2;
export const EXIT_AUTH = 3;

/** Origin and path: what may be printed of a URL (no query, no credentials). */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function formatNote(options: ProbeOptions): string {
  if (options.formatSource === 'flag') return options.format;
  if (options.formatSource === 'url') return `${options.format}, from the URL`;
  return `${options.format}, assumed: --format to change`;
}

/** The one line that says why a probe stopped early and what to fix; `undefined` when it did not. */
export function failureLine(run: ProbeRun, options: ProbeOptions, endpoint: URL): string | undefined {
  const end = run.end;
  switch (end.kind) {
    case 'auth': {
      if (options.awsSigning !== undefined) {
        return `${shown(endpoint)} answered ${end.status}: the request signed with the credentials of AWS_ACCESS_KEY_ID was refused; check them, and that they may call this model in ${options.awsSigning.region} — or set AWS_BEARER_TOKEN_BEDROCK to a Bedrock API key. Not retried.`;
      }
      const variables = options.keyVariables.join(' or ');
      const what = options.apiKey === undefined ? 'no API key was sent' : 'the API key was refused';
      const aws =
        options.apiKey === undefined && bedrockRegionOf(options.base.hostname) !== undefined
          ? ' Or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) for signed requests.'
          : '';
      return `${shown(endpoint)} answered ${end.status}: ${what}; set ${variables} (or --api-key) to a key valid for ${options.base.host}. Not retried.${aws}`;
    }
    case 'unreachable':
      return end.errorType === 'bad_port'
        ? `fetch refuses port ${options.base.port} (on the Fetch standard's list of blocked ports): use another port in --base-url`
        : `cannot reach ${options.base.host} (${end.errorType}): check --base-url, and that the server is running`;
    case 'no-endpoint':
      return `POST ${shown(endpoint)} answered ${end.status}: no ${options.format} endpoint there; check --base-url (an OpenAI-compatible base usually ends in /v1) and --format`;
    default:
      return undefined;
  }
}

/** `lanewatch probe`: N samples of one endpoint's streaming milestones, through the instrumentation. */
export const probeCommand: Command = {
  name: 'probe',
  summary: 'measure an endpoint’s streaming milestones (p50/p95/p99/max per milestone) with a tiny prompt',
  async run(args: readonly string[], context: CliContext): Promise<number> {
    if (args.includes('--help') || args.includes('-h')) {
      context.stdout(`${probeHelp()}\n`);
      return 0;
    }
    const options = parseProbeOptions(args, context.env);
    const endpoint = endpointOf(options.format, options.base, options.model);
    // Loaded here, not at the top: the OpenTelemetry SDKs stay out of every other command's start-up.
    const { startInstrumentedClient } = await import('./instrumented-client.ts');
    const client = startInstrumentedClient({
      lanes: options.lane === undefined ? [] : { [options.lane]: shown(endpoint) },
      otlpEndpoint: options.otlpEndpoint,
    });
    const progress = !options.json && process.stderr.isTTY === true;
    if (!options.json) {
      context.stdout(
        `lanewatch probe: ${options.samples} samples of ${options.model} at ${shown(endpoint)} (${formatNote(options)})` +
          `${options.intervalS > 0 ? `, ${options.intervalS} s apart` : ''}\n`,
      );
    }
    let run: ProbeRun;
    try {
      run = await runProbe(options, client, context.stopRequested, (_call, sample) => {
        if (progress) context.stderr(`\r  sample ${sample + 1}/${options.samples}`);
      });
    } finally {
      if (progress) context.stderr('\r\x1b[K');
      await client.shutdown(); // its last export included
    }
    const failure = failureLine(run, options, endpoint);
    if (failure !== undefined) {
      context.stderr(`lanewatch probe: ${failure}\n`);
      return run.end.kind === 'auth' ? EXIT_AUTH : EXIT_BAD_TARGET;
    }
    const summary = summarizeCalls(run.calls);
    const lane = run.calls.find((c) => c.lane !== 'unknown')?.lane ?? options.lane ?? null;
    const exportFailed = options.otlpEndpoint !== undefined && client.exportFailures > 0;
    if (options.json) {
      context.stdout(
        `${JSON.stringify(
          {
            schema: 'lanewatch.probe/v1',
            endpoint: shown(endpoint),
            format: options.format,
            model: options.model,
            lane,
            samples: run.samples,
            stopped_early: run.end.kind === 'stopped',
            ...summary,
            retries: run.retries,
            backoff_s: run.backoffWaitsMs.map((ms) => Math.round(ms) / 1000),
            retry_after_too_long: run.retryAfterTooLong,
            otlp_export: options.otlpEndpoint === undefined ? null : { failed_rounds: client.exportFailures },
          },
          null,
          2,
        )}\n`,
      );
    } else {
      const lines = [...probeTable(summary), ''];
      const outcomes = Object.entries(summary.outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      const errors = Object.entries(summary.errors)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      lines.push(
        `${summary.calls} calls over ${run.samples} samples${lane ? ` (lane ${lane})` : ''}: ${outcomes || 'none'}` +
          `${errors ? `; errors: ${errors}` : ''}`,
      );
      if (run.retries > 0) {
        const waited = run.backoffWaitsMs.reduce((s, ms) => s + ms, 0) / 1000;
        lines.push(
          `${run.retries} retries after 429 (backoff with full jitter, Retry-After honoured): waited ${waited.toFixed(1)} s`,
        );
      }
      if (run.retryAfterTooLong > 0) {
        lines.push(`${run.retryAfterTooLong} samples given up: Retry-After longer than 30 s`);
      }
      if (summary.output_tokens_per_second) {
        lines.push(`output tokens/s p50 ${summary.output_tokens_per_second.p50.toFixed(1)}`);
      }
      const diagnoses = Object.entries(summary.diagnoses).sort((a, b) => b[1] - a[1]);
      if (diagnoses.length > 0) {
        lines.push(`longest phase of successful calls: ${diagnoses.map(([k, v]) => `${k} ${v}`).join(', ')}`);
      }
      if (run.end.kind === 'stopped') lines.push('stopped early: the numbers cover the samples taken');
      context.stdout(`${lines.join('\n')}\n`);
    }
    if (exportFailed) {
      context.stderr(
        `lanewatch probe: ${client.exportFailures} OTLP export rounds to ${shown(new URL(options.otlpEndpoint as string))} failed; is the endpoint up?\n`,
      );
      return EXIT_NO_SUCCESS;
    }
    return (summary.outcomes.ok ?? 0) > 0 ? 0 : EXIT_NO_SUCCESS;
  },
};
