import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createCohere } from '@ai-sdk/cohere';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import {
  LOCALHOST_TLS,
  type Piece,
  type ProviderServer,
  type RequestRecord,
  type StreamScript,
  startProviderServer,
  type WireFormat,
} from '@lanewatch/simulator';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatCohere } from '@langchain/cohere';
import { ChatOpenAI } from '@langchain/openai';
import { jsonSchema, type LanguageModel, streamText, tool } from 'ai';
import { CohereClient, CohereClientV2 } from 'cohere-ai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import * as undici from 'undici';
import { exportedText, type Harness, startHarness, waitFor } from '../test/harness.ts';
import { MILESTONE_SPAN_MS } from './names.ts';

const CANARY = 'CANARY-fmt-55e1';

/** Reasoning, then a tool call, then text, with the canary inside every piece of content. */
function script(): StreamScript {
  const gap = 12;
  const pieces: Piece[] = [
    { kind: 'start', delayMs: gap },
    { kind: 'heartbeat', delayMs: gap },
    { kind: 'reasoning', delayMs: gap, text: `plan ${CANARY}` },
    { kind: 'tool-call', delayMs: gap, call: 0, name: 'lookup', args: `{"q":"${CANARY}` },
    { kind: 'tool-call', delayMs: gap, call: 0, name: 'lookup', args: '"}' },
    { kind: 'text', delayMs: gap, text: `answer ${CANARY}` },
    { kind: 'text', delayMs: gap, text: ' more' },
    { kind: 'finish', delayMs: gap, reason: 'stop' },
    { kind: 'usage', delayMs: 0 },
    { kind: 'done', delayMs: 0 },
  ];
  return { kind: 'stream', headersDelayMs: 15, pieces, usage: { inputTokens: 21, outputTokens: 13 } };
}

type Fetch = typeof globalThis.fetch;

interface Case {
  readonly format: WireFormat;
  /** How the application calls it: the provider's official client, a common SDK, or plain fetch. */
  readonly client: string;
  /** The model the call names, which the lane is named by (`gen_ai.request.model`). */
  readonly model: string;
  /** The detector that must read it (`lanewatch.format`). */
  readonly detector: string;
  /** Makes the call with `fetch`: the global one, or the undici package's speaking HTTP/2. */
  readonly call: (url: string, fetch: Fetch) => Promise<void>;
  /** Whether the format reports reasoning as its own kind before the tool call. */
  readonly firstOutputKind: 'reasoning' | 'tool_call';
}

const messages = [{ role: 'user' as const, content: `question ${CANARY}` }];

