import { type MetricsExportOptions, OTLP_HTTP_PROTOCOLS, type OtlpHttpProtocol } from './metrics-export.ts';

/** A variable that cannot configure the metrics export; the message names it and says what it must be. */
export class MetricsExportConfigError extends Error {
  override readonly name = 'MetricsExportConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A variable's value as an error message may show it: quoted when it looks like a setting (at most
 * 24 lowercase letters, digits and `/_.,+-`), else not at all — a value pasted into the wrong
 * variable may be a token, and tokens are longer or mixed-case.
 */
function shown(value: string): string {
  return /^[a-z0-9/_.,+-]{1,24}$/.test(value) ? JSON.stringify(value) : '(a value that is not a name)';
}

function given(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function checkedUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MetricsExportConfigError(`${source} must be an http:// or https:// URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MetricsExportConfigError(
      `${source} must be an http:// or https:// URL (OTLP/HTTP; OTLP/gRPC is not supported)`,
    );
  }
  return url;
}

/**
 * OTLP spec: a base endpoint gets `v1/metrics` appended, relative to its path — to the path, not to
 * the URL's text, so a query (`?tenant=a`) stays the request's query.
 */
function metricsUrlOf(base: URL): string {
  const url = new URL(base.href);
  url.pathname = url.pathname.endsWith('/') ? `${url.pathname}v1/metrics` : `${url.pathname}/v1/metrics`;
  url.hash = '';
  return url.href;
}

function milliseconds(env: Env, name: string): number | undefined {
  const raw = given(env, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new MetricsExportConfigError(
      `${name} must be a whole number of milliseconds, at least 1, got ${shown(raw)}`,
    );
  }
  return Number(raw);
}

/**
 * Where the processor's own metrics go, from `--otlp-endpoint` / `LANEWATCH_OTLP_ENDPOINT` (`endpoint`,
 * a base URL, already chosen between the two by the caller) and the OpenTelemetry variables; `undefined` — nothing exported — when none names an
 * endpoint, or when `OTEL_SDK_DISABLED=true` or `OTEL_METRICS_EXPORTER=none`.
 *
 * | URL | from |
 * |---|---|
 * | `endpoint` + `/v1/metrics` | `--otlp-endpoint`, else `LANEWATCH_OTLP_ENDPOINT` |
 * | as given | `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` |
 * | + `/v1/metrics` | `OTEL_EXPORTER_OTLP_ENDPOINT` |
 *
 * Protocol: `OTEL_EXPORTER_OTLP_METRICS_PROTOCOL`, `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`
 * default, `http/json`); interval and timeout: `OTEL_METRIC_EXPORT_INTERVAL` / `_TIMEOUT` (ms).
 */
export function metricsExportFromEnv(env: Env, endpoint?: string): MetricsExportOptions | undefined {
  if (given(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
  const exporters = given(env, 'OTEL_METRICS_EXPORTER')?.toLowerCase();
  if (exporters !== undefined) {
    const names = exporters.split(',').map((name) => name.trim());
    if (names.includes('none')) return undefined;
    if (!names.includes('otlp')) {
      throw new MetricsExportConfigError(
        `OTEL_METRICS_EXPORTER must be otlp or none for lanewatch serve, got ${shown(exporters)}`,
      );
    }
  }
  let url: string | undefined;
  if (endpoint !== undefined) url = metricsUrlOf(checkedUrl(endpoint, '--otlp-endpoint'));
  else {
    const signal = given(env, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
    const base = given(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (signal !== undefined) url = checkedUrl(signal, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT').href;
    else if (base !== undefined) url = metricsUrlOf(checkedUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT'));
  }
  if (url === undefined) return undefined;

  const protocolSource = given(env, 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_METRICS_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = given(env, protocolSource) ?? 'http/protobuf';
  if (!(OTLP_HTTP_PROTOCOLS as readonly string[]).includes(protocol)) {
    throw new MetricsExportConfigError(
      `${protocolSource} must be http/protobuf or http/json for lanewatch serve (it exports over OTLP/HTTP), got ${shown(protocol)}`,
    );
  }
  return {
    url,
    protocol: protocol as OtlpHttpProtocol,
    intervalMs: milliseconds(env, 'OTEL_METRIC_EXPORT_INTERVAL'),
    timeoutMs: milliseconds(env, 'OTEL_METRIC_EXPORT_TIMEOUT'),
  };
}

/** The URL to print: scheme, host and path only (no user info, no query). */
export function printableUrl(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname}`;
}
