import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../cli/usage-error.ts';
import { PROBE_FLAGS, parseProbeOptions, probeHelp } from './probe-options.ts';

const SECRET = 'sk-canary-7f3a';

function usage(args: string[], env: Record<string, string> = {}): string {
  try {
    parseProbeOptions(args, env);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail(`no UsageError for ${args.join(' ')}`);
}

describe('lanewatch probe options', () => {
  it('has the documented defaults and detects the format from the URL', () => {
    const options = parseProbeOptions(['--base-url', 'https://api.anthropic.com', '--model', 'claude-x'], {});
    assert.equal(options.format, 'anthropic');
    assert.equal(options.formatSource, 'url');
    assert.equal(options.samples, 50);
    assert.equal(options.intervalS, 1);
    assert.equal(options.timeoutS, 60);
    assert.equal(options.retries, 5);
    assert.equal(options.json, false);
    const assumed = parseProbeOptions(['--base-url=http://127.0.0.1:9000', '--model=m', '--json'], {});
    assert.equal(assumed.format, 'openai-chat');
    assert.equal(assumed.formatSource, 'assumed');
    assert.equal(assumed.json, true);
  });

  it("takes the key from the flag, LANEWATCH_PROBE_API_KEY, or the provider's variable for its own host only", () => {
    const base = ['--model', 'm'];
    const openai = ['--base-url', 'https://api.openai.com/v1', ...base];
    assert.equal(parseProbeOptions(openai, { OPENAI_API_KEY: 'a' }).apiKey, 'a');
    assert.equal(
      parseProbeOptions(openai, { OPENAI_API_KEY: 'a', LANEWATCH_PROBE_API_KEY: 'b' }).apiKey,
      'b',
    );
    assert.equal(
      parseProbeOptions([...openai, '--api-key', 'c'], { LANEWATCH_PROBE_API_KEY: 'b' }).apiKey,
      'c',
    );
    const other = ['--base-url', 'https://llm.example.com/v1', ...base];
    assert.equal(parseProbeOptions(other, { OPENAI_API_KEY: 'a' }).apiKey, undefined, 'never sent elsewhere');
    assert.deepEqual(parseProbeOptions(other, {}).keyVariables, ['LANEWATCH_PROBE_API_KEY']);
    const gemini = ['--base-url', 'https://generativelanguage.googleapis.com', ...base];
    assert.equal(parseProbeOptions(gemini, { GOOGLE_API_KEY: 'g' }).apiKey, 'g');
    assert.deepEqual(parseProbeOptions(gemini, {}).keyVariables, [
      'LANEWATCH_PROBE_API_KEY',
      'GEMINI_API_KEY',
      'GOOGLE_API_KEY',
    ]);
    const cohere = ['--base-url', 'https://api.cohere.com', ...base];
    assert.equal(parseProbeOptions(cohere, { COHERE_API_KEY: 'k' }).apiKey, 'k');
    assert.equal(parseProbeOptions(cohere, {}).format, 'cohere');
    const bedrock = ['--base-url', 'https://bedrock-runtime.us-east-1.amazonaws.com', ...base];
    assert.equal(parseProbeOptions(bedrock, { AWS_BEARER_TOKEN_BEDROCK: 'b' }).apiKey, 'b');
    assert.equal(parseProbeOptions(bedrock, {}).format, 'bedrock-converse');
    // Without a Bedrock API key, AWS credentials sign the calls — on Bedrock's own hosts only.
    const aws = { AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'secret' };
    assert.equal(parseProbeOptions(bedrock, aws).awsSigning?.region, 'us-east-1');
    assert.equal(parseProbeOptions(bedrock, { ...aws, AWS_BEARER_TOKEN_BEDROCK: 'b' }).awsSigning, undefined);
    const elsewhere = ['--base-url', 'http://127.0.0.1:9000', '--format', 'bedrock-converse', ...base];
    assert.equal(parseProbeOptions(elsewhere, aws).awsSigning, undefined);
  });

  it('says what to fix, and never echoes a URL that may hold a secret', () => {
    assert.match(usage(['--model', 'm']), /^--base-url is required/);
    assert.match(usage(['--base-url', 'http://h/v1']), /^--model is required/);
    const notUrl = usage(['--base-url', `not a url ${SECRET}`, '--model', 'm']);
    assert.match(
      notUrl,
      /^--base-url is not a URL: give the endpoint's base, e\.g\. https:\/\/api\.openai\.com\/v1/,
    );
    const query = usage(['--base-url', `https://h/v1?key=${SECRET}`, '--model', 'm']);
    assert.match(query, /must not carry a query string/);
    const credentials = usage(['--base-url', `https://user:${SECRET}@h/v1`, '--model', 'm']);
    assert.match(credentials, /must not carry credentials/);
    for (const message of [notUrl, query, credentials]) assert.ok(!message.includes(SECRET), message);
    assert.match(usage(['--base-url', 'ftp://h', '--model', 'm']), /must start with http:\/\/ or https:\/\//);
    assert.match(
      usage(['--base-url', 'http://h', '--model', 'm', '--format', 'grpc']),
      /--format must be one of/,
    );
    assert.match(
      usage(['--base-url', 'http://h', '--model', 'm', '--samples', '0']),
      /--samples must be a whole number, at least 1/,
    );
    assert.match(
      usage(['--base-url', 'http://h', '--model', 'm', '--interval=-1']),
      /--interval must be a number of seconds from 0/,
    );
    // A negative number after the flag is its value, out of range — not a missing value.
    assert.equal(
      usage(['--base-url', 'http://h', '--model', 'm', '--interval', '-1']),
      '--interval must be a number of seconds from 0, got "-1"',
    );
    assert.equal(
      usage(['--base-url', 'http://h', '--model', 'm', '--retries', '-2']),
      '--retries must be a whole number, at least 0, got "-2"',
    );
    assert.match(
      usage(['--base-url', 'http://h', '--model', 'm', '--smaples', '3']),
      /unknown option "--smaples"; see lanewatch probe --help/,
    );
    assert.match(
      usage(['--base-url', 'http://h', '--model', 'm', '--lane', '_fast']),
      /^--lane must be 1–128 letters, digits, .*"@".*starting with a letter or digit, got "_fast"/,
    );
    const vertex = 'gcp.vertex_ai/claude-sonnet-4@20250514';
    assert.equal(
      parseProbeOptions(['--base-url', 'http://h', '--model', 'm', '--lane', vertex], {}).lane,
      vertex,
    );
    assert.match(usage(['--base-url', 'http://h', '--model']), /--model needs a value/);
    assert.match(usage(['--base-url', 'http://h', '--model', 'm', 'extra']), /unexpected argument/);
    assert.match(
      usage([], {
        LANEWATCH_PROBE_BASE_URL: 'http://h',
        LANEWATCH_PROBE_MODEL: 'm',
        LANEWATCH_PROBE_SAMPLES: 'x',
      }),
      /^LANEWATCH_PROBE_SAMPLES must be/,
    );
  });

  it('--otlp-endpoint with credentials or a query points at the OTLP headers variable, not the provider key, and never echoes them', () => {
    const base = ['--base-url', 'http://h/v1', '--model', 'm'];
    const credentials = usage([...base, '--otlp-endpoint', `http://u:${SECRET}@127.0.0.1:4318`]);
    assert.equal(
      credentials,
      '--otlp-endpoint must not carry credentials: remove them, and send them as a header in OTEL_EXPORTER_OTLP_HEADERS (e.g. authorization=Basic%20…)',
    );
    const query = usage([], {
      LANEWATCH_PROBE_BASE_URL: 'http://h/v1',
      LANEWATCH_PROBE_MODEL: 'm',
      LANEWATCH_PROBE_OTLP_ENDPOINT: `http://127.0.0.1:4318/?key=${SECRET}`,
    });
    assert.equal(
      query,
      'LANEWATCH_PROBE_OTLP_ENDPOINT must not carry a query string or fragment: remove it (a key goes in a header, in OTEL_EXPORTER_OTLP_HEADERS)',
    );
    assert.match(
      usage([...base, '--otlp-endpoint', `grpc://127.0.0.1:4317`]),
      /^--otlp-endpoint must start with http:\/\/ or https:\/\/ \(OTLP\/HTTP\), e\.g\. http:\/\/127\.0\.0\.1:4320$/,
    );
    assert.match(
      usage([...base, '--otlp-endpoint', `not a url ${SECRET}`]),
      /^--otlp-endpoint is not a URL: give the OTLP\/HTTP receiver's base/,
    );
    for (const message of [credentials, query]) {
      assert.ok(!message.includes(SECRET) && !message.includes('LANEWATCH_PROBE_API_KEY'), message);
    }
  });

  it("--help says --interval spaces one sample's end from the next one's start", () => {
    const row =
      probeHelp()
        .split('\n')
        .find((line) => line.trimStart().startsWith('--interval ')) ?? '';
    assert.match(
      row,
      /seconds from one sample's end \(its call and any 429 retries\) to the next one's start \(default 1\)/,
    );
    assert.ok(!row.includes('between one call and the next'), row);
  });

  it('lists every flag and variable in --help', () => {
    const help = probeHelp();
    for (const flag of PROBE_FLAGS) {
      assert.ok(help.includes(flag.flag), flag.flag);
      if (flag.env) assert.ok(help.includes(flag.env), flag.env);
    }
  });
});
