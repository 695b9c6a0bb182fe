import type { Distribution } from '../lane-observation.ts';
import type { ExponentialHistogram } from './exponential-histogram.ts';
import { relativeErrorAt } from './exponential-mapping.ts';
import { quantile } from './quantile.ts';

/**
 * A merged histogram seen through the `Distribution` contract. `extraRelativeError` is the error the
 * samples already carried before they reached this histogram (explicit-bucket input, see
 * explicit-histogram.ts); the two bounds compound.
 */
export class HistogramDistribution implements Distribution {
  readonly count: number;
  readonly sum: number | undefined;
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly relativeError: number;
  readonly histogram: ExponentialHistogram;

  constructor(histogram: ExponentialHistogram, extraRelativeError = 0) {
    this.histogram = histogram;
    this.count = histogram.count;
    this.sum = histogram.sum;
    this.min = histogram.min;
    this.max = histogram.max;
    const bucketError = relativeErrorAt(histogram.scale);
    this.relativeError =
      extraRelativeError === 0 ? bucketError : (1 + bucketError) * (1 + extraRelativeError) - 1;
  }

  quantile(q: number): number | undefined {
    return quantile(this.histogram, q);
  }
}
