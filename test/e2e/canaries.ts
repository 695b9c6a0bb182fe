// Canary strings: one per place content or a credential enters the pipeline. Each must be absent from
// everything lanewatch writes — the collector's output, Prometheus, Redis and every log.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface Canaries {
  /** In every prompt the app sends. */
  readonly prompt: string;
  /** In every text and reasoning delta the simulated providers stream back. */
  readonly response: string;
  /** The API key, in Authorization, x-api-key and x-goog-api-key headers. */
  readonly apiKey: string;
  /** In the URL query string (where Gemini and Azure take keys and versions). */
  readonly query: string;
}

export function makeCanaries(): Canaries {
  const tag = randomBytes(4).toString('hex');
  return {
    prompt: `lwcanary-prompt-${tag}`,
    response: `lwcanary-response-${tag}`,
    apiKey: `lwcanary-apikey-${tag}`,
    query: `lwcanary-query-${tag}`,
  };
}

/** The first canary found in `text`, with its surroundings, or undefined. */
export function canaryIn(canaries: Canaries, text: string): string | undefined {
  for (const [kind, canary] of Object.entries(canaries)) {
    const at = text.indexOf(canary);
    if (at !== -1) return `${kind} canary: …${text.slice(Math.max(0, at - 100), at + 60)}…`;
  }
  // The common stem too: a canary cut or re-encoded still starts with it.
  const at = text.indexOf('lwcanary-');
  return at === -1 ? undefined : `a canary stem: …${text.slice(Math.max(0, at - 100), at + 60)}…`;
}

export function assertNoCanary(canaries: Canaries, where: string, text: string): void {
  const found = canaryIn(canaries, text);
  assert.equal(found, undefined, `${where} carries content: ${found}`);
}

export function assertNoCanaryInFiles(canaries: Canaries, files: readonly string[]): void {
  for (const file of files) assertNoCanary(canaries, file, readFileSync(file, 'latin1'));
}
