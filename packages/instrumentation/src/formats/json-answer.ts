import { Buffer } from 'node:buffer';
import type { PathFamily } from '../request-identity.ts';
import { readMessageUsage } from './anthropic-messages.ts';
import { converseUsage } from './bedrock.ts';
import { readCohereUsage } from './cohere-chat.ts';
import { readUsageMetadata } from './gemini.ts';
import { isObject, type JsonObject, objectAt, parseObject, skipWhitespace, stringEnd } from './json-scan.ts';
import { readOllamaUsage } from './ollama.ts';
import { readChatUsage } from './openai-chat.ts';
import { readResponseUsage } from './openai-responses.ts';
import type { StreamDetector, StreamObserver } from './stream-observer.ts';
import { createStreamReport, type StreamReport } from './stream-report.ts';

/**
 * A whole JSON answer (`stream: false`) of an LLM API: no stream, so no first event, output or text
 * — only the token counts the answer reports at its end, read from its last `ANSWER_TAIL_BYTES`.
 */

/** How much of an answer's end is kept: its usage follows the content, and little comes after it. */
export const ANSWER_TAIL_BYTES = 16 * 1024;

interface AnswerUsage {
  /** The top-level members the counts are in, looked for in the tail of an answer too long to parse whole. */
  readonly keys: readonly string[];
  /** Reports the counts of the answer's top-level object (or of one holding just `keys`). */
  read(answer: JsonObject, report: StreamReport): void;
}

const USAGE: Readonly<Partial<Record<PathFamily, AnswerUsage>>> = {
  openai_chat: { keys: ['usage'], read: readChatUsage },
  openai_responses: { keys: ['usage'], read: readResponseUsage },
  anthropic_messages: { keys: ['usage'], read: readMessageUsage },
  gemini: { keys: ['usageMetadata'], read: readUsageMetadata },
  ollama: { keys: ['prompt_eval_count', 'eval_count'], read: readOllamaUsage },
  cohere_chat: {
    keys: ['usage'],
    read: (answer, report) => readCohereUsage(objectAt(answer, 'usage'), report),
  },
  bedrock_converse: {
    keys: ['usage'],
    read: (answer, report) => converseUsage(objectAt(answer, 'usage'), report),
  },
};

/** Whether a content type is `application/json` (with any parameters). */
function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const mediaType = semicolon === -1 ? contentType : contentType.slice(0, semicolon);
  return mediaType.trim().toLowerCase() === 'application/json';
}

/**
 * A detector that reads the token counts of a whole JSON answer of `family`'s API, when the
 * response is `application/json` and the API reports them in its body; undefined otherwise.
 */
export function answerDetectorFor(
  family: PathFamily | undefined,
  contentType: string | undefined,
  observer: StreamObserver,
): StreamDetector | undefined {
  const usage = family === undefined ? undefined : USAGE[family];
  if (usage === undefined || !isJson(contentType)) return undefined;
  return new AnswerDetector(usage, observer);
}

/**
 * Bedrock's InvokeModel answers in each model's own JSON, and says its token counts in two headers
 * for every model: read from there (`header` gives a response header's value by lower-case name).
 */
export function readBedrockInvokeHeaders(
  header: (name: string) => string | undefined,
  observer: StreamObserver,
): void {
  const count = (name: string) => {
    const value = header(name)?.trim();
    return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
  };
  createStreamReport(observer).usage(
    count('x-amzn-bedrock-input-token-count'),
    count('x-amzn-bedrock-output-token-count'),
  );
}

/** Keeps the last `ANSWER_TAIL_BYTES` of the body (copied: nothing of the caller's is held). */
class AnswerDetector implements StreamDetector {
  readonly #usage: AnswerUsage;
  readonly #report: StreamReport;
  #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;

  constructor(usage: AnswerUsage, observer: StreamObserver) {
    this.#usage = usage;
    this.#report = createStreamReport(observer);
  }

