import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import type { ProviderRequest } from './provider-request.ts';

/** AWS credentials from the standard variables, for Bedrock's runtime hosts only. */
export interface AwsSigning {
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string | undefined;
}

/** Amazon Bedrock's runtime hosts, the region captured. */
export const BEDROCK_RUNTIME_HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com$/;

/** The region of a Bedrock runtime host (`bedrock-runtime.us-east-1.amazonaws.com` → `us-east-1`). */
export function bedrockRegionOf(hostname: string): string | undefined {
  return BEDROCK_RUNTIME_HOST.exec(hostname.toLowerCase())?.[1];
}

/**
 * AWS credentials for signing, from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and
 * `AWS_SESSION_TOKEN`, when the base URL is a Bedrock runtime host (its region is the host's): a
 * signed request is only ever sent to AWS, since whoever holds one can replay it for minutes.
 */
export function awsSigningFor(base: URL, env: NodeJS.ProcessEnv): AwsSigning | undefined {
  const region = bedrockRegionOf(base.hostname);
  const accessKeyId = env.AWS_ACCESS_KEY_ID?.trim();
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY?.trim();
  if (region === undefined || !accessKeyId || !secretAccessKey) return undefined;
  return { region, accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN?.trim() || undefined };
}

/**
 * The request signed with Signature Version 4 for the `bedrock` service, as the AWS SDKs sign it:
 * `host`, `x-amz-date` (and `x-amz-security-token`) added, `authorization` set. Signed per call,
 * since a signature is valid for minutes.
 */
export async function signForBedrock(
  request: ProviderRequest,
  signing: AwsSigning,
  signingDate: Date = new Date(),
): Promise<ProviderRequest> {
  const signer = new SignatureV4({
    service: 'bedrock',
    region: signing.region,
    credentials: {
      accessKeyId: signing.accessKeyId,
      secretAccessKey: signing.secretAccessKey,
      ...(signing.sessionToken === undefined ? {} : { sessionToken: signing.sessionToken }),
    },
    sha256: Hash.bind(null, 'sha256'),
  });
  const { url, init } = request;
  const signed = await signer.sign(
    {
      method: init.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      // Percent-encoded once, as in the URL; the signer encodes it again, as AWS's services expect.
      path: url.pathname,
      query: {},
      headers: { ...init.headers, host: url.host },
      body: init.body,
    },
    { signingDate },
  );
  // fetch sets `host` itself, from the URL: the same value as signed.
  const { host: _host, ...headers } = signed.headers;
  return { url, init: { ...init, headers } };
}
