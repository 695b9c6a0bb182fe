/**
 * Server-sent events framing (WHATWG HTML §9.2 "event stream"): fields are `name: value` lines, an
 * empty line dispatches the event, a line starting with `:` is a comment. Every provider here puts
 * one JSON document on a single `data:` line, so values never contain a line break.
 */
export type LineEnding = '\n' | '\r\n';

export function sseEvent(data: string, eol: LineEnding, event?: string): string {
  return event === undefined ? `data: ${data}${eol}${eol}` : `event: ${event}${eol}data: ${data}${eol}${eol}`;
}

export function sseComment(text: string, eol: LineEnding): string {
  return `: ${text}${eol}${eol}`;
}
