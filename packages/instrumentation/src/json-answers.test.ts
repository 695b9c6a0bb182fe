import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { type ProviderServer, type StreamScript, startProviderServer } from '@lanewatch/simulator';
import { CohereClientV2 } from 'cohere-ai';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { exportedText, type Harness, pointsOf, startHarness, waitFor } from '../test/harness.ts';
import { METRIC, MILESTONE_SPAN_MS } from './names.ts';

/**
 * Calls that are not streamed (`stream: false`, `generateContent`, `converse`, `invoke`): the whole
 * answer comes as one JSON body. lanewatch records the headers and the end, and the token counts
 * the answer reports — never a milestone of a stream it did not see, and never its content.
 */

const CANARY = 'CANARY-answer-77c2';
const messages = [{ role: 'user' as const, content: `question ${CANARY}` }];

function script(): StreamScript {
  return {
    kind: 'stream',
    headersDelayMs: 10,
    pieces: [
      { kind: 'start', delayMs: 10 },
      { kind: 'reasoning', delayMs: 10, text: `plan ${CANARY}` },
      { kind: 'text', delayMs: 10, text: `answer ${CANARY}` },
      { kind: 'finish', delayMs: 10, reason: 'stop' },
      { kind: 'usage', delayMs: 0 },
      { kind: 'done', delayMs: 0 },
    ],
    usage: { inputTokens: 21, outputTokens: 13 },
  };
}

interface Case {
  readonly api: string;
  readonly client: string;
  readonly model: string;
  call(url: string): PromiseLike<unknown>;
}

const CASES: readonly Case[] = [
  {
    api: 'OpenAI Chat Completions',
    client: 'openai',
    model: 'gpt-sim',
    call: (url) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-sim',
        messages,
      }),
  },
  {
    api: 'OpenAI Responses',
    client: 'openai',
    model: 'gpt-sim',
    call: (url) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey: CANARY, maxRetries: 0 }).responses.create({
        model: 'gpt-sim',
        input: `question ${CANARY}`,
      }),
  },
  {
    api: 'Anthropic Messages',
    client: '@anthropic-ai/sdk',
    model: 'claude-sim',
    call: (url) =>
      new Anthropic({ baseURL: url, apiKey: CANARY, maxRetries: 0 }).messages.create({
        model: 'claude-sim',
        max_tokens: 64,
        messages,
      }),
  },
  {
    api: 'Gemini generateContent',
    client: '@google/genai',
    model: 'gemini-sim',
    call: (url) =>
      new GoogleGenAI({
        apiKey: CANARY,
        httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } },
      }).models.generateContent({ model: 'gemini-sim', contents: `question ${CANARY}` }),
  },
  {
    api: 'Ollama /api/chat',
    client: 'ollama',
    model: 'llama-sim',
    call: (url) => new Ollama({ host: url }).chat({ model: 'llama-sim', messages, stream: false }),
  },
  {
    api: 'Cohere v2 chat',
    client: 'cohere-ai',
    model: 'command-sim',
    call: (url) =>
      new CohereClientV2({ token: CANARY, baseUrl: url, maxRetries: 0 }).chat({
        model: 'command-sim',
        messages,
      }),
  },
  {
    api: 'Bedrock Converse',
    client: '@ai-sdk/amazon-bedrock',
    model: 'us.amazon.nova-premier-v1:0',
    call: (url) =>
      createAmazonBedrock({
        baseURL: url,
        region: 'us-east-1',
        accessKeyId: `AKIA${CANARY}`,
        secretAccessKey: CANARY,
        sessionToken: CANARY,
      })('us.amazon.nova-premier-v1:0').doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: `question ${CANARY}` }] }],
      }),
  },
  {
    // InvokeModel answers in the model's own JSON; the counts come in Bedrock's headers.
    api: 'Bedrock InvokeModel',
    client: '@anthropic-ai/bedrock-sdk',
    model: 'anthropic.claude-sonnet-4-20250514-v1:0',
    call: (url) =>
      new AnthropicBedrock({
        baseURL: url,
        awsRegion: 'us-east-1',
        awsAccessKey: `AKIA${CANARY}`,
        awsSecretKey: CANARY,
        awsSessionToken: CANARY,
        maxRetries: 0,
      }).messages.create({ model: 'anthropic.claude-sonnet-4-20250514-v1:0', max_tokens: 64, messages }),
  },
];

async function assertAnswer(c: Case, h: Harness, server: ProviderServer, coded: boolean) {
  const before = server.sends.length;
  await c.call(server.url);
  await server.settled();
  const record = server.sends[before];
  assert.ok(record, 'the server saw the request');
  // The clients ask for gzip and deflate (br too over https): the server picks one when it compresses.
  assert.equal(
    record.contentEncoding !== undefined,
    coded,
    `the answer was coded: ${record.contentEncoding}`,
  );
  // A coded answer's span ends once lanewatch's decoder has read it, which may be after the client.
  const own = () => h.finishedSpans().filter((s) => s.attributes['server.port'] === server.port);
  await waitFor(() => own().length > 0);
  const [span, ...more] = own();
  assert.ok(span, 'one span');
  assert.equal(more.length, 0, 'one span');
  const a = span.attributes;
  assert.equal(a['gen_ai.request.model'], c.model);
  assert.equal(a['lanewatch.outcome'], 'ok', `outcome (error.type ${a['error.type']})`);
  assert.equal(a['gen_ai.usage.input_tokens'], 21, 'the input tokens the answer reports');
  assert.equal(a['gen_ai.usage.output_tokens'], 13, 'the output tokens the answer reports');
  assert.equal(typeof a[MILESTONE_SPAN_MS.headers], 'number');
  assert.equal(typeof a[MILESTONE_SPAN_MS.end], 'number');
  for (const m of ['first_chunk', 'first_output', 'first_text'] as const) {
    assert.equal(a[MILESTONE_SPAN_MS[m]], undefined, `no ${m}: nothing was streamed`);
  }
  assert.equal(a['lanewatch.format'], undefined, 'not a stream format');
  assert.equal(a['lanewatch.output_tokens_per_second'], undefined, 'no generation time without a first text');

  const collected = await h.collect();
  const tokens = pointsOf(collected, METRIC.tokenUsage).map((p) => [
    p.attributes['gen_ai.token.type'],
    (p.value as { sum: number }).sum,
  ]);
  assert.deepEqual(
    tokens.sort(),
    [
      ['input', 21],
      ['output', 13],
    ],
    'gen_ai.client.token.usage has the call',
  );
  assert.ok(!(await exportedText(h)).includes(CANARY), 'no prompt, answer, key or query anywhere');
}

describe(`whole JSON answers through their official clients (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  let compressing: ProviderServer;
  before(async () => {
    h = startHarness();
    server = await startProviderServer({ respond: () => script() });
    compressing = await startProviderServer({ respond: () => script(), compress: true });
    await CASES[0]?.call(server.url); // the first request of a process loads undici's parser
  });
  after(async () => {
    await server.close();
    await compressing.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  for (const c of CASES) {
    it(`${c.api} (${c.client}): headers, end and the answer's token counts; no stream milestone, no content`, () =>
      assertAnswer(c, h, server, false));
    it(`${c.api} (${c.client}), compressed: the same, read through lanewatch's own decoder`, () =>
      assertAnswer(c, h, compressing, true));
  }
});
