import type { Attributes } from '@opentelemetry/api';
import { BoundedValues } from './bounded-values.ts';
import {
  ATTR,
  OUTCOMES,
  type Outcome,
  type OutputKind,
  SIZE_CLASSES,
  type SizeClass,
  sizeClassOf,
} from './names.ts';
import type { Endpoint, RequestIdentity } from './request-identity.ts';

/**
 * What calls to one endpoint with one model are called on every point and span (DESIGN §2), with
 * each value through its cardinality cap: decided once, then shared by every call to it.
 */
export interface CallTarget {
  readonly operation: string;
  readonly provider: string;
  readonly server: string;
  readonly model: string | undefined;
  readonly lane: string;
  readonly spanName: string;
  /** Attribute sets by the rest of a call's values (see `CallTargets.attributesOf`). */
  readonly sets: Map<number | string, MetricAttributes>;
}

/**
 * The frozen attribute objects one combination of values puts on metric points: frozen because they
 * are shared by every call with these values, and handed to the SDK again and again.
 */
export class MetricAttributes {
  /** On every point and on the span. */
  readonly call: Attributes;
  readonly inputTokens: Attributes;
  readonly outputTokens: Attributes;
  readonly #firstOutput: Partial<Record<OutputKind, Attributes>> = {};

  constructor(call: Attributes) {
    this.call = Object.freeze(call);
    this.inputTokens = Object.freeze({ ...call, [ATTR.tokenType]: 'input' });
    this.outputTokens = Object.freeze({ ...call, [ATTR.tokenType]: 'output' });
  }

  /** On `lanewatch.time_to_first_output`: the call's attributes and the output kind. */
  firstOutput(kind: OutputKind): Attributes {
    let attributes = this.#firstOutput[kind];
    if (attributes === undefined) {
      attributes = Object.freeze({ ...this.call, [ATTR.outputKind]: kind });
      this.#firstOutput[kind] = attributes;
    }
    return attributes;
  }
}

/** Models remembered per endpoint; past it, calls still fold, only uncached. */
const MAX_MODELS_PER_ENDPOINT = 256;
/** Attribute combinations remembered per target; past it, they are built per call. */
const MAX_SETS_PER_TARGET = 256;

/**
 * The cardinality caps of one instrumentation instance, and the targets and attribute sets made
 * through them. Caching what a fold decided changes nothing: a value once let through stays, and a
 * value folded into `other` is only folded because the cap is full, which it stays.
 */
export class CallTargets {
  readonly #lane: BoundedValues;
  readonly #model: BoundedValues;
  readonly #server: BoundedValues;
  readonly #provider = new BoundedValues(32);
  readonly #errorType = new BoundedValues(64);
  readonly #byEndpoint = new WeakMap<Endpoint, Map<string | undefined, CallTarget>>();

  constructor(cap: number) {
    this.#lane = new BoundedValues(cap);
    this.#model = new BoundedValues(cap);
    this.#server = new BoundedValues(cap);
  }

  targetOf(identity: RequestIdentity): CallTarget {
    const { endpoint, model } = identity;
    let byModel = this.#byEndpoint.get(endpoint);
    const known = byModel?.get(model);
    if (known !== undefined) return known;
    const folded = model === undefined ? undefined : this.#model.fold(model);
    const target: CallTarget = {
      operation: endpoint.operation,
      provider: this.#provider.fold(endpoint.provider),
      server: this.#server.fold(endpoint.serverAddress),
      model: folded,
      lane: this.#lane.fold(endpoint.configuredLane ?? `${endpoint.provider}/${folded ?? 'unknown'}`),
      spanName: folded === undefined ? endpoint.operation : `${endpoint.operation} ${folded}`,
      sets: new Map(),
    };
    if (byModel === undefined) {
      byModel = new Map();
      this.#byEndpoint.set(endpoint, byModel);
    }
    // A model folded into `other` is not kept as a key: nothing past the cap stays in memory.
    if (byModel.size < MAX_MODELS_PER_ENDPOINT && (folded === model || model === undefined)) {
      byModel.set(model, target);
    }
    return target;
  }

  /** The attributes of a call to `target` that ended so: built once per combination. */
  attributesOf(
    target: CallTarget,
    outcome: Outcome,
    attempt: number,
    sizeBytes: number | undefined,
    statusCode: number | undefined,
    errorType: string | undefined,
  ): MetricAttributes {
    const sizeClass = sizeBytes === undefined ? undefined : sizeClassOf(sizeBytes);
    const attemptIndex = attempt >= 4 ? 3 : attempt - 1;
    const foldedError = errorType === undefined ? undefined : this.#errorType.fold(errorType);
    // Outcome, attempt and size class are a few values each; a status code is below 1000.
    const code =
      (((statusCode === undefined ? 1000 : statusCode) * 4 + OUTCOMES.indexOf(outcome)) * 4 + attemptIndex) *
        8 +
      (sizeClass === undefined ? 7 : SIZE_CLASSES.indexOf(sizeClass));
    const cacheable =
      statusCode === undefined || (Number.isInteger(statusCode) && statusCode >= 0 && statusCode < 1000);
    const key = foldedError === undefined ? code : `${code}:${foldedError}`;
    const known = cacheable ? target.sets.get(key) : undefined;
    if (known !== undefined) return known;
    const attributes: Attributes = {
      [ATTR.operationName]: target.operation,
      [ATTR.providerName]: target.provider,
      [ATTR.serverAddress]: target.server,
      [ATTR.lane]: target.lane,
      [ATTR.outcome]: outcome,
      [ATTR.attempt]: attempt >= 4 ? '4+' : String(attempt),
    };
    if (target.model !== undefined) attributes[ATTR.requestModel] = target.model;
    if (sizeClass !== undefined) attributes[ATTR.sizeClass] = sizeClass satisfies SizeClass;
    if (statusCode !== undefined) attributes[ATTR.statusCode] = statusCode;
    if (foldedError !== undefined) attributes[ATTR.errorType] = foldedError;
    const sets = new MetricAttributes(attributes);
    if (cacheable && target.sets.size < MAX_SETS_PER_TARGET) target.sets.set(key, sets);
    return sets;
  }
}
