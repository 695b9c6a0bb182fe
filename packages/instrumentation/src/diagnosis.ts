import type { Diagnosis } from './names.ts';

/**
 * Names the phase that took the largest share of the call, in the order a reader should check
 * them: before headers (network, admission, queue), headers → first output (prefill, reasoning
 * start), first output → first text (tool calls or reasoning before prose), first text → end
 * (decode speed). Undefined until there are at least two phases to compare. Instants are in ms from
 * t1; a milestone that did not happen is `undefined`. On a tie the earlier phase is named.
 */
export function diagnose(
  headers: number | undefined,
  firstOutput: number | undefined,
  firstText: number | undefined,
  end: number | undefined,
): Diagnosis | undefined {
  if (headers === undefined || end === undefined) return undefined;
  const output = firstOutput ?? firstText;
  if (output === undefined) return undefined;
  let best: Diagnosis = 'upstream_headers_slow';
  let longest = headers;
  if (output - headers > longest) {
    best = 'output_after_headers_slow';
    longest = output - headers;
  }
  if (firstText !== undefined) {
    if (firstText - output > longest) {
      best = 'text_after_action_slow';
      longest = firstText - output;
    }
    if (end - firstText > longest) best = 'generation_slow';
  }
  return best;
}
