import { isIP } from 'node:net';
import { UsageError } from './usage-error.ts';

/**
 * RFC 1123 §2.1 host names — labels of letters, digits and inner hyphens, at most 63 each, 253 in
 * all — and "_" as well, which resolvers take (Docker Compose names containers `app_web_1`).
 */
const HOST_NAME =
  /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** Whether `--host` can name an address to listen on: an IPv4 or IPv6 address, or a host name. */
export function isListenHost(value: string): boolean {
  return isIP(value) !== 0 || HOST_NAME.test(value);
}

/**
 * What `--host` must be, said without showing the value: one that is not a host may be a URL with a
 * password in it, or a key pasted into the wrong place.
 */
export function listenHostProblem(value: string): string | undefined {
  if (isListenHost(value)) return undefined;
  const got = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? 'a URL' : 'a value that is not one';
  return `an IP address or a host name, like 127.0.0.1, ::1, 0.0.0.0 or localhost, got ${got}`;
}

/** Where the port and the host came from: the flag or variable that set them, `undefined` for the default. */
export interface ListenSettings {
  readonly port: number;
  readonly hostSource: string | undefined;
  readonly portSource: string | undefined;
}

/**
 * A failure to listen that the user can fix, as a `UsageError` saying what to change; `undefined` for
 * any other error. The address shown is the one the system tried (always an IP address), never a
 * host name as given.
 */
export function listenFailure(error: unknown, settings: ListenSettings): UsageError | undefined {
  const { code, syscall, address } = (error ?? {}) as {
    code?: unknown;
    syscall?: unknown;
    address?: unknown;
  };
  const hostSetting = settings.hostSource ?? '--host';
  const portSetting = settings.portSource ?? '--port';
  if (syscall === 'getaddrinfo' && (code === 'ENOTFOUND' || code === 'EAI_AGAIN')) {
    return new UsageError(
      `cannot listen: ${hostSetting} is a host name that does not resolve (${code}); set it to an address of this machine, 127.0.0.1, or 0.0.0.0 for every interface`,
    );
  }
  if (syscall !== 'listen') return undefined;
  const ip = typeof address === 'string' && isIP(address) !== 0 ? address : undefined;
  const where =
    ip === undefined ? `port ${settings.port}` : `${ip.includes(':') ? `[${ip}]` : ip}:${settings.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(
        `cannot listen on ${where}: the port is in use (EADDRINUSE); choose another ${portSetting}, or 0 for any free port`,
      );
    case 'EACCES':
      return new UsageError(
        `cannot listen on ${where}: not permitted (EACCES); choose a ${portSetting} of 1024 or above, or 0 for any free port`,
      );
    case 'EADDRNOTAVAIL':
      return new UsageError(
        `cannot listen on ${where}: no interface of this machine has that address (EADDRNOTAVAIL); set ${hostSetting} to one of its addresses, 127.0.0.1, or 0.0.0.0 for every interface`,
      );
    default:
      return undefined;
  }
}
