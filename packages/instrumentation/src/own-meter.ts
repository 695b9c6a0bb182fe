import { type Attributes, diag, type Meter } from '@opentelemetry/api';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  AggregationType,
  type CollectionResult,
  type DataPoint,
  type IMetricReader,
  MeterProvider,
  type MetricCollectOptions,
  type MetricData,
  type MetricProducer,
  MetricReader,
  type ScopeMetrics,
  type ViewOptions,
} from '@opentelemetry/sdk-metrics';
import { INSTRUMENTATION_SCOPE } from './names.ts';
import { VERSION } from './version.ts';

/**
 * lanewatch's histograms in a meter provider of its own, whose points reach the application SDK's
 * readers through their `metricProducers`: what `register` runs.
 *
 * Why: the SDK finds a point's series by hashing its attributes on every record (their keys sorted,
 * then JSON) — for lanewatch's nine attributes and eight records a call, the largest single part of
 * what recording a call costs. Here each attribute set is given an index once, and a point is
 * recorded with one attribute, `lanewatch.set`, holding it; at each collection the producer puts
 * the set back on the point. The SDK still does everything else — aggregation (the same views),
 * temporality, cardinality limit — each reader's own way: every reader gets a reader of the own
 * provider that follows its choices. Nothing with `lanewatch.set` leaves the producer.
 */
export class OwnMeter {
  readonly sets: AttributeSets;
  readonly #beforeCollect: () => void;
  readonly #readers: FollowingReader[] = [];
  #meter: Meter | undefined;

  /** `beforeCollect` runs before every collection: calls held back for recording are recorded first. */
  constructor(beforeCollect: () => void = () => {}, maxSets = MAX_SETS) {
    this.#beforeCollect = beforeCollect;
    this.sets = new AttributeSets(maxSets);
  }

  /**
   * The producer to give one reader of the application's SDK (`metricProducers: [producer]`);
   * `reader()` returns that reader, whose temporality, aggregation and cardinality limit its points
   * follow. Every producer must be made before `meter()`.
   */
  producerFor(reader: () => ReaderChoices | undefined): MetricProducer {
    if (this.#meter !== undefined) throw new Error('OwnMeter: every producer is made before the meter');
    const following = new FollowingReader(reader);
    this.#readers.push(following);
    return new RestoringProducer(following, this.sets, this.#beforeCollect, () => this.started);
  }

  /** Whether `meter()` was made: until then a producer collects nothing. */
  get started(): boolean {
    return this.#meter !== undefined;
  }

  /**
   * The meter lanewatch records into (made once), with the views that choose its histograms'
   * aggregation (`lanewatchViews()`, or none). A view that filters attributes would see only
   * `lanewatch.set`: none is given here.
   */
  meter(views: readonly ViewOptions[]): Meter {
    this.#meter ??= new MeterProvider({ views: [...views], readers: this.#readers }).getMeter(
      INSTRUMENTATION_SCOPE,
      VERSION,
    );
    return this.#meter;
  }
}

/** The attribute a point carries inside the own provider: the index of its attribute set. */
export const SET_ATTRIBUTE = 'lanewatch.set';
/** Sets given an index, as many as the SDK keeps series per instrument by default. */
const MAX_SETS = 2000;

/**
 * Every attribute set a point was recorded with, by index. Sets with the same content share an index
 * (so they stay one series, as the SDK would keep them); past `maxSets`, a new set is recorded as
 * itself, and the SDK hashes it per record — correct, only slower.
 */
export class AttributeSets {
  readonly #maxSets: number;
  readonly #standIns = new WeakMap<Attributes, Attributes>();
  readonly #byContent = new Map<string, Attributes>();
  readonly #sets: Attributes[] = [];

  constructor(maxSets: number) {
    this.#maxSets = maxSets;
  }

