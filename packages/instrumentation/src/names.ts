// The one vocabulary of lanewatch (DESIGN §1–2). The processor, the collector config, the dashboards
// and the store record all take their names from here, so a rename is a compile error, not a drift.

/** The milestones of one streaming call, in the order they can happen. */
export const MILESTONES = ['headers', 'first_chunk', 'first_output', 'first_text', 'end'] as const;
export type Milestone = (typeof MILESTONES)[number];

/** Histogram instrument (seconds from t1) for each milestone. */
export const MILESTONE_METRIC: Readonly<Record<Milestone, string>> = {
  headers: 'lanewatch.time_to_headers',
  first_chunk: 'gen_ai.client.operation.time_to_first_chunk',
  first_output: 'lanewatch.time_to_first_output',
  first_text: 'lanewatch.time_to_first_text',
  end: 'gen_ai.client.operation.duration',
};

/** The key under which the store record and the processor report each milestone's quantiles. */
export const MILESTONE_QUANTILE_KEY: Readonly<Record<Milestone, string>> = {
  headers: 'time_to_headers',
  first_chunk: 'time_to_first_chunk',
  first_output: 'time_to_first_output',
  first_text: 'time_to_first_text',
  end: 'duration',
};

/** Span event name for each milestone. */
export const MILESTONE_EVENT: Readonly<Record<Milestone, string>> = {
  headers: 'lanewatch.headers',
  first_chunk: 'lanewatch.first_chunk',
  first_output: 'lanewatch.first_output',
  first_text: 'lanewatch.first_text',
  end: 'lanewatch.end',
};

/** Span attribute (milliseconds from t1) for each milestone. */
export const MILESTONE_SPAN_MS: Readonly<Record<Milestone, string>> = {
  headers: 'lanewatch.headers_ms',
  first_chunk: 'lanewatch.first_chunk_ms',
  first_output: 'lanewatch.first_output_ms',
  first_text: 'lanewatch.first_text_ms',
  end: 'lanewatch.end_ms',
};

export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  outputTokensPerSecond: 'lanewatch.output_tokens_per_second',
} as const;

/** Attributes on every metric point and span (bounded cardinality). */
export const ATTR = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  serverAddress: 'server.address',
  lane: 'lanewatch.lane',
  outcome: 'lanewatch.outcome',
  sizeClass: 'lanewatch.size_class',
  attempt: 'lanewatch.attempt',
  statusCode: 'http.response.status_code',
  errorType: 'error.type',
  /** Only on `lanewatch.time_to_first_output` and the span: `text | reasoning | tool_call`. */
  outputKind: 'lanewatch.output.kind',
  /** Only on `gen_ai.client.token.usage`: `input | output`. */
  tokenType: 'gen_ai.token.type',
} as const;

/** Span-only attributes. */
export const SPAN_ATTR = {
  chunks: 'lanewatch.chunks',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  diagnosis: 'lanewatch.diagnosis',
  format: 'lanewatch.format',
  serverPort: 'server.port',
  outputTokensPerSecond: 'lanewatch.output_tokens_per_second',
} as const;

export const OUTCOMES = ['ok', 'error', 'cancelled', 'truncated'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const OUTPUT_KINDS = ['text', 'reasoning', 'tool_call'] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

/** Request body size classes (DESIGN §2), by upper bound in bytes. */
export const SIZE_CLASSES = ['xs', 's', 'm', 'l', 'xl'] as const;
export type SizeClass = (typeof SIZE_CLASSES)[number];

export function sizeClassOf(bytes: number): SizeClass {
  if (bytes < 1024) return 'xs';
  if (bytes < 8 * 1024) return 's';
  if (bytes < 64 * 1024) return 'm';
  if (bytes < 512 * 1024) return 'l';
  return 'xl';
}

export const DIAGNOSES = [
  'upstream_headers_slow',
  'output_after_headers_slow',
  'text_after_action_slow',
  'generation_slow',
] as const;
export type Diagnosis = (typeof DIAGNOSES)[number];

/** Value that any attribute beyond its cardinality cap folds into. */
export const OTHER = 'other';

export const INSTRUMENTATION_SCOPE = '@lanewatch/instrumentation';

/**
 * What an attribute value lanewatch takes from a request or a stream must look like to be kept
 * (anything else is folded into `other`), and so what a lane name must look like.
 */
export const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;

/** The rule `isLaneName` applies, as error messages say it. */
export const LANE_NAME_RULE =
  '1–128 letters, digits, "_", ".", ":", "/", "@", "+" or "-", starting with a letter or digit';

/**
 * Whether `name` can name a lane: what the lane map, the processor's lanes file and its probe
 * accept, and what every `provider/model` lane is (Vertex AI's `claude-sonnet-4@20250514` included).
 * A lane named otherwise would be folded into `other` on every point.
 */
export function isLaneName(name: unknown): name is string {
  return typeof name === 'string' && IDENTIFIER.test(name);
}
