import { setTimeout as delay } from 'node:timers/promises';
import { signForBedrock } from './aws-signing.ts';
import { backoffMs, DEFAULT_BACKOFF, retryAfterMs } from './backoff.ts';
import type { InstrumentedClient, MeasuredCall } from './instrumented-client.ts';
import type { ProbeOptions } from './probe-options.ts';
import { providerRequest } from './provider-request.ts';

/** Why a probe ended before its samples were all taken, or `done`. */
export type ProbeEnd =
  | { readonly kind: 'done' }
  | { readonly kind: 'stopped' }
  /** 401/403: the key was refused; stopped at once, no retry. */
  | { readonly kind: 'auth'; readonly status: number }
  /** The first call reached nothing (refused, no such host, TLS): the URL is wrong or the server is down. */
  | { readonly kind: 'unreachable'; readonly errorType: string }
  /** The first answer was 404/405: no such endpoint at this base URL for this format. */
  | { readonly kind: 'no-endpoint'; readonly status: number };

export interface ProbeRun {
  readonly end: ProbeEnd;
  /** Every call, retries included, as measured. */
  readonly calls: readonly MeasuredCall[];
  /** Samples started. */
  readonly samples: number;
  /** 429s retried after a backoff, and the waits (ms). */
  readonly retries: number;
  readonly backoffWaitsMs: readonly number[];
  /** 429s whose `Retry-After` was longer than the backoff cap: the sample was given up. */
  readonly retryAfterTooLong: number;
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
}

const UNREACHABLE = new Set(['connection_refused', 'dns_error', 'tls_error', 'bad_port']);

/**
 * The class of a fetch that failed before undici sent anything (so the instrumentation saw no call):
 * fetch's own "bad port" list (Fetch standard §2.10), or a code from the cause.
 */
export function fetchFailureClass(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause?.message === 'bad port') return 'bad_port';
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection_refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'dns_error';
    default:
      return 'other';
  }
}

/**
 * Takes the probe's samples one after another. Each sample is one call, plus retries while it is
 * answered 429 (full-jitter backoff, `Retry-After` honoured). The body is read to its end and dropped
 * unread: the instrumentation measures it; nothing here looks at content.
 */
export async function runProbe(
  options: ProbeOptions,
  client: InstrumentedClient,
  stopRequested: Promise<unknown>,
  onCall: (call: MeasuredCall, sample: number) => void = () => {},
): Promise<ProbeRun> {
  let stop = false;
  const stopped = stopRequested.then(() => {
    stop = true;
  });
  const calls: MeasuredCall[] = [];
  const backoffWaitsMs: number[] = [];
  let retries = 0;
  let retryAfterTooLong = 0;
  let answered = false; // whether any HTTP answer has come back yet
  const request = providerRequest(options.format, options.base, {
    model: options.model,
    apiKey: options.apiKey,
  });

  async function oneCall(attempt: number): Promise<{ call: MeasuredCall; answer: Answer | undefined }> {
    const timeout = AbortSignal.timeout(options.timeoutS * 1000);
    const { result, measured } = client.call(async (): Promise<Answer> => {
      const { url, init } = options.awsSigning ? await signForBedrock(request, options.awsSigning) : request;
      const response = await fetch(url, { ...init, signal: timeout });
      if (response.body) for await (const _ of response.body) void _;
      return { status: response.status, headers: response.headers };
    }, attempt);
    let failure: unknown;
    const answer = await result.catch((error: unknown) => {
      failure = error;
      return undefined;
    });
    const seen = await measured;
    const timedOut = timeout.aborted;
    const call: MeasuredCall = seen
      ? timedOut
        ? { ...seen, outcome: 'error', errorType: 'timeout' }
        : seen
      : {
          lane: options.lane ?? 'unknown',
          outcome: 'error',
          errorType: timedOut ? 'timeout' : fetchFailureClass(failure),
          statusCode: answer?.status,
          milestonesMs: {},
          diagnosis: undefined,
          outputTokensPerSecond: undefined,
        };
    return { call, answer };
  }

  let started = 0;
  for (let sample = 0; sample < options.samples && !stop; sample++) {
    if (sample > 0 && options.intervalS > 0) {
      await Promise.race([delay(options.intervalS * 1000), stopped]);
      if (stop) break;
    }
    started++;
    for (let attempt = 1; ; attempt++) {
      const { call, answer } = await oneCall(attempt);
      calls.push(call);
      onCall(call, sample);
      if (answer === undefined && !answered && UNREACHABLE.has(call.errorType ?? '')) {
        return finish({ kind: 'unreachable', errorType: call.errorType as string });
      }
      if (answer !== undefined) {
        if (answer.status === 401 || answer.status === 403)
          return finish({ kind: 'auth', status: answer.status });
        if (!answered && (answer.status === 404 || answer.status === 405)) {
          return finish({ kind: 'no-endpoint', status: answer.status });
        }
        answered = true;
      }
      if (answer?.status !== 429 || attempt > options.retries || stop) break;
      const serverMs = retryAfterMs(answer.headers);
      if (serverMs !== undefined && serverMs > DEFAULT_BACKOFF.maxMs) {
        retryAfterTooLong++;
        break;
      }
      const wait = backoffMs(attempt, serverMs);
      backoffWaitsMs.push(wait);
      retries++;
      await Promise.race([delay(wait), stopped]);
      if (stop) break;
    }
  }
  return finish(stop ? { kind: 'stopped' } : { kind: 'done' });

  function finish(end: ProbeEnd): ProbeRun {
    return { end, calls, samples: started, retries, backoffWaitsMs, retryAfterTooLong };
  }
}