const CASES: Case[] = [
  {
    format: 'openai-chat',
    client: 'openai',
    model: 'gpt-sim',
    detector: 'openai_chat',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, maxRetries: 0, fetch });
      const stream = await client.chat.completions.create({
        model: 'gpt-sim',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _ of stream);
    },
  },
  {
    format: 'openai-responses',
    client: 'openai',
    model: 'gpt-sim',
    detector: 'openai_responses',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, maxRetries: 0, fetch });
      const stream = await client.responses.create({
        model: 'gpt-sim',
        input: `question ${CANARY}`,
        stream: true,
      });
      for await (const _ of stream);
    },
  },
  {
    format: 'anthropic',
    client: '@anthropic-ai/sdk',
    model: 'claude-sim',
    detector: 'anthropic_messages',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new Anthropic({ baseURL: url, apiKey: CANARY, maxRetries: 0, fetch });
      const stream = client.messages.stream({ model: 'claude-sim', max_tokens: 64, messages });
      for await (const _ of stream);
    },
  },
  {
    format: 'gemini',
    client: 'fetch',
    model: 'gemini-sim',
    detector: 'gemini',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const res = await fetch(`${url}/v1beta/models/gemini-sim:streamGenerateContent?alt=sse&key=${CANARY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: CANARY }] }] }),
      });
      await res.text();
    },
  },
  {
    format: 'ollama',
    client: 'fetch',
    model: 'llama-sim',
    detector: 'ollama',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const res = await fetch(`${url}/api/chat`, {
        method: 'POST',
        body: JSON.stringify({ model: 'llama-sim', messages, stream: true, think: true }),
      });
      await res.text();
    },
  },
  {
    format: 'gemini',
    client: '@google/genai',
    model: 'gemini-sim',
    detector: 'gemini',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new GoogleGenAI({
        apiKey: CANARY,
        httpOptions: { baseUrl: url, fetch, retryOptions: { attempts: 1 } },
      });
      const stream = await client.models.generateContentStream({
        model: 'gemini-sim',
        contents: `question ${CANARY}`,
        config: { thinkingConfig: { includeThoughts: true } },
      });
      for await (const _ of stream);
    },
  },
  {
    format: 'ollama',
    client: 'ollama',
    model: 'llama-sim',
    detector: 'ollama',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new Ollama({ host: url, fetch });
      const stream = await client.chat({ model: 'llama-sim', messages, stream: true, think: true });
      for await (const _ of stream);
    },
  },
  {
    // Claude on Amazon Bedrock: Anthropic's events, base64 inside AWS event-stream frames.
    format: 'bedrock-invoke',
    client: '@anthropic-ai/bedrock-sdk',
    model: 'anthropic.claude-sonnet-4-20250514-v1:0',
    detector: 'bedrock_invoke',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const stream = bedrockClaude(url, fetch).messages.stream({
        model: 'anthropic.claude-sonnet-4-20250514-v1:0',
        max_tokens: 64,
        messages,
      });
      for await (const _ of stream);
    },
  },
  {
    // Bedrock's ConverseStream, as the AI SDK calls it (through fetch).
    format: 'bedrock-converse',
    client: '@ai-sdk/amazon-bedrock',
    model: 'us.amazon.nova-premier-v1:0',
    detector: 'bedrock_converse',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const model = createAmazonBedrock({
        baseURL: url,
        region: 'us-east-1',
        accessKeyId: `AKIA${CANARY}`,
        secretAccessKey: CANARY,
        sessionToken: CANARY,
        fetch,
      })('us.amazon.nova-premier-v1:0');
      const { stream } = await model.doStream({
        prompt: [{ role: 'user', content: [{ type: 'text', text: `question ${CANARY}` }] }],
      });
      for await (const _ of stream);
    },
  },
  // The AI SDK's streamText, as its users call it, over each provider it speaks to through fetch.
  {
    format: 'openai-responses',
    client: 'ai (streamText, @ai-sdk/openai)',
    model: 'gpt-sim',
    detector: 'openai_responses',
    firstOutputKind: 'reasoning',
    call: (url, fetch) =>
      aiStreamText(createOpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, fetch }).responses('gpt-sim')),
  },
  {
    format: 'openai-chat',
    client: 'ai (streamText, @ai-sdk/openai chat)',
    model: 'gpt-sim',
    detector: 'openai_chat',
    firstOutputKind: 'reasoning',
    call: (url, fetch) =>
      aiStreamText(createOpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, fetch }).chat('gpt-sim')),
  },
  {
    format: 'anthropic',
    client: 'ai (streamText, @ai-sdk/anthropic)',
    model: 'claude-sim',
    detector: 'anthropic_messages',
    firstOutputKind: 'reasoning',
    call: (url, fetch) =>
      aiStreamText(createAnthropic({ baseURL: `${url}/v1`, apiKey: CANARY, fetch })('claude-sim')),
  },
  {
    format: 'gemini',
    client: 'ai (streamText, @ai-sdk/google)',
    model: 'gemini-sim',
    detector: 'gemini',
    firstOutputKind: 'reasoning',
    call: (url, fetch) =>
      aiStreamText(
        createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: CANARY, fetch })('gemini-sim'),
      ),
  },
  // LangChain's chat models, streamed as its users stream them (through the providers' own clients).
  {
    format: 'openai-chat',
    client: '@langchain/openai',
    model: 'gpt-sim',
    detector: 'openai_chat',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const llm = new ChatOpenAI({
        model: 'gpt-sim',
        apiKey: CANARY,
        maxRetries: 0,
        configuration: { baseURL: `${url}/v1`, fetch },
      });
      for await (const _ of await llm.stream(`question ${CANARY}`));
    },
  },
  {
    format: 'anthropic',
    client: '@langchain/anthropic',
    model: 'claude-sim',
    detector: 'anthropic_messages',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const llm = new ChatAnthropic({
        model: 'claude-sim',
        apiKey: CANARY,
        maxRetries: 0,
        maxTokens: 64,
        anthropicApiUrl: url,
        clientOptions: { fetch },
      });
      for await (const _ of await llm.stream(`question ${CANARY}`));
    },
  },
  // Cohere's own Chat API (`/v2/chat`), through its official client and through the AI SDK.
  {
    format: 'cohere',
    client: 'cohere-ai',
    model: 'command-sim',
    detector: 'cohere_chat',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      const client = new CohereClientV2({ token: CANARY, baseUrl: url, fetch, maxRetries: 0 });
      for await (const _ of await client.chatStream({ model: 'command-sim', messages }));
    },
  },
  {
    format: 'cohere',
    client: 'ai (streamText, @ai-sdk/cohere)',
    model: 'command-sim',
    detector: 'cohere_chat',
    firstOutputKind: 'reasoning',
    call: (url, fetch) =>
      aiStreamText(createCohere({ baseURL: `${url}/v2`, apiKey: CANARY, fetch })('command-sim')),
  },
  {
    // LangChain's ChatCohere streams Cohere's v1 chat: JSON lines, the tool plan before the calls.
    format: 'cohere-v1',
    client: '@langchain/cohere',
    model: 'command-sim',
    detector: 'cohere_chat',
    firstOutputKind: 'reasoning',
    call: async (url, fetch) => {
      // Its own client only takes a key; a client of the same API pointed at the server is its option.
      const client = new CohereClient({ token: CANARY, baseUrl: url, fetch, maxRetries: 0 });
      const llm = new ChatCohere({ model: 'command-sim', client: client as never });
      for await (const _ of await llm.stream(`question ${CANARY}`));
    },
  },
];

/**
 * `streamText` with the tool the script calls, every part of its full stream read; an error the
 * AI SDK reports as a part (it does not throw) fails the call.
 */
async function aiStreamText(model: LanguageModel, maxRetries = 0): Promise<void> {
  const result = streamText({
    model,
    prompt: `question ${CANARY}`,
    tools: {
      lookup: tool({ inputSchema: jsonSchema({ type: 'object', properties: { q: { type: 'string' } } }) }),
    },
    maxOutputTokens: 64,
    maxRetries,
  });
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
  }
}

/** Anthropic's Bedrock client, signing with AWS credentials that are canaries. */
function bedrockClaude(url: string, fetch: Fetch = globalThis.fetch): AnthropicBedrock {
  return new AnthropicBedrock({
    baseURL: url,
    fetch,
    awsRegion: 'us-east-1',
    awsAccessKey: `AKIA${CANARY}`,
    awsSecretKey: CANARY,
    awsSessionToken: CANARY,
    maxRetries: 0,
  });
}

/** The server's send time of the first piece of a kind that the format put on the wire. */
function sentAt(record: RequestRecord, kinds: readonly string[]): number | undefined {
  return record.pieces.find((p) => kinds.includes(p.kind) && p.bytes > 0)?.sentAt;
}

/**
 * One call of a case: every milestone at the server's send time, the tokens, no content anywhere.
 * `protocol` is the HTTP version the server must have seen, `contentEncoding` the coding it sent.
 */
async function assertCase(
  c: Case,
  h: Harness,
  server: ProviderServer,
  fetch: Fetch,
  protocol: '1.1' | '2.0',
  contentEncoding?: 'br' | 'gzip',
): Promise<void> {
  const before = server.sends.length;
  const createdAt: number[] = [];
  const onCreate = () => createdAt.push(performance.now());
  diagnosticsChannel.subscribe('undici:request:create', onCreate);
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  await c.call(server.url, fetch).finally(() => {
    loopDelay.disable();
    diagnosticsChannel.unsubscribe('undici:request:create', onCreate);
  });
  await server.settled();
  const record = server.sends[before];
  assert.ok(record, 'the server saw the request');
  assert.equal(record.httpVersion, protocol, 'the protocol the client negotiated');
  assert.equal(record.contentEncoding, contentEncoding, 'the coding the server chose');
  // A compressed stream's span ends once lanewatch's decoder has caught up with the body, which may
  // be after the client is done: the call's span is the one with this server's port.
  const own = () => h.finishedSpans().filter((s) => s.attributes['server.port'] === server.port);
  await waitFor(() => own().length > 0);
  const [span, ...more] = own();
  assert.ok(span, 'one span');
  assert.equal(more.length, 0, 'one span');
  const a = span.attributes;
  assert.equal(a['lanewatch.format'], c.detector);
  assert.equal(a['gen_ai.request.model'], c.model);
  assert.equal(a['lanewatch.outcome'], 'ok', `outcome (error.type ${a['error.type']})`);
  assert.equal(a['lanewatch.output.kind'], c.firstOutputKind);
  assert.equal(a['gen_ai.usage.input_tokens'], 21);
  assert.equal(a['gen_ai.usage.output_tokens'], 13);

  // Each milestone is seen after the server wrote the piece that makes it, and soon after. The
  // 2 ms precision is asserted by instrumentation.test.ts; here the SDKs parse in the same
  // process, so a loaded machine may delay an observation: by as much as it stalled the
  // process's loop (a CI run once saw 31.9 ms), which is allowed on top of 30 ms.
  const stalledMs = loopDelay.max / 1e6;
  const t1 = createdAt.at(-1) as number;
  const check = (name: keyof typeof MILESTONE_SPAN_MS, sent: number | undefined) => {
    const observed = t1 + (a[MILESTONE_SPAN_MS[name]] as number);
    assert.ok(sent !== undefined, `${name} was sent`);
    assert.ok(observed >= sent - 0.5, `${c.format} ${name}: observed before the server sent it`);
    assert.ok(
      observed - sent <= 30 + stalledMs,
      `${c.format} ${name}: observed ${(observed - sent).toFixed(1)} ms after it was sent (the loop stalled ${stalledMs.toFixed(1)} ms at most)`,
    );
  };
  check('headers', record.headersSentAt);
  check('first_chunk', record.pieces.find((p) => p.bytes > 0 && p.kind !== 'heartbeat')?.sentAt);
  check('first_output', sentAt(record, ['reasoning']));
  check('first_text', sentAt(record, ['text']));
  check('end', record.endedAt);

  const exported = await exportedText(h);
  assert.ok(!exported.includes(CANARY), 'no prompt, output, reasoning, tool arguments, key or query');
}

describe(`provider wire formats through their official clients (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  before(async () => {
    h = startHarness();
    server = await startProviderServer({ respond: () => script() });
    // Warm the client: the first request of a process pays for loading undici's parser.
    await CASES[0]?.call(server.url, globalThis.fetch);
  });
  after(async () => {
    await server.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  for (const c of CASES) {
    it(`${c.format} (${c.client}): every milestone at the server's send time, tokens, no content`, () =>
      assertCase(c, h, server, globalThis.fetch, '1.1'));
  }

  it('anthropic: an in-stream overloaded_error is an error of class stream_error:overloaded_error', async () => {
    const failing = await startProviderServer({
      respond: () => ({
        kind: 'stream',
        headersDelayMs: 5,
        pieces: [
          { kind: 'start', delayMs: 5 },
          { kind: 'text', delayMs: 5, text: CANARY },
          { kind: 'error', delayMs: 5, errorType: 'overloaded', message: CANARY },
        ],
      }),
    });
    try {
      const client = new Anthropic({ baseURL: failing.url, apiKey: CANARY, maxRetries: 0 });
      await assert.rejects(async () => {
        for await (const _ of client.messages.stream({ model: 'claude-sim', max_tokens: 8, messages }));
      });
      const [span] = h.finishedSpans();
      assert.equal(span?.attributes['lanewatch.outcome'], 'error');
      assert.equal(span?.attributes['error.type'], 'stream_error:overloaded_error');
      assert.ok(!JSON.stringify([span?.attributes, span?.status, h.diagnostics]).includes(CANARY));
    } finally {
      await failing.close();
    }
  });

  it('bedrock: an in-stream exception is an error of class stream_error:<its :exception-type>', async () => {
    const failing = await startProviderServer({
      respond: () => ({
        kind: 'stream',
        headersDelayMs: 5,
        pieces: [
          { kind: 'start', delayMs: 5 },
          { kind: 'text', delayMs: 5, text: CANARY },
          { kind: 'error', delayMs: 5, errorType: 'overloaded', message: CANARY },
        ],
      }),
    });
    try {
      await assert.rejects(async () => {
        const stream = bedrockClaude(failing.url).messages.stream({
          model: 'anthropic.claude-sonnet-4-20250514-v1:0',
          max_tokens: 8,
          messages,
        });
        for await (const _ of stream);
      });
      const [span] = h.finishedSpans();
      assert.equal(span?.attributes['lanewatch.format'], 'bedrock_invoke');
      assert.equal(span?.attributes['lanewatch.outcome'], 'error');
      assert.equal(span?.attributes['error.type'], 'stream_error:serviceunavailableexception');
      assert.equal(typeof span?.attributes['lanewatch.first_text_ms'], 'number');
      assert.ok(!JSON.stringify([span?.attributes, span?.status, h.diagnostics]).includes(CANARY));
    } finally {
      await failing.close();
    }
  });

  it('the OpenAI SDK retrying a 429 gives one span per attempt, numbered from its retry header', async () => {
    let n = 0;
    const flaky = await startProviderServer({
      respond: () =>
        n++ === 0 ? { kind: 'error', status: 429, headersDelayMs: 2, retryAfterSeconds: 0 } : script(),
    });
    try {
      const client = new OpenAI({ baseURL: `${flaky.url}/v1`, apiKey: CANARY, maxRetries: 2 });
      const stream = await client.chat.completions.create({ model: 'gpt-sim', messages, stream: true });
      for await (const _ of stream);
      const spans = h.finishedSpans();
      assert.deepEqual(
        spans.map((s) => [
          s.attributes['lanewatch.attempt'],
          s.attributes['lanewatch.outcome'],
          s.attributes['error.type'],
        ]),
        [
          ['1', 'error', 'rate_limited'],
          ['2', 'ok', undefined],
        ],
      );
    } finally {
      await flaky.close();
    }
  });

  // Their retry loops send no retry header (LangChain has the openai client send 0 on every
  // attempt): the retry is known by repeating the failed request, and numbered from it.
  const silentRetries: ReadonlyArray<readonly [string, (url: string) => Promise<void>]> = [
    [
      'the AI SDK',
      (url) => aiStreamText(createOpenAI({ baseURL: `${url}/v1`, apiKey: CANARY }).chat('gpt-sim'), 2),
    ],
    [
      'LangChain',
      async (url) => {
        const llm = new ChatOpenAI({
          model: 'gpt-sim',
          apiKey: CANARY,
          maxRetries: 2,
          configuration: { baseURL: `${url}/v1` },
        });
        for await (const _ of await llm.stream(`question ${CANARY}`));
      },
    ],
    [
      '@google/genai',
      async (url) => {
        const client = new GoogleGenAI({
          apiKey: CANARY,
          httpOptions: { baseUrl: url, retryOptions: { attempts: 2, initialDelay: 0, jitter: 0 } },
        });
        for await (const _ of await client.models.generateContentStream({
          model: 'gemini-sim',
          contents: CANARY,
        }));
      },
    ],
    [
      'cohere-ai',
      async (url) => {
        // Its own loop, 1 s after a 429 whose retry-after is 0, with no retry header.
        const client = new CohereClientV2({ token: CANARY, baseUrl: url, maxRetries: 2 });
        for await (const _ of await client.chatStream({ model: 'command-sim', messages }));
      },
    ],
  ];
  for (const [sdk, call] of silentRetries) {
    it(`${sdk} retrying a 429 gives one span per attempt, numbered from the repeated request`, async () => {
      let n = 0;
      const flaky = await startProviderServer({
        respond: () =>
          n++ === 0 ? { kind: 'error', status: 429, headersDelayMs: 2, retryAfterSeconds: 0 } : script(),
      });
      try {
        await call(flaky.url);
        await waitFor(() => h.finishedSpans().length === 2);
        assert.deepEqual(
          h
            .finishedSpans()
            .map((s) => [
              s.attributes['lanewatch.attempt'],
              s.attributes['lanewatch.outcome'],
              s.attributes['error.type'],
            ]),
          [
            ['1', 'error', 'rate_limited'],
            ['2', 'ok', undefined],
          ],
        );
      } finally {
        await flaky.close();
      }
    });
  }
});

/**
 * The same calls over HTTP/2, as provider APIs serve them: the simulator over TLS offering h2 and
 * http/1.1, each client given the undici 8 package's fetch (which takes h2 by default, as Node 26's
 * global fetch does — http2.test.ts covers that one) with an agent trusting the local certificate.
 */
describe(`provider wire formats through their official clients over HTTP/2 (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  let agent: undici.Agent;
  let h2fetch: Fetch;
  before(async () => {
    h = startHarness();
    server = await startProviderServer({ respond: () => script(), tls: LOCALHOST_TLS });
    agent = new undici.Agent({ connect: { ca: LOCALHOST_TLS.cert } });
    h2fetch = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) =>
      undici.fetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as Fetch;
    await CASES[0]?.call(server.url, h2fetch);
  });
  after(async () => {
    await agent.close();
    await server.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  for (const c of CASES) {
    it(`${c.format} (${c.client}) over h2: every milestone at the server's send time, tokens, no content`, () =>
      assertCase(c, h, server, h2fetch, '2.0'));
  }
});

