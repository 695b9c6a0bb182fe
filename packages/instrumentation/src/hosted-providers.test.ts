// Providers' models hosted by the clouds, as their users call them: Claude and Mistral on Vertex AI
// (`…/publishers/{publisher}/models/{model}:streamRawPredict`, each in its maker's wire format and
// with the model in the path only), OpenAI models on Azure (`…/openai/deployments/{name}/…`), Claude
// and Nova on Amazon Bedrock (`…/model/{model}/invoke-with-response-stream`, `…/converse-stream`, in
// AWS event streams), and the provider each cloud's host names; and the lane names such models give.
import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { type ProviderServer, type StreamScript, startProviderServer } from '@lanewatch/simulator';
import { AzureOpenAI } from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { exportedText, type Harness, startHarness } from '../test/harness.ts';
import { selectFormat } from './formats/index.ts';
import { LaneConfigError, LaneMap } from './lane-map.ts';
import { isLaneName, LANE_NAME_RULE } from './names.ts';
import { Endpoints, identifyRequest, modelFromJsonBody, pathFamilyOf } from './request-identity.ts';

const CANARY = 'CANARY-hosted-7d20';
const ACCOUNT = '210987654321';
const messages = [{ role: 'user' as const, content: `question ${CANARY}` }];
const VERTEX = '/v1/projects/proj/locations/us-east5/publishers';

/** What the instrumentation makes of a request when undici creates it: the path's model, else the body's. */
function identify(origin: string, path: string, body: unknown = { stream: true }) {
  const bytes = Buffer.from(JSON.stringify(body));
  const identity = identifyRequest(
    { origin, path, method: 'POST', body: bytes },
    new Endpoints(new LaneMap(undefined)),
  );
  assert.ok(identity, `${origin}${path} is followed`);
  return {
    family: identity.endpoint.family,
    provider: identity.endpoint.provider,
    model: identity.model ?? modelFromJsonBody(bytes),
  };
}

