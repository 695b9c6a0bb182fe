import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { awsSigningFor, bedrockRegionOf, signForBedrock } from './aws-signing.ts';
import { PROBE_PROMPT, providerRequest } from './provider-request.ts';

const SECRET = 'CANARY-secret/aws+7f01';
const env = { AWS_ACCESS_KEY_ID: 'AKIDCANARY0001', AWS_SECRET_ACCESS_KEY: SECRET };
const BEDROCK = new URL('https://bedrock-runtime.us-west-2.amazonaws.com');

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * What AWS computes on receipt (Signature Version 4, as its documentation gives it), written
 * independently of the signer: the canonical request from the request as sent, the string to sign,
 * the key derived from the secret, and the signature. Not S3: the path is encoded once more.
 */
function expectedSignature(url: URL, method: string, headers: Record<string, string>, body: string) {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      headers.authorization ?? '',
    );
  assert.ok(auth, headers.authorization);
  const [, , day = '', region = '', service = '', signedHeaders = ''] = auth;
  const lower = Object.fromEntries(
    Object.entries({ ...headers, host: url.host }).map(([k, v]) => [k.toLowerCase(), v]),
  );
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(lower[name]).trim()}\n`)
    .join('');
  const canonicalUri = url.pathname
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
  const canonical = [method, canonicalUri, '', canonicalHeaders, signedHeaders, sha256(body)].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', lower['x-amz-date'], scope, sha256(canonical)].join('\n');
  let key = hmac(`AWS4${SECRET}`, day);
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  return {
    signature: createHmac('sha256', key).update(toSign).digest('hex'),
    region,
    service,
    signedHeaders,
  };
}

describe('signing Bedrock requests with AWS credentials', () => {
  it('takes the standard variables, for Bedrock runtime hosts only, in their region', () => {
    assert.deepEqual(awsSigningFor(BEDROCK, env), {
      region: 'us-west-2',
      accessKeyId: 'AKIDCANARY0001',
      secretAccessKey: SECRET,
      sessionToken: undefined,
    });
    assert.equal(awsSigningFor(BEDROCK, { ...env, AWS_SESSION_TOKEN: 'tok' })?.sessionToken, 'tok');
    assert.equal(bedrockRegionOf('bedrock-runtime-fips.us-gov-west-1.amazonaws.com'), 'us-gov-west-1');
    // A signed request can be replayed for minutes by whoever holds it: never sent anywhere else.
    assert.equal(awsSigningFor(new URL('http://127.0.0.1:8080'), env), undefined);
    assert.equal(
      awsSigningFor(new URL('https://bedrock-runtime.us-east-1.amazonaws.com.example.test'), env),
      undefined,
    );
    assert.equal(awsSigningFor(BEDROCK, { AWS_ACCESS_KEY_ID: 'AKID' }), undefined, 'no secret');
  });

  it('signs as AWS verifies it: the signature recomputed from the request as sent matches, and no secret travels', async () => {
    const model = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';
    const request = providerRequest('bedrock-converse', BEDROCK, { model });
    const signing = awsSigningFor(BEDROCK, { ...env, AWS_SESSION_TOKEN: 'session-tok' });
    assert.ok(signing);
    const signed = await signForBedrock(request, signing, new Date('2026-12-03T23:50:00Z'));
    const headers = signed.init.headers;
    assert.equal(headers['x-amz-date'], '20261203T235000Z');
    assert.equal(headers['x-amz-security-token'], 'session-tok');
    assert.equal(headers.host, undefined, 'fetch sets it from the URL');
    assert.equal(signed.url.pathname, '/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream');
    const expected = expectedSignature(signed.url, 'POST', headers, signed.init.body);
    assert.equal(expected.region, 'us-west-2');
    assert.equal(expected.service, 'bedrock');
    assert.match(expected.signedHeaders, /(^|;)host(;|$)/);
    assert.match(expected.signedHeaders, /(^|;)x-amz-date(;|$)/);
    assert.ok(
      headers.authorization?.endsWith(`Signature=${expected.signature}`),
      'the signature AWS would compute',
    );
    assert.ok(signed.init.body.includes(PROBE_PROMPT));
    assert.ok(!JSON.stringify(signed).includes(SECRET), 'the secret never leaves the process');
    // Another instant, another signature.
    const later = await signForBedrock(request, signing, new Date('2026-12-03T23:51:00Z'));
    assert.notEqual(later.init.headers.authorization, headers.authorization);
  });
});
