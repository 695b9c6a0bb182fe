// Test support for the format detectors: golden cases and a recording observer. Not part of the
// package's API (tests only).

import { Buffer } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStreamCodec } from '@smithy/core/event-streams';
import type { PathFamily } from '../../request-identity.ts';
import type { DetectorOptions, Format, FormatName, StreamObserver } from '../stream-observer.ts';

export interface GoldenCase {
  readonly name: string;
  readonly path: string;
  readonly contentType: string;
  /** The family the request's host and path gave, where the path alone does not decide. */
  readonly family?: PathFamily;
  readonly format: FormatName;
  /**
   * The body with `{{SECRET}}` where the provider would put text, reasoning, arguments or a message.
   * For a binary AWS event stream (`input.eventstream.json`), its messages as `EventStreamSpec`s.
   */
  readonly template: string;
  /** `text`: the body as written, in any line ending; `eventstream`: messages encoded by AWS's codec. */
  readonly encoding: 'text' | 'eventstream';
  /** The observer calls, one per line, as `RecordingObserver` writes them. */
  readonly expected: readonly string[];
}

const here = import.meta.dirname;

export function loadGoldenCases(): GoldenCase[] {
  return readdirSync(here, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const dir = join(here, entry.name);
      const files = readdirSync(dir);
      const input = files.find((file) => file.startsWith('input.'));
      if (input === undefined) throw new Error(`testdata/${entry.name} has no input file`);
      const meta = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8')) as {
        path: string;
        contentType: string;
        family?: PathFamily;
        format: FormatName;
      };
      return {
        name: entry.name,
        ...meta,
        template: readFileSync(join(dir, input), 'utf8'),
        encoding: input.endsWith('.eventstream.json') ? ('eventstream' as const) : ('text' as const),
        expected: readFileSync(join(dir, 'expected.txt'), 'utf8').split('\n').filter(Boolean),
      };
    });
}

/** Neutral text with multi-byte UTF-8 (2, 3 and 4 bytes), so splits can cut inside a code point. */
export const PLAIN_TEXT = 'naïve café ☕ 🙂';

export type LineEnding = '\n' | '\r\n' | '\r';
export const LINE_ENDINGS: readonly LineEnding[] = ['\n', '\r\n', '\r'];

export function bodyOf(template: string, secret: string, ending: LineEnding = '\n'): Buffer {
  const text = template.replaceAll('{{SECRET}}', secret);
  return Buffer.from(ending === '\n' ? text : text.replaceAll('\n', ending), 'utf8');
}

/** The body of a golden case with `secret` in it: text in `ending`, or an encoded event stream. */
export function goldenBody(
  golden: Pick<GoldenCase, 'encoding'>,
  template: string,
  secret: string,
  ending: LineEnding = '\n',
): Buffer {
  if (golden.encoding === 'text') return bodyOf(template, secret, ending);
  const specs = JSON.parse(template.replaceAll('{{SECRET}}', secret)) as EventStreamSpec[];
  return eventStream(...specs);
}

/** The line endings a golden case is read in: all three for text, none for an event stream. */
export function endingsOf(golden: Pick<GoldenCase, 'encoding'>): readonly LineEnding[] {
  return golden.encoding === 'text' ? LINE_ENDINGS : ['\n'];
}

/**
 * One AWS event-stream message: string headers, and a payload that is `json` encoded, `bytes` as
 * Bedrock's InvokeModelWithResponseStream wraps a model's JSON (`{"bytes":"<base64>","p":…}`),
 * `bytesRaw` wrapped the same way as it is, or `raw` as it is.
 */
export interface EventStreamSpec {
  readonly headers: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly bytes?: unknown;
  readonly bytesRaw?: string;
  readonly raw?: string;
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

function payloadOf(spec: EventStreamSpec): string {
  if (spec.raw !== undefined) return spec.raw;
  if (spec.bytesRaw !== undefined || spec.bytes !== undefined) {
    const inner = spec.bytesRaw ?? JSON.stringify(spec.bytes);
    return JSON.stringify({ bytes: Buffer.from(inner, 'utf8').toString('base64'), p: 'abcdefghijklmnopq' });
  }
  return JSON.stringify(spec.json ?? {});
}

/** AWS event-stream messages, encoded by AWS's own codec (CRCs and all), one after the other. */
export function eventStream(...specs: EventStreamSpec[]): Buffer {
  return Buffer.concat(
    specs.map((spec) =>
      codec.encode({
        headers: Object.fromEntries(
          Object.entries(spec.headers).map(([name, value]) => [name, { type: 'string', value }]),
        ),
        body: Buffer.from(payloadOf(spec), 'utf8'),
      }),
    ),
  );
}

export class RecordingObserver implements StreamObserver {
  readonly calls: string[] = [];
  event(): void {
    this.calls.push('event');
  }
  output(kind: string): void {
    this.calls.push(`output ${kind}`);
  }
  usage(inputTokens: number | undefined, outputTokens: number | undefined): void {
    this.calls.push(`usage ${inputTokens ?? '-'} ${outputTokens ?? '-'}`);
  }
  terminal(): void {
    this.calls.push('terminal');
  }
  streamError(providerType: string): void {
    this.calls.push(`streamError ${providerType}`);
  }
  oversizedLine(): void {
    this.calls.push('oversizedLine');
  }
}

/** Cuts `body` at the given offsets (any order, duplicates and out-of-range ones ignored). */
export function splitAt(body: Buffer, offsets: readonly number[]): Buffer[] {
  const cuts = [...new Set(offsets.filter((at) => at > 0 && at < body.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let start = 0;
  for (const cut of cuts) {
    chunks.push(body.subarray(start, cut));
    start = cut;
  }
  chunks.push(body.subarray(start));
  return chunks;
}

export function byteByByte(body: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < body.length; i += 1) chunks.push(body.subarray(i, i + 1));
  return chunks;
}

/** Feeds `chunks` to a fresh detector of `format`, ends the body, and returns the observer calls. */
export function detect(format: Format, chunks: Iterable<Uint8Array>, options?: DetectorOptions): string[] {
  const observer = new RecordingObserver();
  const detector = format.createDetector(observer, options);
  for (const chunk of chunks) detector.feed(chunk);
  detector.end();
  return observer.calls;
}

/** How many times `JSON.parse` ran during `run`: the detectors' promise is to skip most events. */
export function countJsonParses(run: () => void): number {
  const parse = JSON.parse;
  let count = 0;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    count += 1;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  try {
    run();
  } finally {
    JSON.parse = parse;
  }
  return count;
}

/** One SSE event per `data` value (objects are JSON-encoded), with an optional event name each. */
export function sse(...events: (object | string | [name: string, data: object | string])[]): Buffer {
  const text = events
    .map((event) => {
      const [name, data] = Array.isArray(event) ? event : [undefined, event];
      const payload = typeof data === 'string' ? data : JSON.stringify(data);
      return `${name === undefined ? '' : `event: ${name}\n`}data: ${payload}\n\n`;
    })
    .join('');
  return Buffer.from(text, 'utf8');
}

export function ndjson(...records: object[]): Buffer {
  return Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''), 'utf8');
}