describe('hosted models: family, provider and model from the URL', () => {
  it("Vertex AI's partner models speak their maker's format; the model is the path's", () => {
    const host = 'https://us-east5-aiplatform.googleapis.com';
    assert.deepEqual(identify(host, `${VERTEX}/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`), {
      family: 'anthropic_messages',
      provider: 'gcp.vertex_ai',
      model: 'claude-sonnet-4@20250514',
    });
    assert.deepEqual(
      identify(host, `${VERTEX}/mistralai/models/mistral-large-2411:streamRawPredict`, { model: 'other' }),
      { family: 'openai_chat', provider: 'gcp.vertex_ai', model: 'mistral-large-2411' },
    );
    assert.deepEqual(
      identify(host, `${VERTEX}/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`),
      {
        family: 'gemini',
        provider: 'gcp.vertex_ai',
        model: 'gemini-2.5-flash',
      },
    );
    for (const other of ['https://aiplatform.googleapis.com', 'https://aiplatform.eu.rep.googleapis.com']) {
      assert.equal(
        identify(other, `${VERTEX}/anthropic/models/m:streamRawPredict`).provider,
        'gcp.vertex_ai',
      );
    }
    // Publishers whose own format lanewatch does not know, and Vertex's other methods, stay unknown.
    assert.equal(pathFamilyOf(`${VERTEX}/meta/models/llama-4:streamRawPredict`), undefined);
    assert.equal(pathFamilyOf(`${VERTEX}/anthropic/models/count-tokens:countTokens`), undefined);
  });

  it("an Azure OpenAI deployment is the model when the path names one; the body's otherwise", () => {
    for (const host of ['https://res.openai.azure.com', 'https://res.cognitiveservices.azure.com']) {
      assert.deepEqual(
        identify(host, '/openai/deployments/prod-4o/chat/completions?api-version=2024-10-21', { model: 'x' }),
        { family: 'openai_chat', provider: 'azure.ai.openai', model: 'prod-4o' },
      );
      assert.deepEqual(identify(host, '/openai/v1/chat/completions', { model: 'gpt-4o' }), {
        family: 'openai_chat',
        provider: 'azure.ai.openai',
        model: 'gpt-4o',
      });
    }
    assert.equal(
      identify('https://res.services.ai.azure.com', '/models/chat/completions', { model: 'phi-4' }).provider,
      'azure.ai.inference',
    );
  });

  it('each provider host the README names gives its provider; a look-alike host gives the wire family', () => {
    const hosts: ReadonlyArray<readonly [string, string, string]> = [
      ['https://api.openai.com', '/v1/chat/completions', 'openai'],
      ['https://res.openai.azure.com', '/openai/v1/chat/completions', 'azure.ai.openai'],
      ['https://res.cognitiveservices.azure.com', '/openai/v1/chat/completions', 'azure.ai.openai'],
      ['https://res.services.ai.azure.com', '/models/chat/completions', 'azure.ai.inference'],
      ['https://bedrock-runtime.us-east-1.amazonaws.com', '/openai/v1/chat/completions', 'aws.bedrock'],
      [
        'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com',
        '/openai/v1/chat/completions',
        'aws.bedrock',
      ],
      ['https://bedrock-mantle.us-east-1.api.aws', '/anthropic/v1/messages', 'aws.bedrock'],
      ['https://api.anthropic.com', '/v1/messages', 'anthropic'],
      ['https://generativelanguage.googleapis.com', '/v1beta/models/g:streamGenerateContent', 'gcp.gemini'],
      [
        'https://us-central1-aiplatform.googleapis.com',
        '/v1/projects/p/locations/l/publishers/google/models/g:streamGenerateContent',
        'gcp.vertex_ai',
      ],
      [
        'https://aiplatform.eu.rep.googleapis.com',
        '/v1/projects/p/locations/eu/publishers/google/models/g:streamGenerateContent',
        'gcp.vertex_ai',
      ],
      ['https://api.deepseek.com', '/chat/completions', 'deepseek'],
      ['https://api.groq.com', '/openai/v1/chat/completions', 'groq'],
      ['https://api.mistral.ai', '/v1/chat/completions', 'mistral_ai'],
      ['https://openrouter.ai', '/api/v1/chat/completions', 'openrouter'],
      ['https://api.x.ai', '/v1/chat/completions', 'x_ai'],
      ['https://api.perplexity.ai', '/chat/completions', 'perplexity'],
      ['https://api.together.xyz', '/v1/chat/completions', 'together_ai'],
      ['https://api.cohere.ai', '/compatibility/v1/chat/completions', 'cohere'],
      ['https://api.fireworks.ai', '/inference/v1/chat/completions', 'fireworks_ai'],
      ['https://api.cerebras.ai', '/v1/chat/completions', 'cerebras'],
      ['https://api.deepinfra.com', '/v1/openai/chat/completions', 'deepinfra'],
      ['https://api.sambanova.ai', '/v1/chat/completions', 'sambanova'],
      ['https://router.huggingface.co', '/v1/chat/completions', 'huggingface'],
      ['https://integrate.api.nvidia.com', '/v1/chat/completions', 'nvidia'],
      // Look-alikes: the host is not the provider's, so the wire family names it.
      ['https://api.groq.com.example.test', '/openai/v1/chat/completions', 'openai'],
      ['https://notapi.anthropic.com.example.test', '/v1/chat/completions', 'openai'],
      ['https://api.fireworks.ai.example.test', '/v1/messages', 'anthropic'],
      ['https://evil-router.huggingface.co', '/v1/chat/completions', 'openai'],
    ];
    for (const [origin, path, provider] of hosts) {
      assert.equal(identify(origin, path).provider, provider, `${origin}${path}`);
    }
    // Cohere's own chat API: its family, read by its own detector; on another host its family names it.
    for (const origin of ['https://api.cohere.com', 'https://cohere-gateway.example.test']) {
      const cohere = identify(origin, '/v2/chat', { model: 'command-a-03-2025', stream: true });
      assert.deepEqual(
        cohere,
        { family: 'cohere_chat', provider: 'cohere', model: 'command-a-03-2025' },
        origin,
      );
    }
    assert.equal(selectFormat('/v2/chat', 'text/event-stream')?.name, 'cohere_chat');
    // Its v1 path is too plain to name a family anywhere but on Cohere's own hosts.
    assert.deepEqual(identify('https://api.cohere.com', '/v1/chat', { model: 'command-r', stream: true }), {
      family: 'cohere_chat',
      provider: 'cohere',
      model: 'command-r',
    });
    assert.equal(identify('https://chat.example.test', '/v1/chat').family, undefined);
    assert.equal(identify('https://chat.example.test', '/v1/chat').provider, 'unknown');
  });

  it("Bedrock's OpenAI-compatible endpoint is aws.bedrock", () => {
    assert.deepEqual(
      identify('https://bedrock-runtime.us-west-2.amazonaws.com', '/openai/v1/chat/completions', {
        model: 'openai.gpt-oss-120b-1:0',
      }),
      { family: 'openai_chat', provider: 'aws.bedrock', model: 'openai.gpt-oss-120b-1:0' },
    );
  });

  it("Bedrock's model operations: the model is the path's, decoded, and an ARN's last segment", () => {
    const host = 'https://bedrock-runtime.us-east-1.amazonaws.com';
    const claude = 'anthropic.claude-sonnet-4-20250514-v1:0';
    assert.deepEqual(identify(host, `/model/${encodeURIComponent(claude)}/invoke-with-response-stream`), {
      family: 'bedrock_invoke',
      provider: 'aws.bedrock',
      model: claude,
    });
    assert.deepEqual(identify(host, `/model/${encodeURIComponent(`us.${claude}`)}/converse-stream`), {
      family: 'bedrock_converse',
      provider: 'aws.bedrock',
      model: `us.${claude}`,
    });
    for (const [operation, family] of [
      ['invoke', 'bedrock_invoke'],
      ['converse', 'bedrock_converse'],
    ] as const) {
      assert.equal(identify(host, `/model/amazon.nova-pro-v1:0/${operation}`).family, family);
    }
    // An inference profile's or a provisioned model's ARN: the profile or model, not the account.
    const account = ACCOUNT;
    const profile = `arn:aws:bedrock:us-east-1:${account}:application-inference-profile/a1b2c3d4`;
    const byArn = identify(host, `/model/${encodeURIComponent(profile)}/converse-stream`);
    assert.deepEqual(byArn, { family: 'bedrock_converse', provider: 'aws.bedrock', model: 'a1b2c3d4' });
    const unencoded = `arn:aws:bedrock:us-east-1:${account}:inference-profile/us.${claude}`;
    assert.equal(identify(host, `/model/${unencoded}/invoke-with-response-stream`).model, `us.${claude}`);
    // Percent-encoding that does not decode names no model (the body's, when it names one).
    assert.equal(identify(host, '/model/bad%E0%A4%A/converse-stream').model, undefined);
    // The operations are Bedrock's wherever they are served (a proxy, the simulator).
    assert.equal(identify('http://127.0.0.1:9000', '/model/m/converse-stream').provider, 'aws.bedrock');
    // Bedrock's other APIs are not model calls.
    assert.equal(pathFamilyOf('/model/m/count-tokens'), undefined);
    assert.equal(pathFamilyOf('/guardrail/g1/version/1/apply'), undefined);
    assert.equal(pathFamilyOf('/model/invoke'), undefined);
    // Anthropic's and OpenAI's own APIs served by Bedrock (`bedrock-mantle`).
    assert.deepEqual(
      identify('https://bedrock-mantle.us-east-1.api.aws', '/anthropic/v1/messages', { model: claude }),
      { family: 'anthropic_messages', provider: 'aws.bedrock', model: claude },
    );
  });

  it("Bedrock's event streams are read by their operation's detector, others as unknown event streams", () => {
    const eventstream = 'application/vnd.amazon.eventstream';
    assert.equal(selectFormat('/model/m/invoke-with-response-stream', eventstream)?.name, 'bedrock_invoke');
    assert.equal(selectFormat('/model/m%3A0/converse-stream', eventstream)?.name, 'bedrock_converse');
    assert.equal(selectFormat('/v1/stream', eventstream)?.name, 'eventstream');
    assert.equal(selectFormat('/model/m/converse-stream', 'text/event-stream')?.name, 'sse');
    assert.equal(selectFormat('/model/m/converse', 'application/json'), undefined);
  });

  it("a request to a forward proxy in absolute form is the target's: its server, provider and lane, no query", () => {
    // undici 8's ProxyAgent sends an http:// target so, with the proxy as the request's origin.
    const lanes = new LaneMap({ 'fast-lane': 'http://vllm.internal:8000/v1' });
    const via = (path: string) =>
      identifyRequest({ origin: 'http://proxy.corp:3128', path, method: 'POST' }, new Endpoints(lanes))
        ?.endpoint;
    const target = via(`http://user:${CANARY}@vllm.internal:8000/v1/chat/completions?key=${CANARY}`);
    assert.equal(target?.serverAddress, 'vllm.internal');
    assert.equal(target?.serverPort, 8000);
    assert.equal(target?.family, 'openai_chat');
    assert.equal(target?.configuredLane, 'fast-lane');
    assert.equal(target?.path, '/v1/chat/completions');
    assert.ok(!JSON.stringify(target).includes(CANARY), 'no query, no userinfo');
    const known = via('https://api.openai.com/v1/chat/completions');
    assert.equal(known?.provider, 'openai');
    assert.equal(known?.serverAddress, 'api.openai.com');
    // An origin-form path stays the origin's.
    assert.equal(via('/v1/chat/completions')?.serverAddress, 'proxy.corp');
  });

  it("a Vertex AI stream is read with its maker's detector, not as unknown SSE", () => {
    const sse = 'text/event-stream';
    const path = `${VERTEX}/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`;
    assert.equal(selectFormat(path, sse)?.name, 'anthropic_messages');
    assert.equal(selectFormat(`${VERTEX}/mistralai/models/m:streamRawPredict`, sse)?.name, 'openai_chat');
    assert.equal(selectFormat(`${VERTEX}/meta/models/m:streamRawPredict`, sse)?.name, 'sse');
    assert.equal(selectFormat(path, 'application/json'), undefined);
  });
});

