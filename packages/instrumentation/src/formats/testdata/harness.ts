// Test support for the format detectors: golden cases and a recording observer. Not part of the
// package's API (tests only).

import { Buffer } from 'node:buffer';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DetectorOptions, Format, FormatName, StreamObserver } from '../stream-observer.ts';

export interface GoldenCase {
  readonly name: string;
  readonly path: string;
  readonly contentType: string;
  readonly format: FormatName;
  /** The body with `{{SECRET}}` where the provider would put text, reasoning, arguments or a message. */
  readonly template: string;
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
        format: FormatName;
      };
      return {
        name: entry.name,
        ...meta,
        template: readFileSync(join(dir, input), 'utf8'),
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
