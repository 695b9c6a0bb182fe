import { createHash } from 'node:crypto';
import { eventStreamMessage } from './aws-event-stream.ts';
import { seededRandom, seedOf } from './seeded-random.ts';
import type { WriteContext } from './wire-format.ts';

/**
 * Bedrock pads the JSON of every streamed event with a `p` field, a run of these characters of
 * varying length, so that the sizes of the frames do not give away the lengths of the tokens.
 */
const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Writes a response's `event` messages, padding each one; the padding is seeded by the response id. */
export interface BedrockEventWriter {
  /** An event message: `:event-type`, `:content-type: application/json`, `:message-type: event`. */
  event(eventType: string, payload: object): Uint8Array;
}

export function bedrockEventWriter(context: WriteContext): BedrockEventWriter {
  const random = seededRandom(seedOf(context.id), seedOf('bedrock-padding'));
  return {
    event(eventType, payload) {
      const padded = { ...payload, p: PADDING.slice(0, random.int(1, PADDING.length)) };
      return eventStreamMessage(
        { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
        JSON.stringify(padded),
      );
    },
  };
}

/** `x-amzn-requestid`: a UUID, derived from the response id so that golden files stay fixed. */
export function bedrockRequestId(context: WriteContext): string {
  const hex = createHash('sha256').update(context.id).digest('hex');
  // RFC 9562 §5.4: version 4 in the 13th digit, the variant bits 10 in the 17th.
  const variant = (8 + (Number.parseInt(hex.charAt(16), 16) & 3)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
