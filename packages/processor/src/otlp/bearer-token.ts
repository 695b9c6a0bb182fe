import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A check of `Authorization: Bearer <token>` (RFC 6750) against the configured token, in constant
 * time: both sides are hashed first so that neither the length nor the content leaks through timing.
 */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  if (token === '') throw new Error('bearer token must not be empty; leave it unset to accept any request');
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    if (match === null) return false;
    const given = createHash('sha256')
      .update(match[1] as string)
      .digest();
    return timingSafeEqual(given, expected);
  };
}