  /** What a point with `attributes` is recorded with: `{ "lanewatch.set": index }`, or `attributes`. */
  standIn(attributes: Attributes): Attributes {
    let standIn = this.#standIns.get(attributes);
    if (standIn !== undefined) return standIn;
    // Equal for the SDK means equal here: its own hash of a set (keys sorted, then JSON).
    const content = JSON.stringify(
      Object.keys(attributes)
        .sort()
        .map((key) => [key, attributes[key]]),
    );
    standIn = this.#byContent.get(content);
    if (standIn === undefined) {
      if (this.#sets.length >= this.#maxSets) standIn = attributes;
      else {
        standIn = Object.freeze({ [SET_ATTRIBUTE]: this.#sets.length });
        this.#sets.push(attributes);
        this.#byContent.set(content, standIn);
      }
    }
    this.#standIns.set(attributes, standIn);
    return standIn;
  }

  /** The attributes a collected point gets back; undefined for an index never given (dropped). */
  restore(point: Attributes): Attributes | undefined {
    const index = point[SET_ATTRIBUTE];
    if (index === undefined) return point;
    return typeof index === 'number' ? this.#sets[index] : undefined;
  }
}

/**
 * What an application's reader chooses for the points it collects: an SDK metric reader, or the
 * push exporter a periodic reader gets its choices from.
 */
export type ReaderChoices = Partial<
  Pick<IMetricReader, 'selectAggregation' | 'selectAggregationTemporality' | 'selectCardinalityLimit'>
>;

/** A reader of the own provider that makes every choice as the application's reader does. */
class FollowingReader extends MetricReader {
  constructor(reader: () => ReaderChoices | undefined) {
    super({
      aggregationSelector: (type) => reader()?.selectAggregation?.(type) ?? { type: AggregationType.DEFAULT },
      aggregationTemporalitySelector: (type) =>
        reader()?.selectAggregationTemporality?.(type) ?? AggregationTemporality.CUMULATIVE,
      cardinalitySelector: (type) => reader()?.selectCardinalityLimit?.(type) ?? MAX_SETS,
    });
  }

  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** The own provider's points for one application reader, each with its attribute set back. */
class RestoringProducer implements MetricProducer {
  readonly #reader: FollowingReader;
  readonly #sets: AttributeSets;
  readonly #beforeCollect: () => void;
  readonly #started: () => boolean;

  constructor(
    reader: FollowingReader,
    sets: AttributeSets,
    beforeCollect: () => void,
    started: () => boolean,
  ) {
    this.#reader = reader;
    this.#sets = sets;
    this.#beforeCollect = beforeCollect;
    this.#started = started;
  }

  async collect(options?: MetricCollectOptions): Promise<CollectionResult> {
    // Before the meter is made nothing was recorded into it, and there is nothing to collect.
    if (!this.#started())
      return { resourceMetrics: { resource: emptyResource(), scopeMetrics: [] }, errors: [] };
    try {
      this.#beforeCollect();
    } catch {
      // Held calls that could not be recorded are lost; the collection goes on.
    }
    let collected: CollectionResult;
    try {
      collected = await this.#reader.collect(options);
    } catch (error) {
      // Its reader was shut down: nothing of lanewatch's in this collection.
      return { resourceMetrics: { resource: emptyResource(), scopeMetrics: [] }, errors: [error] };
    }
    const { resourceMetrics, errors } = collected;
    return {
      resourceMetrics: {
        resource: resourceMetrics.resource,
        scopeMetrics: resourceMetrics.scopeMetrics.map((scope) => this.#restore(scope)),
      },
      errors,
    };
  }

  #restore(scope: ScopeMetrics): ScopeMetrics {
    let unknown = 0;
    const metrics = scope.metrics.map((metric): MetricData => {
      const dataPoints: Array<DataPoint<unknown>> = [];
      for (const point of metric.dataPoints as ReadonlyArray<DataPoint<unknown>>) {
        const attributes = this.#sets.restore(point.attributes);
        if (attributes === undefined) unknown += 1;
        else dataPoints.push({ ...point, attributes });
      }
      return { ...metric, dataPoints } as MetricData;
    });
    if (unknown > 0) diag.warn(`lanewatch: ${unknown} points with an unknown attribute set were dropped`);
    return { ...scope, metrics };
  }
}