/** Reasoning, then text, with the canary in every piece of content. */
function script(): StreamScript {
  return {
    kind: 'stream',
    headersDelayMs: 10,
    pieces: [
      { kind: 'start', delayMs: 8 },
      { kind: 'reasoning', delayMs: 8, text: `plan ${CANARY}` },
      { kind: 'text', delayMs: 8, text: `answer ${CANARY}` },
      { kind: 'text', delayMs: 8, text: ' more' },
      { kind: 'finish', delayMs: 8, reason: 'stop' },
      { kind: 'usage', delayMs: 0 },
      { kind: 'done', delayMs: 0 },
    ],
    usage: { inputTokens: 17, outputTokens: 9 },
  };
}

describe(`hosted models through their official clients (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  before(async () => {
    h = startHarness();
    server = await startProviderServer({ respond: () => script() });
  });
  after(async () => {
    await server.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  /** The one call's span attributes, after checking nothing of its content or credential left. */
  async function onlySpan() {
    await server.settled();
    const spans = h.finishedSpans();
    assert.equal(spans.length, 1, 'one span');
    const exported = await exportedText(h);
    assert.ok(!exported.includes(CANARY), 'no prompt, output, reasoning or credential');
    return spans[0]?.attributes ?? {};
  }

  it('Claude on Vertex AI (@anthropic-ai/vertex-sdk): every milestone, tokens, the model from the path', async () => {
    const client = new AnthropicVertex({
      baseURL: `${server.url}/v1`,
      region: 'us-east5',
      projectId: 'proj',
      // What google-auth-library's clients give the SDK: headers for each request.
      authClient: {
        projectId: 'proj',
        getRequestHeaders: async () => new Headers({ authorization: `Bearer ${CANARY}` }),
      } as never,
      maxRetries: 0,
    });
    const stream = client.messages.stream({
      model: 'claude-sonnet-4@20250514',
      max_tokens: 64,
      messages,
    });
    for await (const _ of stream);
    assert.match(
      server.sends.at(-1)?.request.path ?? '',
      /publishers\/anthropic\/models\/.+:streamRawPredict$/,
    );
    const a = await onlySpan();
    assert.equal(a['lanewatch.format'], 'anthropic_messages');
    assert.equal(a['gen_ai.request.model'], 'claude-sonnet-4@20250514');
    assert.equal(a['lanewatch.lane'], 'anthropic/claude-sonnet-4@20250514');
    assert.equal(a['lanewatch.outcome'], 'ok');
    assert.equal(a['lanewatch.output.kind'], 'reasoning');
    assert.equal(typeof a['lanewatch.first_text_ms'], 'number');
    assert.ok((a['lanewatch.first_text_ms'] as number) > (a['lanewatch.first_output_ms'] as number));
    assert.equal(a['gen_ai.usage.input_tokens'], 17);
    assert.equal(a['gen_ai.usage.output_tokens'], 9);
  });

  it("Cohere's v1 chat asked for SSE: read by its detector on Cohere's host, as plain SSE on another", async () => {
    // api.cohere.com, resolved to the local server: the host is what names Cohere's v1 path.
    const { port } = new URL(server.url);
    const toLoopback = new Agent({
      connect: {
        lookup: (
          _host: string,
          options: LookupOptions,
          done: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
        ) => (options.all ? done(null, [{ address: '127.0.0.1', family: 4 }]) : done(null, '127.0.0.1', 4)),
      },
    });
    const call = async (origin: string) => {
      const res = await undiciFetch(`${origin}/v1/chat`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${CANARY}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ model: 'command-r', message: `question ${CANARY}`, stream: true }),
        dispatcher: toLoopback,
      });
      assert.equal(res.headers.get('content-type'), 'text/event-stream');
      await res.text();
      return onlySpan();
    };
    try {
      const cohere = await call(`http://api.cohere.com:${port}`);
      assert.equal(cohere['lanewatch.format'], 'cohere_chat');
      assert.equal(cohere['gen_ai.provider.name'], 'cohere');
      assert.equal(cohere['lanewatch.outcome'], 'ok');
      assert.equal(cohere['lanewatch.output.kind'], 'reasoning', 'the tool plan comes first');
      assert.ok(
        (cohere['lanewatch.first_text_ms'] as number) > (cohere['lanewatch.first_output_ms'] as number),
      );
      assert.equal(cohere['gen_ai.usage.input_tokens'], 17);
      assert.equal(cohere['gen_ai.usage.output_tokens'], 9);
      h.reset();
      const other = await call(`http://chat.example.test:${port}`);
      assert.equal(other['lanewatch.format'], 'sse');
      assert.equal(other['lanewatch.outcome'], 'ok');
      assert.equal(other['lanewatch.first_text_ms'], undefined, 'an unknown API: first event and end');
      assert.equal(typeof other['lanewatch.first_chunk_ms'], 'number');
    } finally {
      await toLoopback.close();
    }
  });

  it('Mistral on Vertex AI: Chat Completions read at :streamRawPredict', async () => {
    const res = await fetch(`${server.url}${VERTEX}/mistralai/models/mistral-large-2411:streamRawPredict`, {
      method: 'POST',
      headers: { authorization: `Bearer ${CANARY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'mistral-large-2411', messages, stream: true }),
    });
    await res.text();
    const a = await onlySpan();
    assert.equal(a['lanewatch.format'], 'openai_chat');
    assert.equal(a['gen_ai.request.model'], 'mistral-large-2411');
    assert.equal(a['lanewatch.outcome'], 'ok');
    assert.equal(typeof a['lanewatch.first_text_ms'], 'number');
  });

  it('an Azure OpenAI deployment (openai AzureOpenAI): the deployment is the model and names the lane', async () => {
    const client = new AzureOpenAI({
      endpoint: server.url,
      apiKey: CANARY,
      apiVersion: '2024-10-21',
      deployment: 'prod-4o',
      maxRetries: 0,
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _ of stream);
    assert.equal(server.sends.at(-1)?.request.path, '/openai/deployments/prod-4o/chat/completions');
    const a = await onlySpan();
    assert.equal(a['gen_ai.request.model'], 'prod-4o');
    assert.equal(a['lanewatch.lane'], 'openai/prod-4o');
    assert.equal(a['lanewatch.outcome'], 'ok');
    assert.equal(a['gen_ai.usage.output_tokens'], 9);
  });
});

describe('lane names: one rule for the lane map, the lanes file and the probe', () => {
  it('a lane map may name any lane a point can carry, Vertex AI model names included', () => {
    const lanes = new LaneMap({
      'vertex/claude-sonnet-4@20250514': 'https://us-east5-aiplatform.googleapis.com/v1',
    });
    assert.equal(
      lanes.laneOf(
        'https://us-east5-aiplatform.googleapis.com',
        `${VERTEX}/anthropic/models/m:streamRawPredict`,
      ),
      'vertex/claude-sonnet-4@20250514',
    );
    assert.ok(isLaneName('a'.repeat(128)));
  });

  it('refuses, with the rule, a name every point would carry as "other"', () => {
    for (const name of ['_fast', '-fast', 'has space', 'a'.repeat(129), '']) {
      assert.equal(isLaneName(name), false, name);
      assert.throws(
        () => new LaneMap({ [name]: 'http://127.0.0.1:8000/v1' }),
        (e: Error) => e instanceof LaneConfigError && e.message.includes(LANE_NAME_RULE),
        name,
      );
    }
  });
});

describe(`Claude and Nova on Amazon Bedrock through their clients (Node ${process.version})`, () => {
  let h: Harness;
  let server: ProviderServer;
  before(async () => {
    server = await startProviderServer({ respond: () => script() });
    h = startHarness({ lanes: { 'bedrock-fast': `${server.url}/fast` } });
  });
  after(async () => {
    await server.close();
    await h.shutdown();
  });
  beforeEach(() => h.reset());

  async function spans() {
    await server.settled();
    const finished = h.finishedSpans();
    const exported = JSON.stringify({
      spans: finished.map((s) => [s.name, s.attributes, s.events]),
      m: await h.collect(),
      d: h.diagnostics,
    });
    assert.ok(!exported.includes(CANARY), 'no prompt, output, reasoning or AWS credential');
    assert.ok(!exported.includes(ACCOUNT), 'no AWS account');
    return finished.map((s) => s.attributes);
  }

  it('@anthropic-ai/bedrock-sdk: the model from the path, aws.bedrock, every milestone and the tokens', async () => {
    const client = new AnthropicBedrock({
      baseURL: server.url,
      awsRegion: 'us-east-1',
      awsAccessKey: `AKIA${CANARY}`,
      awsSecretKey: CANARY,
      maxRetries: 0,
    });
    const profile = `arn:aws:bedrock:us-east-1:${ACCOUNT}:application-inference-profile/team-claude`;
    for (const model of ['anthropic.claude-sonnet-4-20250514-v1:0', profile]) {
      const stream = client.messages.stream({ model, max_tokens: 64, messages });
      for await (const _ of stream);
    }
    assert.match(server.sends.at(-1)?.request.path ?? '', /\/invoke-with-response-stream$/);
    const [byId, byProfile] = await spans();
    assert.equal(byId?.['lanewatch.format'], 'bedrock_invoke');
    assert.equal(byId?.['gen_ai.provider.name'], 'aws.bedrock');
    assert.equal(byId?.['gen_ai.request.model'], 'anthropic.claude-sonnet-4-20250514-v1:0');
    assert.equal(byId?.['lanewatch.lane'], 'aws.bedrock/anthropic.claude-sonnet-4-20250514-v1:0');
    assert.equal(byId?.['lanewatch.outcome'], 'ok');
    assert.equal(byId?.['lanewatch.output.kind'], 'reasoning');
    assert.ok(
      (byId?.['lanewatch.first_text_ms'] as number) > (byId?.['lanewatch.first_output_ms'] as number),
    );
    assert.equal(byId?.['gen_ai.usage.input_tokens'], 17);
    assert.equal(byId?.['gen_ai.usage.output_tokens'], 9);
    assert.equal(byProfile?.['gen_ai.request.model'], 'team-claude');
  });

  it('@ai-sdk/amazon-bedrock ConverseStream under a lane-map lane', async () => {
    const model = createAmazonBedrock({
      baseURL: `${server.url}/fast`,
      region: 'us-east-1',
      accessKeyId: `AKIA${CANARY}`,
      secretAccessKey: CANARY,
    })('amazon.nova-pro-v1:0');
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: `question ${CANARY}` }] }],
    });
    for await (const _ of stream);
    const [a] = await spans();
    assert.equal(a?.['lanewatch.format'], 'bedrock_converse');
    assert.equal(a?.['lanewatch.lane'], 'bedrock-fast');
    assert.equal(a?.['gen_ai.request.model'], 'amazon.nova-pro-v1:0');
    assert.equal(a?.['lanewatch.outcome'], 'ok');
    assert.equal(typeof a?.['lanewatch.first_text_ms'], 'number');
    assert.equal(a?.['gen_ai.usage.output_tokens'], 9);
  });
});
