import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';

/**
 * The AWS event stream encoding (`application/vnd.amazon.eventstream`), in which Amazon Bedrock
 * streams: each message is a 12-byte prelude (total length, headers length, CRC32 of the two), typed
 * headers, the payload, and a CRC32 of everything before it. Encoded by Smithy's codec, the one the
 * AWS SDKs decode with, so a frame here is what a real client parses.
 */
const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** One message with string headers, in the order given (Bedrock's order), and a UTF-8 payload. */
export function eventStreamMessage(headers: Readonly<Record<string, string>>, payload: string): Uint8Array {
  const typed: MessageHeaders = {};
  for (const [name, value] of Object.entries(headers)) typed[name] = { type: 'string', value };
  return codec.encode({ headers: typed, body: Buffer.from(payload, 'utf8') });
}

/** Messages written together, as one piece. */
export function concatMessages(messages: readonly Uint8Array[]): Uint8Array {
  return messages.length === 1 && messages[0] ? messages[0] : Buffer.concat(messages);
}
