// The Redis the store tests rely on: the shared one answers, and a private one can be stopped and
// restarted on its port (the restart-fault test's premise).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, test } from 'node:test';
import { ensureRedis, type PrivateRedis, redisAnswers, startPrivateRedis } from './redis.ts';

/** One RESP command, one reply line (enough for SET/GET of short values). */
function command(port: number, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`);
    });
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      const lines = reply.split('\r\n');
      const complete =
        reply.startsWith('$') && !reply.startsWith('$-1') ? lines.length >= 3 : lines.length >= 2;
      if (complete) {
        socket.destroy();
        resolve(reply.startsWith('$') && !reply.startsWith('$-1') ? (lines[1] ?? '') : (lines[0] ?? ''));
      }
    });
  });
}

let privateRedis: PrivateRedis | undefined;
after(() => privateRedis?.stop());

test('ensureRedis: something answers PING on 127.0.0.1:6379', async () => {
  const redis = await ensureRedis();
  assert.equal(redis.url, 'redis://127.0.0.1:6379');
  assert.ok(await redisAnswers(6379));
});

test('a private Redis stops, and restarts empty on the same port', async () => {
  privateRedis = await startPrivateRedis();
  const { port } = privateRedis;
  assert.notEqual(port, 6379);
  assert.equal(await command(port, 'SET', 'lanewatch:test', 'fast'), '+OK');
  assert.equal(await command(port, 'GET', 'lanewatch:test'), 'fast');
  await privateRedis.stop();
  assert.equal(await redisAnswers(port), false);
  await privateRedis.start();
  assert.ok(await redisAnswers(port));
  assert.equal(await command(port, 'GET', 'lanewatch:test'), '$-1', 'nothing persisted across the restart');
  await privateRedis.restart();
  assert.ok(await redisAnswers(port));
});
