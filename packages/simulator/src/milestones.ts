import type { RequestRecord } from './provider-server.ts';
import { OUTPUT_KINDS, type PieceKind, type Script, scheduleOf } from './script.ts';
import { wholeReply } from './whole-reply.ts';
import { type WireWriter, type WriteContext, wirePieceBytes } from './wire-format.ts';

/**
 * The milestones of DESIGN §1 as the server sees them, so a test can hold the instrumentation's
 * measurements against them: `headers` (headers sent), `first_chunk` (first bytes of the body),
 * `first_output` (first reasoning, text or tool-call bytes), `first_text` (first text bytes) and `end`
 * (the body ended, was reset, or the error reply went out). A milestone that did not happen is absent.
 */
export type Milestone = 'headers' | 'first_chunk' | 'first_output' | 'first_text' | 'end';
export type Milestones = Partial<Record<Milestone, number>>;

/**
 * When each milestone is due, in ms from the request's arrival, for a script played in a format;
 * `stream: false` for a non-streaming call, which gets its headers and whole body at once.
 */
export function scheduledMilestones(
  script: Script,
  writer: WireWriter,
  context: WriteContext,
  options: { stream?: boolean } = {},
): Milestones {
  if (script.kind === 'stream' && options.stream === false) {
    const whole = wholeReply(script, writer, context);
    return whole.kind === 'reply'
      ? { headers: whole.atMs, end: whole.atMs }
      : whole.kind === 'reset'
        ? { end: whole.atMs }
        : {};
  }
  switch (script.kind) {
    case 'no-answer':
      return {};
    case 'reset':
      return { end: script.delayMs };
    case 'error':
      return { headers: script.headersDelayMs, end: script.headersDelayMs };
    case 'stream': {
      const { headersAtMs, piecesAtMs } = scheduleOf(script);
      const rendered = writer.render(script, context);
      const pieces = script.pieces.map((piece, index) => ({
        kind: piece.kind,
        at: piecesAtMs[index] ?? headersAtMs,
        bytes: wirePieceBytes(rendered[index] ?? ''),
      }));
      const last = script.pieces.at(-1);
      const hangs = script.pieces.some((piece) => piece.kind === 'hang');
      return milestonesOf(
        headersAtMs,
        pieces,
        hangs ? undefined : last ? (piecesAtMs.at(-1) ?? headersAtMs) : headersAtMs,
      );
    }
  }
}

/** When each milestone happened on the server, as `performance.now()` values (the client's clock too). */
export function sentMilestones(record: RequestRecord): Milestones {
  const pieces = record.pieces.map((piece) => ({ kind: piece.kind, at: piece.sentAt, bytes: piece.bytes }));
  const ended = record.ending === 'hang' || record.ending === 'no-answer' ? undefined : record.endedAt;
  if (record.headersSentAt === undefined) return ended === undefined ? {} : { end: ended };
  return milestonesOf(record.headersSentAt, pieces, ended);
}

function milestonesOf(
  headers: number,
  pieces: ReadonlyArray<{ kind: PieceKind; at: number; bytes: number }>,
  end: number | undefined,
): Milestones {
  const written = pieces.filter((piece) => piece.bytes > 0);
  const firstChunk = written[0];
  const firstOutput = written.find((piece) => OUTPUT_KINDS.has(piece.kind));
  const firstText = written.find((piece) => piece.kind === 'text');
  return {
    headers,
    ...(firstChunk ? { first_chunk: firstChunk.at } : {}),
    ...(firstOutput ? { first_output: firstOutput.at } : {}),
    ...(firstText ? { first_text: firstText.at } : {}),
    ...(end === undefined ? {} : { end }),
  };
}
