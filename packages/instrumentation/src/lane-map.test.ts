import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { after, describe, it, mock } from 'node:test';
import { request } from 'undici';
import { type Harness, startHarness } from '../test/harness.ts';
import { LanewatchInstrumentation } from './instrumentation.ts';
import { LaneConfigError, LaneMap, type LaneMapInput, laneMapFromEnv, parseLaneMapEnv } from './lane-map.ts';

const SECRET = 'sk-CANARY-laneMap-9f3Xq';
const refuses = (input: unknown, message: RegExp) =>
  assert.throws(
    () => new LaneMap(input as LaneMapInput),
    (e: Error) => e instanceof LaneConfigError && message.test(e.message),
    JSON.stringify(input),
  );

describe('the lane map', () => {
  it('names a request by the longest prefix whose origin matches, at a path segment boundary', () => {
    const lanes = new LaneMap({
      fast: 'http://127.0.0.1:8001/v1',
      slow: ['http://127.0.0.1:8001/v1/slow', 'https://api.example.com'],
    });
    assert.equal(lanes.laneOf('http://127.0.0.1:8001', '/v1/chat/completions'), 'fast');
    assert.equal(lanes.laneOf('http://127.0.0.1:8001', '/v1/slow/chat/completions'), 'slow');
    assert.equal(lanes.laneOf('http://127.0.0.1:8001', '/v1slow/chat'), undefined);
    assert.equal(lanes.laneOf('https://api.example.com', '/anything'), 'slow');
    assert.equal(lanes.laneOf('http://127.0.0.1:8002', '/v1/chat/completions'), undefined);
    assert.equal(new LaneMap([{ lane: 'a', url: 'http://h/x' }]).laneOf('http://h', '/x/y'), 'a');
  });

  it('refuses a wrong shape with what to write, not a TypeError from inside', () => {
    refuses(
      { fast: 42 },
      /^lane map entry 1 \("fast"\): lanes are \{ name: .* this one's URL is not a string$/,
    );
    refuses({ fast: null }, /URL is not a string/);
    refuses({ fast: ['http://h/v1', 7] }, /^lane map entry 2 \("fast"\): .*URL is not a string/);
    refuses('fast=http://127.0.0.1:8001/v1', /goes through parseLaneMapEnv\(\) first/);
    refuses(42, /, not a number$/);
    refuses([{ lane: 'fast' }], /^lane map entry 1: .*with both lane and url strings$/);
    refuses([null], /^lane map entry 1: /);
  });

  it("shows an entry's lane name in a message only when it is a lane name", () => {
    const name = `${SECRET} with spaces`;
    assert.throws(
      () => new LaneMap({ [name]: 'http://h/v1' }),
      (e: Error) =>
        /^lane map entry 1: the lane name must be/.test(e.message) && !e.message.includes('CANARY'),
    );
    refuses({ fast: 'not a url' }, /^lane map entry 1 \("fast"\): the URL is not absolute/);
  });
});

describe('LANEWATCH_LANE_MAP', () => {
  it('parses name=url pairs separated by commas or whitespace', () => {
    assert.deepEqual(parseLaneMapEnv(' fast=http://a/v1,slow=http://b/v1\nlocal=http://c '), [
      { lane: 'fast', url: 'http://a/v1' },
      { lane: 'slow', url: 'http://b/v1' },
      { lane: 'local', url: 'http://c' },
    ]);
    assert.deepEqual(parseLaneMapEnv(undefined), []);
    assert.deepEqual(parseLaneMapEnv('  '), []);
  });

  it('a malformed value is said once with what to fix, and no lane is configured', () => {
    for (const value of ['fast', `${SECRET}`, 'fast=ftp://h/v1', `fast=http://h/v1?key=${SECRET}`]) {
      const said: string[] = [];
      assert.deepEqual(
        laneMapFromEnv(value, (m) => said.push(m)),
        [],
        value,
      );
      assert.equal(said.length, 1, value);
      assert.match(said[0] ?? '', /^lanewatch: .*; lanes are named provider\/model until it is fixed$/);
      assert.ok(!said[0]?.includes('CANARY'), said[0]);
    }
  });

  it('the class, given none in its options, does not throw on a malformed one: it says so on stderr and runs', () => {
    const before = process.env.LANEWATCH_LANE_MAP;
    const stderr = mock.method(process.stderr, 'write', () => true);
    process.env.LANEWATCH_LANE_MAP = 'fast-without-a-url';
    try {
      const lanewatch = new LanewatchInstrumentation({ enabled: false });
      assert.equal(lanewatch.getConfig().enabled, false);
      const written = stderr.mock.calls.map((c) => String(c.arguments[0])).join('');
      assert.match(written, /LANEWATCH_LANE_MAP entry 1: expected name=url/);
      // The option is the developer's own input: a bad one still throws at construction.
      assert.throws(
        () => new LanewatchInstrumentation({ enabled: false, lanes: { fast: 'nope' } }),
        LaneConfigError,
      );
    } finally {
      stderr.mock.restore();
      if (before === undefined) delete process.env.LANEWATCH_LANE_MAP;
      else process.env.LANEWATCH_LANE_MAP = before;
    }
  });
});

describe('maxAttributeValues', () => {
  it('a value that is not a whole number of 1 or more throws at construction, saying what to write', () => {
    for (const value of [Number.NaN, -1, 0, 2.5, '50']) {
      assert.throws(
        () => new LanewatchInstrumentation({ enabled: false, maxAttributeValues: value as number }),
        (e: Error) =>
          e instanceof RangeError &&
          /maxAttributeValues must be a whole number, 1 or more \(default 100\)/.test(e.message),
        String(value),
      );
    }
    assert.doesNotThrow(() => new LanewatchInstrumentation({ enabled: false, maxAttributeValues: 1 }));
  });
});

describe('a call that fails before its body is sent', () => {
  let h: Harness | undefined;
  after(async () => {
    await h?.shutdown();
  });

  it("fetch: no model, so the lane map's lane or provider/unknown; undici.request keeps its model", async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    closed.close();
    await once(closed, 'close');
    const base = `http://127.0.0.1:${port}`;
    h = startHarness({ lanes: { mapped: `${base}/mapped` } });
    const body = JSON.stringify({ model: 'gpt-test', stream: true, messages: [] });
    const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body } as const;
    for (const path of ['/v1/chat/completions', '/mapped/v1/chat/completions']) {
      await assert.rejects(fetch(`${base}${path}`, post), TypeError);
    }
    await assert.rejects(request(`${base}/v1/chat/completions`, post), { code: 'ECONNREFUSED' });
    h.instrumentation.flush();
    const spans = h
      .finishedSpans()
      .map((s) => [
        s.name,
        s.attributes['lanewatch.lane'],
        s.attributes['gen_ai.request.model'],
        s.attributes['error.type'],
      ]);
    assert.deepEqual(spans, [
      ['chat', 'openai/unknown', undefined, 'connection_refused'],
      ['chat', 'mapped', undefined, 'connection_refused'],
      ['chat gpt-test', 'openai/gpt-test', 'gpt-test', 'connection_refused'],
    ]);
  });
});
