import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseServeOptions, SERVE_OPTIONS, serveHelp } from './serve-options.ts';
import { UsageError } from './usage-error.ts';

describe('lanewatch serve options', () => {
  it('has the documented defaults', () => {
    assert.deepEqual(parseServeOptions([], {}), {
      port: 4320,
      grpcPort: undefined,
      host: '127.0.0.1',
      store: 'file:./lane-health.json',
      lanes: undefined,
      intervalS: 10,
      windowS: 300,
      sliceS: 10,
      minSamples: 50,
      recordTtlS: 60,
      token: undefined,
      otlpEndpoint: undefined,
    });
  });

  it('takes LANEWATCH_* variables, and flags over them', () => {
    const env = {
      LANEWATCH_PORT: '9000',
      LANEWATCH_STORE: 'redis://127.0.0.1:6379',
      LANEWATCH_INTERVAL_S: '30',
    };
    const options = parseServeOptions(['--port', '9100', '--lanes=lanes.yaml', '--min-samples', '20'], env);
    assert.equal(options.port, 9100);
    assert.equal(options.store, 'redis://127.0.0.1:6379');
    assert.equal(options.lanes, 'lanes.yaml');
    assert.equal(options.minSamples, 20);
    assert.equal(options.intervalS, 30);
    assert.equal(options.recordTtlS, 90, 'ttl follows the interval: 3 × 30 s');
  });

  it('says which flag or variable is wrong and what it must be', () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['--port', 'http'], {}, /^--port must be a port number from 0 to 65535, got "http"$/],
      [[], { LANEWATCH_PORT: '70000' }, /^LANEWATCH_PORT must be a port number/],
      [['--interval', '0'], {}, /^--interval must be a number of seconds above 0, got "0"$/],
      [['--min-samples', '2.5'], {}, /^--min-samples must be a whole number, at least 1/],
      [['--store', 'postgres://x'], {}, /^--store must be file:PATH, redis:\/\/host:6379 or memory:/],
      [['--window', '5', '--slice', '10'], {}, /--slice \(10 s\) must not be longer than --window \(5 s\)/],
      [['--window', '305'], {}, /^--window \(305 s\) must be a whole number of the default --slice \(10 s\)/],
      [['--prot', '1'], {}, /^unknown option "--prot"; see lanewatch serve --help$/],
      [['--port'], {}, /^--port needs a value/],
      [['--otlp-endpoint', '127.0.0.1:4318'], {}, /^--otlp-endpoint must be an http:\/\/ or https:\/\/ URL/],
      [[], { LANEWATCH_OTLP_ENDPOINT: 'grpc://x' }, /^LANEWATCH_OTLP_ENDPOINT must be an http:\/\/ or https/],
      [
        ['--otlp-endpoint', 'ftp://user:pw-CANARY@host/?key=q-CANARY'],
        {},
        /^--otlp-endpoint must be an http:\/\/ or https:\/\/ URL, got a ftp: URL$/,
      ],
    ];
    for (const [args, env, message] of cases) {
      assert.throws(
        () => parseServeOptions(args, env),
        (e: unknown) => e instanceof UsageError && message.test(e.message),
      );
    }
  });

  it('names where the window and the slice came from: the flag, the variable or the default', () => {
    const cases: [string[], Record<string, string>, string][] = [
      [
        [],
        { LANEWATCH_SLICE_S: '7' },
        'the default --window (300 s) must be a whole number of LANEWATCH_SLICE_S (7 s), both whole seconds',
      ],
      [
        ['--slice', '7'],
        { LANEWATCH_SLICE_S: '5', LANEWATCH_WINDOW_S: '60' },
        'LANEWATCH_WINDOW_S (60 s) must be a whole number of --slice (7 s), both whole seconds',
      ],
      [
        ['--window', '20', '--slice', '7'],
        {},
        '--window (20 s) must be a whole number of --slice (7 s), both whole seconds',
      ],
      [
        [],
        { LANEWATCH_WINDOW_S: '5' },
        'the default --slice (10 s) must not be longer than LANEWATCH_WINDOW_S (5 s)',
      ],
      [['--slice', '400'], {}, '--slice (400 s) must not be longer than the default --window (300 s)'],
    ];
    for (const [args, env, message] of cases) {
      assert.throws(
        () => parseServeOptions(args, env),
        (e: unknown) => e instanceof UsageError && e.message === message,
        `${args.join(' ')} ${JSON.stringify(env)}`,
      );
    }
  });

  it('takes an IP address or a host name for --host, and never echoes anything else', () => {
    for (const host of [
      '127.0.0.1',
      '0.0.0.0',
      '::',
      '::1',
      'localhost',
      'lanewatch-0.svc.cluster.local',
      'app_web_1',
    ]) {
      assert.equal(parseServeOptions(['--host', host], {}).host, host);
    }
    const SECRET = 'CANARY-e1a7';
    const cases: [string, string][] = [
      [`redis://user:${SECRET}@h:6379`, 'a URL'],
      [`http://h/?key=${SECRET}`, 'a URL'],
      [`${SECRET}@h`, 'a value that is not one'],
      [`Bearer ${SECRET}`, 'a value that is not one'],
      ['[::1]', 'a value that is not one'],
    ];
    for (const [host, got] of cases) {
      assert.throws(
        () => parseServeOptions([], { LANEWATCH_HOST: host }),
        (e: unknown) =>
          e instanceof UsageError &&
          e.message ===
            `LANEWATCH_HOST must be an IP address or a host name, like 127.0.0.1, ::1, 0.0.0.0 or localhost, got ${got}`,
      );
    }
  });

  it('--help says what the code accepts: rediss:// stores, and the order of the OTLP endpoint variables', () => {
    const help = serveHelp();
    const row = (flag: string) =>
      help.split('\n').find((line) => line.trimStart().startsWith(`${flag} `)) ?? '';
    assert.match(
      row('--store'),
      /file:PATH, redis:\/\/host:6379\[\/db\]\[\?prefix=NAME\], rediss:\/\/… \(TLS\) or memory:/,
    );
    assert.match(
      row('--otlp-endpoint'),
      /\(\/v1\/metrics appended\); else OTEL_EXPORTER_OTLP_METRICS_ENDPOINT \(used as is\), else OTEL_EXPORTER_OTLP_ENDPOINT \(\/v1\/metrics appended\); none: not exported/,
    );
  });

  it('lists every option with its variable in --help', () => {
    const help = serveHelp();
    for (const option of SERVE_OPTIONS) {
      assert.ok(help.includes(option.flag) && help.includes(option.env), option.flag);
    }
  });
});
