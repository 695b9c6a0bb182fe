/**
 * A strict reading of an event stream for tests (WHATWG HTML §9.2.6): lines end with CRLF, LF or CR;
 * an empty line dispatches; `:` starts a comment. Returns events and comments in order, and throws on
 * anything a provider would never send (an unknown field, an unterminated event).
 */
export interface SseItem {
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

export function parseSse(text: string): SseItem[] {
  const items: SseItem[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.pop() !== '') throw new Error('stream does not end with a line break');
  for (const line of lines) {
    if (line === '') {
      if (data.length > 0) items.push({ ...(event === undefined ? {} : { event }), data: data.join('\n') });
      event = undefined;
      data = [];
    } else if (line.startsWith(':')) {
      items.push({ comment: line.slice(1).trimStart() });
    } else if (line.startsWith('data: ')) {
      data.push(line.slice(6));
    } else if (line.startsWith('event: ')) {
      event = line.slice(7);
    } else {
      throw new Error(`unexpected line in event stream: ${JSON.stringify(line.slice(0, 40))}`);
    }
  }
  if (data.length > 0 || event !== undefined)
    throw new Error('last event is not terminated by an empty line');
  return items;
}

/** The JSON documents of the stream's `data:` lines (skipping `[DONE]`). */
export function sseJson(text: string): Array<Record<string, unknown>> {
  return parseSse(text)
    .filter((item) => item.data !== undefined && item.data !== '[DONE]')
    .map((item) => JSON.parse(item.data ?? '') as Record<string, unknown>);
}
