/**
 * A small deterministic generator: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator,
 * from PractRand) seeded by hashing a list of integer keys. Keys are usually (seed, request index,
 * stream), so request n of a lane draws the same numbers whatever came before it or ran beside it.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  uniform(min: number, max: number): number;
  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** Standard normal (Box–Muller). */
  normal(): number;
  /** Lognormal with the given median and σ of the underlying normal: median · e^(σ·z). */
  lognormal(median: number, sigma: number): number;
}

/** Murmur3's 32-bit finaliser: every input bit flips about half of the output bits. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seed given as text (a lane name, a CLI flag) becomes a 32-bit key by FNV-1a. */
export function seedOf(seed: number | string): number {
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    return (seed >>> 0) ^ fmix32(Math.floor(seed / 2 ** 32));
  }
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    hash ^= seed.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function seededRandom(...keys: readonly number[]): Random {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = 0x13198a2e;
  for (const key of keys) {
    a = fmix32(a ^ key);
    b = fmix32(b + a);
    c = fmix32(c ^ b);
    d = fmix32(d + c);
  }
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 2 ** 32;
  };
  // Discard the first outputs, which still show the structure of the seeding.
  for (let i = 0; i < 12; i++) next();
  const normal = () => {
    const u = 1 - next(); // (0, 1]: log(u) is finite
    const v = next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return {
    next,
    uniform: (min, max) => min + (max - min) * next(),
    int: (min, max) => min + Math.floor((max - min + 1) * next()),
    chance: (p) => next() < p,
    normal,
    lognormal: (median, sigma) => median * Math.exp(sigma * normal()),
  };
}
