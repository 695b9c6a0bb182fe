import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureLine } from './probe-command.ts';
import { parseProbeOptions } from './probe-options.ts';
import { endpointOf } from './provider-request.ts';
import type { ProbeRun } from './run-probe.ts';

const SECRET = 'CANARY-aws-secret-51c2';
const refused: ProbeRun = {
  end: { kind: 'auth', status: 403 },
  calls: [],
  samples: 1,
  retries: 0,
  backoffWaitsMs: [],
  retryAfterTooLong: 0,
};

function lineFor(env: NodeJS.ProcessEnv): string | undefined {
  const options = parseProbeOptions(
    ['--base-url', 'https://bedrock-runtime.eu-central-1.amazonaws.com', '--model', 'amazon.nova-lite-v1:0'],
    env,
  );
  return failureLine(refused, options, endpointOf(options.format, options.base, options.model));
}

describe('what a refused Bedrock call says', () => {
  it('signed with AWS credentials: to check them and the model access in the region, never the secret', () => {
    const line = lineFor({ AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: SECRET });
    assert.match(
      line ?? '',
      /answered 403: the request signed with the credentials of AWS_ACCESS_KEY_ID was refused/,
    );
    assert.match(line ?? '', /in eu-central-1 — or set AWS_BEARER_TOKEN_BEDROCK/);
    assert.ok(!line?.includes(SECRET));
  });

  it('with no key: the API key variables, and the AWS ones that sign', () => {
    const line = lineFor({});
    assert.match(line ?? '', /no API key was sent; set LANEWATCH_PROBE_API_KEY or AWS_BEARER_TOKEN_BEDROCK/);
    assert.match(line ?? '', /Or set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \(and AWS_SESSION_TOKEN\)/);
  });
});
