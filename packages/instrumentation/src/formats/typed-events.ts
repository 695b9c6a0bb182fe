import type { Buffer } from 'node:buffer';
import { type JsonObject, parseObject } from './json-scan.ts';
import { createSseParser } from './sse-parser.ts';
import type { Format, FormatName } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * Reads one complete event of a typed stream. `body` is the event's data already parsed when it
 * had to be parsed to learn the type, else undefined: parse it (`body ??= parseObject(…)`) only if
 * the type says it matters.
 */
export type TypedEventReader = (
  type: string,
  body: JsonObject | undefined,
  buffer: Buffer,
  start: number,
  end: number,
  report: StreamReport,
) => void;

/**
 * A format whose SSE events are named by type, the data carrying the same `type` (Anthropic
 * Messages, OpenAI Responses): the event's name decides, so most events are never parsed. An
 * unnamed event — a proxy that drops the names; the SDKs skip such events — is typed by its data's
 * `type`, and skipped without one. Every non-empty event counts, complete or not.
 */
export function typedEventFormat(name: FormatName, read: TypedEventReader): Format {
  return {
    name,
    hasTerminal: true,
    createDetector(observer, options) {
      const report = createStreamReport(observer);
      const parser = createSseParser(
        {
          onEvent(event) {
            const { buffer, start, end } = event;
            if (start === end && !event.incomplete) return;
            report.event();
            if (event.incomplete) return;
            if (event.type !== 'message') {
              read(event.type, undefined, buffer, start, end, report);
              return;
            }
            const body = parseObject(buffer, start, end);
            if (body !== undefined && typeof body.type === 'string')
              read(body.type, body, buffer, start, end, report);
          },
          onIssue: () => report.oversizedLine(),
        },
        options,
      );
      return { feed: parser.feed, end: parser.reset };
    },
  };
}
