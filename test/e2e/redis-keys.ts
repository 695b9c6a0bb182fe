// Reads (and cleans up) everything a lane-health store wrote under one key prefix, over a bare RESP2
// connection: the tests look at the raw keys and bytes, not through the processor's own reader.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

type Reply = string | number | null | Reply[] | Error;

/** One RESP2 connection; commands are answered in order. */
class RespConnection {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  readonly #waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      for (;;) {
        const parsed = parseReply(this.#buffer, 0);
        if (parsed === undefined) break;
        this.#buffer = this.#buffer.subarray(parsed.end);
        this.#waiting.shift()?.resolve(parsed.reply);
      }
    });
    socket.on('error', (error) => {
      for (const waiting of this.#waiting.splice(0)) waiting.reject(error);
    });
  }

  command(...args: string[]): Promise<Reply> {
    const frame = `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#socket.write(frame);
    });
  }

  close(): void {
    this.#socket.end();
  }
}

function parseReply(buffer: Buffer, start: number): { reply: Reply; end: number } | undefined {
  const lineEnd = buffer.indexOf('\r\n', start);
  if (lineEnd === -1) return undefined;
  const type = String.fromCharCode(buffer[start] ?? 0);
  const line = buffer.toString('utf8', start + 1, lineEnd);
  const next = lineEnd + 2;
  switch (type) {
    case '+':
      return { reply: line, end: next };
    case '-':
      return { reply: new Error(line), end: next };
    case ':':
      return { reply: Number(line), end: next };
    case '$': {
      const length = Number(line);
      if (length === -1) return { reply: null, end: next };
      if (buffer.length < next + length + 2) return undefined;
      return { reply: buffer.toString('utf8', next, next + length), end: next + length + 2 };
    }
    case '*': {
      const count = Number(line);
      if (count === -1) return { reply: null, end: next };
      const items: Reply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buffer, at);
        if (item === undefined) return undefined;
        items.push(item.reply);
        at = item.end;
      }
      return { reply: items, end: at };
    }
    default:
      throw new Error(`RESP: unexpected reply type ${JSON.stringify(type)}`);
  }
}

async function withConnection<T>(port: number, use: (redis: RespConnection) => Promise<T>): Promise<T> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  const redis = new RespConnection(socket);
  try {
    return await use(redis);
  } finally {
    redis.close();
  }
}

function strings(reply: Reply): string[] {
  if (reply instanceof Error) throw reply;
  return Array.isArray(reply) ? reply.map((item) => String(item)) : [];
}

/** What one key holds, rendered as text (a set's members joined by newlines). */
export interface StoredKey {
  readonly key: string;
  readonly type: string;
  readonly value: string;
}

/** Every key matching `{prefix}*` (the store's hash tag) with its value. */
export function keysUnderPrefix(port: number, prefix: string): Promise<StoredKey[]> {
  return withConnection(port, async (redis) => {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const reply = await redis.command('SCAN', cursor, 'MATCH', `{${prefix}}*`, 'COUNT', '1000');
      if (!Array.isArray(reply)) throw new Error(`SCAN: ${String(reply)}`);
      cursor = String(reply[0]);
      keys.push(...strings(reply[1] ?? []));
    } while (cursor !== '0');
    const stored: StoredKey[] = [];
    for (const key of keys.sort()) {
      const type = String(await redis.command('TYPE', key));
      const value =
        type === 'string'
          ? String(await redis.command('GET', key))
          : type === 'set'
            ? strings(await redis.command('SMEMBERS', key))
                .sort()
                .join('\n')
            : `(${type})`;
      stored.push({ key, type, value });
    }
    return stored;
  });
}

/** The lane record the store holds for `lane`, parsed, or undefined. */
export async function laneRecord<T>(port: number, prefix: string, lane: string): Promise<T | undefined> {
  const reply = await withConnection(port, (redis) => redis.command('GET', `{${prefix}}:lane:${lane}`));
  if (reply instanceof Error) throw reply;
  return typeof reply === 'string' ? (JSON.parse(reply) as T) : undefined;
}

/** Deletes every key under the prefix (the shared Redis outlives the test). */
export async function deleteKeysUnderPrefix(port: number, prefix: string): Promise<void> {
  const keys = await keysUnderPrefix(port, prefix);
  if (keys.length === 0) return;
  await withConnection(port, (redis) => redis.command('DEL', ...keys.map((k) => k.key)));
}
