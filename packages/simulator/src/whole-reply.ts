import type { StreamScript } from './script.ts';
import { scheduleOf } from './script.ts';
import { errorStatusOf } from './script-content.ts';
import type { HttpReply, WireWriter, WriteContext } from './wire-format.ts';

/**
 * How a non-streaming call plays a stream script: nothing is sent until the response is whole, so
 * the headers and the whole body leave at the time of the script's last piece. A fault in the script
 * happens at its own time instead: `reset` resets, `hang` never answers, and an in-stream `error`
 * becomes the error reply a non-streaming call gets (overloaded → 529 on Anthropic, 503 elsewhere).
 */
export type WholeReply =
  | {
      readonly kind: 'reply';
      readonly atMs: number;
      readonly reply: HttpReply;
      readonly ending: 'complete' | 'error-reply';
    }
  | { readonly kind: 'reset'; readonly atMs: number }
  | { readonly kind: 'hang'; readonly atMs: number };

export function wholeReply(script: StreamScript, writer: WireWriter, context: WriteContext): WholeReply {
  const { headersAtMs, piecesAtMs } = scheduleOf(script);
  for (const [index, piece] of script.pieces.entries()) {
    const atMs = piecesAtMs[index] ?? headersAtMs;
    if (piece.kind === 'reset' || piece.kind === 'hang') return { kind: piece.kind, atMs };
    if (piece.kind === 'error') {
      const status = errorStatusOf(piece.errorType, writer.format === 'anthropic' ? 529 : 503);
      const reply = writer.errorReply(
        { kind: 'error', status, headersDelayMs: atMs, ...(piece.message ? { message: piece.message } : {}) },
        context,
      );
      return { kind: 'reply', atMs, reply, ending: 'error-reply' };
    }
  }
  const atMs = piecesAtMs.at(-1) ?? headersAtMs;
  return { kind: 'reply', atMs, reply: writer.complete(script, context), ending: 'complete' };
}
