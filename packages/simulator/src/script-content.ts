import type { FinishReason, ProviderErrorType, StreamScript } from './script.ts';

/** One output block of a whole (non-streamed) response: consecutive deltas of a kind, joined. */
export type ContentBlock =
  | { readonly kind: 'reasoning'; text: string }
  | { readonly kind: 'text'; text: string }
  | { readonly kind: 'tool-call'; readonly call: number; readonly name: string; args: string };

/** What a script says in total, for the formats' non-streaming bodies. */
export interface ScriptContent {
  readonly blocks: ContentBlock[];
  readonly finish: FinishReason | undefined;
}

export function contentOf(script: StreamScript): ScriptContent {
  const blocks: ContentBlock[] = [];
  let finish: FinishReason | undefined;
  for (const piece of script.pieces) {
    const last = blocks.at(-1);
    if (piece.kind === 'reasoning' || piece.kind === 'text') {
      if (last?.kind === piece.kind) last.text += piece.text;
      else blocks.push({ kind: piece.kind, text: piece.text });
    } else if (piece.kind === 'tool-call') {
      const open = blocks.find((block) => block.kind === 'tool-call' && block.call === piece.call);
      if (open?.kind === 'tool-call') open.args += piece.args;
      else blocks.push({ kind: 'tool-call', call: piece.call, name: piece.name, args: piece.args });
    } else if (piece.kind === 'finish') {
      finish = piece.reason;
    }
  }
  return { blocks, finish };
}

/** The status a non-streaming call gets for what would have been an in-stream error. */
export function errorStatusOf(type: ProviderErrorType, overloadedStatus = 503): number {
  return type === 'overloaded' ? overloadedStatus : type === 'rate_limited' ? 429 : 500;
}
