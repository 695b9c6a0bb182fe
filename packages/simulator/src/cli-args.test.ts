import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CliError, parseCliArgs } from './cli-args.ts';

describe('parseCliArgs', () => {
  test('lanes as PROFILE[:PORT], seeded by profile (and base seed), two of a kind seeded apart', () => {
    const options = parseCliArgs(['steady:8001', 'spiky', 'spiky:8003', '--seed', '42']);
    assert.deepEqual(options.lanes, [
      { profile: 'steady', port: 8001, seed: '42:steady' },
      { profile: 'spiky', port: 0, seed: '42:spiky' },
      { profile: 'spiky', port: 8003, seed: '42:spiky:1' },
    ]);
    assert.equal(options.host, '127.0.0.1');
    assert.equal(parseCliArgs(['steady']).lanes[0]?.seed, 'steady');
  });

  test('knobs are typed by their defaults and validated', () => {
    const options = parseCliArgs([
      'steady',
      '--knob',
      'stallProbability=0.2',
      '--knob',
      'actionKind=tool-call',
    ]);
    assert.deepEqual(options.knobs, { stallProbability: 0.2, actionKind: 'tool-call' });
    assert.throws(
      () => parseCliArgs(['steady', '--knob', 'stallProbability=2']),
      /"stallProbability" must be a probability/,
    );
    assert.throws(() => parseCliArgs(['steady', '--knob', 'nope=1']), /unknown knob "nope"/);
  });

  test('mistakes say what to change', () => {
    assert.throws(() => parseCliArgs([]), /name at least one lane/);
    assert.throws(
      () => parseCliArgs(['speedy:1']),
      (error) => {
        assert.ok(error instanceof CliError);
        assert.match(error.message, /"speedy:1" is not PROFILE\[:PORT\] \(profiles: steady, /);
        return true;
      },
    );
    assert.throws(() => parseCliArgs(['steady:99999']), /port must be an integer from 0 to 65535/);
    assert.throws(() => parseCliArgs(['steady', '--dialect', 'x']), /--dialect must be/);
    assert.throws(() => parseCliArgs(['steady', '--bogus']), CliError);
    assert.equal(parseCliArgs(['--list']).list, true);
  });
});
