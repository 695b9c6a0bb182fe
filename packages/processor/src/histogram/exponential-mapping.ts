// Index ↔ boundary mapping of OTLP exponential histograms (OTLP metrics data model, "Exponential
// Histogram"): at scale s the base is 2^(2^-s) and bucket i holds values in (base^i, base^(i+1)] —
// upper-inclusive, so an exact power of two belongs to the bucket it closes.

/** The data model allows scales from -10 to 20; the JS SDK never goes above 20. */
export const MIN_SCALE = -10;
export const MAX_SCALE = 20;

const bits = new DataView(new ArrayBuffer(8));

/** Unbiased binary exponent and whether the mantissa is zero (value is an exact power of two). */
function exponentOf(value: number): { exponent: number; powerOfTwo: boolean } {
  bits.setFloat64(0, value);
  const high = bits.getUint32(0);
  const low = bits.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  const mantissaZero = (high & 0xfffff) === 0 && low === 0;
  if (biased === 0) {
    // Subnormal: no exact exponent field; log2 is exact enough at these magnitudes.
    const exponent = Math.floor(Math.log2(value));
    return { exponent, powerOfTwo: 2 ** exponent === value };
  }
  return { exponent: biased - 1023, powerOfTwo: mantissaZero };
}

/** Bucket index of a positive finite `value` at `scale`. */
export function bucketIndex(value: number, scale: number): number {
  const { exponent, powerOfTwo } = exponentOf(value);
  if (scale <= 0) {
    // value in [2^e, 2^(e+1)): scale-0 bucket e, or e-1 when value is exactly 2^e (upper-inclusive).
    return (powerOfTwo ? exponent - 1 : exponent) >> -scale;
  }
  if (powerOfTwo) return (exponent << scale) - 1;
  const index = Math.ceil(Math.log2(value) * 2 ** scale) - 1;
  // log2 can be off by an ulp next to a boundary; the exponent pins the index to the right octave.
  const low = exponent << scale;
  const high = ((exponent + 1) << scale) - 1;
  return Math.min(Math.max(index, low), high);
}

/** Lower boundary of bucket `index` (exclusive): base^index. */
export function lowerBoundary(index: number, scale: number): number {
  if (scale <= 0) return 2 ** (index * 2 ** -scale);
  return 2 ** (index / 2 ** scale);
}

/** Upper boundary of bucket `index` (inclusive): base^(index+1). */
export function upperBoundary(index: number, scale: number): number {
  return lowerBoundary(index + 1, scale);
}

/**
 * The largest relative error of a bucket's representative value 2LU/(L+U) against any value in the
 * bucket (L, U]: (base − 1) / (base + 1).
 */
export function relativeErrorAt(scale: number): number {
  const base = 2 ** (2 ** -scale);
  return (base - 1) / (base + 1);
}

/** The value within (lower, upper] whose worst relative error over the bucket is smallest. */
export function representativeValue(lower: number, upper: number): number {
  if (upper === Number.POSITIVE_INFINITY) return 2 * lower;
  return (2 * lower * upper) / (lower + upper);
}