  feed(chunk: Uint8Array): void {
    this.#total += chunk.byteLength;
    const from = Math.max(0, chunk.byteLength - ANSWER_TAIL_BYTES);
    const copy = Buffer.from(chunk.subarray(from));
    this.#chunks.push(copy);
    this.#kept += copy.byteLength;
    while (this.#kept - (this.#chunks[0] as Buffer).byteLength >= ANSWER_TAIL_BYTES) {
      this.#kept -= (this.#chunks.shift() as Buffer).byteLength;
    }
  }

  end(): void {
    const kept = Buffer.concat(this.#chunks, this.#kept);
    this.#chunks = [];
    const tail = kept.subarray(Math.max(0, kept.length - ANSWER_TAIL_BYTES));
    const answer = this.#total === tail.length ? wholeAnswer(tail) : membersAtEnd(tail, this.#usage.keys);
    if (answer !== undefined) this.#usage.read(answer, this.#report);
  }
}

/**
 * The answer's top-level object; for a JSON array of answers (Gemini's `streamGenerateContent`
 * without `alt=sse`), the last one, whose counts are the call's.
 */
function wholeAnswer(body: Buffer): JsonObject | undefined {
  const first = skipWhitespace(body, 0, body.length);
  if (body[first] !== OPEN_BRACKET) return parseObject(body);
  let answers: unknown;
  try {
    answers = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined; // the parser's error quotes the input: dropped unread
  }
  const last = Array.isArray(answers) ? answers.at(-1) : undefined;
  return isObject(last) ? last : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The last member named each of `keys` in the tail of an answer too long to keep whole, as one
 * object: an object or number value after `"key":` that ends inside the tail. The bytes `"key"`
 * cannot be inside a JSON string (its quotes would be escaped), so each is a key of the answer; the
 * last is the top-level one for every API read here, whose counts come after its content.
 */
function membersAtEnd(tail: Buffer, keys: readonly string[]): JsonObject | undefined {
  const answer: Record<string, unknown> = {};
  let found = false;
  for (const key of keys) {
    const value = lastMember(tail, Buffer.from(`"${key}"`));
    if (value === undefined) continue;
    answer[key] = value;
    found = true;
  }
  return found ? answer : undefined;
}

function lastMember(tail: Buffer, quotedKey: Buffer): unknown {
  // (Searching back from `at - 1`: a negative offset would count from the end.)
  for (
    let at = tail.lastIndexOf(quotedKey);
    at !== -1;
    at = at === 0 ? -1 : tail.lastIndexOf(quotedKey, at - 1)
  ) {
    if (at > 0 && tail[at - 1] === BACKSLASH) continue;
    const colon = skipWhitespace(tail, at + quotedKey.length, tail.length);
    if (tail[colon] !== COLON) continue;
    const start = skipWhitespace(tail, colon + 1, tail.length);
    const end = tail[start] === OPEN_BRACE ? objectEnd(tail, start) : numberEnd(tail, start);
    if (end === -1) continue;
    try {
      return JSON.parse(tail.toString('utf8', start, end));
    } catch {} // not JSON after all (its error, quoting the input, dropped unread): an earlier one
  }
  return undefined;
}

/** One past the `}` closing the object that opens at `open`, else -1. */
function objectEnd(json: Buffer, open: number): number {
  let depth = 0;
  for (let i = open; i < json.length; i += 1) {
    const byte = json[i];
    if (byte === QUOTE) {
      i = stringEnd(json, i, json.length);
      if (i === -1) return -1;
    } else if (byte === OPEN_BRACE) depth += 1;
    else if (byte === CLOSE_BRACE) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** One past a non-negative integer starting at `start` and ending before the tail does, else -1. */
function numberEnd(json: Buffer, start: number): number {
  let i = start;
  while (i < json.length && (json[i] as number) >= 0x30 && (json[i] as number) <= 0x39) i += 1;
  return i > start && i < json.length ? i : -1;
}