/**
 * The same calls compressed, as gateways and providers' edges send event streams when the request
 * accepts it: global fetch over HTTP/1.1 asks for gzip, the undici 8 package's fetch over TLS for br
 * (and takes HTTP/2). Each client decodes the body itself; lanewatch reads a copy it decodes.
 */
describe(`provider wire formats through their official clients, compressed (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  let tlsServer: ProviderServer;
  let agent: undici.Agent;
  let h2fetch: Fetch;
  before(async () => {
    h = startHarness();
    server = await startProviderServer({ respond: () => script(), compress: true });
    tlsServer = await startProviderServer({ respond: () => script(), tls: LOCALHOST_TLS, compress: true });
    agent = new undici.Agent({ connect: { ca: LOCALHOST_TLS.cert } });
    h2fetch = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) =>
      undici.fetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as Fetch;
    await CASES[0]?.call(server.url, globalThis.fetch);
    await CASES[0]?.call(tlsServer.url, h2fetch);
    await waitFor(() => h.finishedSpans().length === 2); // before beforeEach's reset
  });
  after(async () => {
    await agent.close();
    await server.close();
    await tlsServer.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  for (const c of CASES) {
    it(`${c.format} (${c.client}), gzip: every milestone at the server's send time, tokens, no content`, () =>
      assertCase(c, h, server, globalThis.fetch, '1.1', 'gzip'));
    it(`${c.format} (${c.client}), br over h2: every milestone at the server's send time, tokens, no content`, () =>
      assertCase(c, h, tlsServer, h2fetch, '2.0', 'br'));
  }
});
