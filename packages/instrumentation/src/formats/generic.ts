import { createNdjsonParser } from './ndjson-parser.ts';
import { createSseParser } from './sse-parser.ts';
import type { Format } from './stream-observer.ts';

/**
 * Streams of an unknown shape: every non-empty SSE event, or every non-blank NDJSON line, is an
 * event (so the first chunk and the end are measured) and nothing is parsed. With no known terminal
 * event, such a stream is never `truncated`.
 */

export const genericSse: Format = {
  name: 'sse',
  hasTerminal: false,
  createDetector(observer, options) {
    const parser = createSseParser(
      {
        onEvent({ start, end, incomplete }) {
          if (end > start || incomplete) observer.event();
        },
        onIssue() {
          observer.oversizedLine?.();
        },
      },
      options,
    );
    return { feed: parser.feed, end: parser.reset };
  },
};

export const genericNdjson: Format = {
  name: 'ndjson',
  hasTerminal: false,
  createDetector(observer, options) {
    const parser = createNdjsonParser(
      {
        onRecord() {
          observer.event();
        },
        onIssue() {
          observer.event();
          observer.oversizedLine?.();
        },
      },
      options,
    );
    return { feed: parser.feed, end: parser.end };
  },
};
