import type { Diagnosis } from './names.ts';

/** Instants in ms from t1; a milestone that did not happen is `undefined`. */
export interface Phases {
  readonly headers: number | undefined;
  readonly firstOutput: number | undefined;
  readonly firstText: number | undefined;
  readonly end: number | undefined;
}

/**
 * Names the phase that took the largest share of the call, in the order a reader should check
 * them: before headers (network, admission, queue), headers → first output (prefill, reasoning
 * start), first output → first text (tool calls or reasoning before prose), first text → end
 * (decode speed). Undefined until there are at least two phases to compare.
 */
export function diagnose(p: Phases): Diagnosis | undefined {
  if (p.headers === undefined || p.end === undefined) return undefined;
  const output = p.firstOutput ?? p.firstText;
  if (output === undefined) return undefined;
  const segments: Array<[Diagnosis, number]> = [
    ['upstream_headers_slow', p.headers],
    ['output_after_headers_slow', output - p.headers],
  ];
  if (p.firstText !== undefined) {
    segments.push(['text_after_action_slow', p.firstText - output]);
    segments.push(['generation_slow', p.end - p.firstText]);
  }
  let best = segments[0] as [Diagnosis, number];
  for (const s of segments) if (s[1] > best[1]) best = s;
  return best[0];
}
