// For tests: `lanewatch serve` in the test's own process, with its own environment and stop request.
import { runCli } from './run-cli.ts';

export interface Serve {
  readonly out: string[];
  readonly err: string[];
  readonly code: Promise<number>;
  /** The URL from the "listening on" line; rejects if serve exits first. */
  url(): Promise<string>;
  /** Resolves the stop request (as SIGTERM/SIGINT would) and waits for the exit code. */
  stop(signal?: string): Promise<number>;
}

export function serve(args: readonly string[], env: Record<string, string> = {}): Serve {
  const out: string[] = [];
  const err: string[] = [];
  let requestStop: (signal: string) => void = () => undefined;
  const stopRequested = new Promise<string>((resolve) => {
    requestStop = resolve;
  });
  let listening: (url: string) => void = () => undefined;
  const announced = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const code = runCli(['serve', ...args], {
    env: { LANEWATCH_PORT: '0', LANEWATCH_STORE: 'memory:', ...env },
    stdout: (text) => {
      out.push(text);
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) listening(match[1] as string);
    },
    stderr: (text) => err.push(text),
    stopRequested,
  });
  return {
    out,
    err,
    code,
    url: () =>
      Promise.race([
        announced,
        code.then((c) => {
          throw new Error(`serve exited ${c} before listening: ${err.join('')}`);
        }),
      ]),
    stop(signal = 'SIGTERM') {
      requestStop(signal);
      return code;
    },
  };
}
