import { EventStreamCodec } from '@smithy/core/event-streams';

/** One decoded event stream message: its string headers in wire order and its payload as text. */
export interface DecodedMessage {
  readonly headers: Record<string, string>;
  readonly payload: string;
}

// The AWS SDKs' codec: decoding checks both CRCs and the lengths of every message.
const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** Splits bytes into whole messages and decodes each; throws on a partial message at the end. */
export function decodeEventStream(bytes: Uint8Array): DecodedMessage[] {
  const messages: DecodedMessage[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  while (offset < bytes.byteLength) {
    if (bytes.byteLength - offset < 4) throw new Error(`${bytes.byteLength - offset} stray bytes at the end`);
    const length = view.getUint32(offset, false);
    if (offset + length > bytes.byteLength) throw new Error(`a message of ${length} bytes is cut short`);
    const message = codec.decode(bytes.subarray(offset, offset + length));
    const headers: Record<string, string> = {};
    for (const [name, header] of Object.entries(message.headers)) {
      if (header.type !== 'string') throw new Error(`header ${name} is a ${header.type}, not a string`);
      headers[name] = header.value;
    }
    messages.push({ headers, payload: Buffer.from(message.body).toString('utf8') });
    offset += length;
  }
  return messages;
}

/** A JSON payload with Bedrock's padding checked and taken out. */
export function unpadded(payload: string): Record<string, unknown> {
  const { p, ...rest } = JSON.parse(payload) as Record<string, unknown>;
  if (typeof p !== 'string' || p.length === 0 || !PADDING.startsWith(p)) {
    throw new Error(`payload without Bedrock's padding: ${payload}`);
  }
  return rest;
}

const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A reviewable listing of a stream, one entry per message: its headers, then its payload; the JSON
 * an invoke chunk carries in base64 is shown decoded on the line below it.
 */
export function listMessages(bytes: Uint8Array): string {
  return decodeEventStream(bytes)
    .map(({ headers, payload }) => {
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ');
      const body = JSON.parse(payload) as { bytes?: unknown };
      if (typeof body.bytes !== 'string') return `${head}\n  ${payload}\n`;
      const shown = JSON.stringify({ ...body, bytes: '(base64 of the line below)' });
      return `${head}\n  ${shown}\n  ${Buffer.from(body.bytes, 'base64').toString('utf8')}\n`;
    })
    .join('');
}
