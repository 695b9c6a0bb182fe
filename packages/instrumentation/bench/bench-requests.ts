// The requests every benchmark client makes, in one place: the workload (`stream`: the streamed chat
// call read as bare bytes; `openai-sdk`: the same call through the official openai client;
// `plain`: a JSON POST to an ordinary API) at a concurrency, and the process's CPU clock.
import { CHAT_BODY, CHAT_PATH, PLAIN_BODY, PLAIN_PATH } from './bench-workload.ts';

export type Workload = 'stream' | 'openai-sdk' | 'plain';

/** User plus system CPU microseconds of this process (since `since`, when given). */
export function cpuMicros(since?: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return user + system;
}

/** Makes `count` requests of `workload` to `url`, `concurrency` at a time. */
export async function requestRunner(
  url: string,
  workload: Workload,
  concurrency: number,
): Promise<(count: number) => Promise<void>> {
  const [path, body] = workload === 'plain' ? [PLAIN_PATH, PLAIN_BODY] : [CHAT_PATH, CHAT_BODY];
  // What an application using the openai client runs for the same call: the client builds the
  // request, parses every event and hands over each chunk as an object (it uses global fetch).
  const openai =
    workload === 'openai-sdk'
      ? new (await import('openai')).default({ baseURL: `${url}/v1`, apiKey: 'bench', maxRetries: 0 })
      : undefined;
  const chatRequest = JSON.parse(CHAT_BODY) as { model: string; stream: true; messages: [] };
  async function one(): Promise<void> {
    if (openai !== undefined) {
      const stream = await openai.chat.completions.create(chatRequest);
      for await (const _chunk of stream);
      return;
    }
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    while (!(await reader.read()).done);
  }
  return async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < count) await one();
      }),
    );
  };
}
