// Seeded sample generators for tests and benchmarks: the same seed gives the same samples on every
// machine, so a failing bound can be replayed.

/** mulberry32: a small, fast 32-bit PRNG returning values in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  // Box–Muller; 1 − u keeps the logarithm away from 0.
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Lognormal samples: a latency with median e^mu seconds and spread sigma. */
export function lognormalSamples(n: number, seed: number, mu = Math.log(0.4), sigma = 0.8): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => Math.exp(mu + sigma * normal(random)));
}

/** Pareto samples (heavy tail, infinite variance when alpha < 2) with minimum `scale`. */
export function paretoSamples(n: number, seed: number, alpha = 1.2, scale = 0.05): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => scale / (1 - random()) ** (1 / alpha));
}
