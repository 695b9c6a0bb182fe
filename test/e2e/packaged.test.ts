// The packages as their users get them: each one packed by `npm pack` (which builds it first),
// installed from those tarballs alone into an empty project outside this repository, and used as the
// READMEs say — the simulator and `lanewatch serve` from their installed bins, an app measured with
// `node --require @lanewatch/instrumentation/register` on the repository's Node and with `--import`
// on the oldest supported one, a service reading the hints and admitting a job through the installed
// processor, and a TypeScript project type-checked against the installed declarations. A file left
// out of `files`, an `exports` target that is not built, or a runtime import of a devDependency fails
// here, where the workspace's own tests (which run the sources) cannot see it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { MILESTONE_QUANTILE_KEY, MILESTONES } from '@lanewatch/instrumentation/names';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { freePort, type ManagedProcess, startProcess, waitUntilReady } from '../stack/index.ts';
import { repoRoot } from '../stack/repo-script.ts';
import { eventually } from './pipeline-stack.ts';

const run = promisify(execFile);
const PACKAGES = ['simulator', 'instrumentation', 'processor'] as const;
const MODEL = 'packaged-check';
const LANE = `openai/${MODEL}`;
/** Calls each app makes; two apps. */
const CALLS = 12;

interface PackedPackage {
  readonly name: string;
  readonly filename: string;
  readonly files: readonly string[];
  readonly manifest: {
    readonly exports?: unknown;
    readonly bin?: Record<string, string>;
  };
}

/**
 * The environment for a child npm: this test may run under `npm test`, whose `npm_config_local_prefix`
 * would point a child npm at this repository instead of the directory it is given.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (
      key === 'npm_config_local_prefix' ||
      key.startsWith('npm_package_') ||
      key.startsWith('npm_lifecycle_')
    ) {
      delete env[key];
    }
  }
  return env;
}

/** npm, run by the Node running this test when npm started it (its own npm), else from PATH. */
async function npm(args: readonly string[], cwd: string, timeoutMs = 180_000): Promise<string> {
  const npmCli = process.env.npm_execpath;
  const [command, prefix] =
    npmCli !== undefined && /npm-cli\.[cm]?js$/.test(npmCli) ? [process.execPath, [npmCli]] : ['npm', []];
  try {
    const { stdout } = await run(command, [...prefix, ...args], {
      cwd,
      env: npmEnv(),
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const detail = error as { stderr?: string; message: string };
    throw new Error(`npm ${args.join(' ')} in ${cwd} failed: ${detail.message}\n${detail.stderr ?? ''}`);
  }
}

/** Every file path an `exports` map names, whatever its conditions. */
function exportTargets(exportsField: unknown): string[] {
  if (typeof exportsField === 'string') return [exportsField];
  if (exportsField === null || typeof exportsField !== 'object') return [];
  return Object.values(exportsField).flatMap(exportTargets);
}

const normalized = (path: string) => path.replace(/^\.\//, '');

describe('the packages as npm installs them', { timeout: 15 * 60_000 }, () => {
  let work = '';
  let project = '';
  const packed = new Map<string, PackedPackage>();
  const processes: ManagedProcess[] = [];

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'lanewatch-packaged-'));
    project = join(work, 'project');
    for (const name of PACKAGES) {
      const out = await npm(['pack', '--json', '--pack-destination', work], join(repoRoot, 'packages', name));
      const [result] = JSON.parse(out) as { name: string; filename: string; files: { path: string }[] }[];
      assert.ok(result, `npm pack printed no package for packages/${name}`);
      const manifest = JSON.parse(await readFile(join(repoRoot, 'packages', name, 'package.json'), 'utf8'));
      packed.set(name, {
        name: result.name,
        filename: join(work, result.filename),
        files: result.files.map((file) => file.path),
        manifest,
      });
    }
  });

  after(async () => {
    await Promise.all(processes.map((proc) => proc.stop()));
    if (work !== '') await rm(work, { recursive: true, force: true });
  });

  test('every tarball holds each file its package.json points to, and no test, fixture or build cache', () => {
    for (const pkg of packed.values()) {
      const files = new Set(pkg.files);
      const wanted = [
        ...exportTargets(pkg.manifest.exports),
        ...Object.values(pkg.manifest.bin ?? {}),
        'README.md',
        'LICENSE',
      ].map(normalized);
      for (const path of wanted) assert.ok(files.has(path), `${pkg.name}: ${path} is not in the tarball`);
      // Every module of dist has its declarations beside it.
      for (const path of files) {
        if (path.startsWith('dist/') && path.endsWith('.js')) {
          assert.ok(files.has(path.replace(/\.js$/, '.d.ts')), `${pkg.name}: ${path} has no .d.ts`);
        }
      }
      const unwanted = pkg.files.filter((path) =>
        /\.test(-helper)?\.[cm]?[jt]s|\/testdata\/|^bench\/|^test\/|\.tsbuildinfo$/.test(path),
      );
      assert.deepEqual(unwanted, [], `${pkg.name} ships files only its tests use`);
    }
  });

  test('installs into an empty project from its tarballs alone', { timeout: 5 * 60_000 }, async () => {
    await mkdir(project);
    await writeFile(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'app', private: true }, null, 2)}\n`,
    );
    const tarballs = PACKAGES.map((name) => packed.get(name)?.filename ?? '');
    await npm(
      [
        'install',
        '--prefix',
        project,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        ...tarballs,
      ],
      project,
      5 * 60_000,
    );
    // Every entry point loads from the installed files, with only the packages' own dependencies.
    const entries = PACKAGES.flatMap((name) => {
      const pkg = packed.get(name);
      const subpaths = Object.keys((pkg?.manifest.exports ?? {}) as Record<string, unknown>);
      return subpaths
        .filter((subpath) => !subpath.endsWith('.json'))
        .map((subpath) => `${pkg?.name}${subpath.slice(1)}`)
        .filter((entry) => !entry.endsWith('/register')); // starts an SDK: the next test runs it
    });
    const loaded = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const entry of ${JSON.stringify(entries)}) { const url = import.meta.resolve(entry); await import(entry); console.log(url); }`,
      ],
      { cwd: project, timeout: 60_000 },
    );
    const urls = loaded.stdout.trim().split('\n');
    assert.equal(urls.length, entries.length, loaded.stderr);
    for (const url of urls) assert.match(url, /\/project\/node_modules\/@lanewatch\/[a-z]+\/dist\//);
  });

  test('an app under --require (Node 24) and one under --import (Node 22.15) reach lanewatch serve; a service reads the hints and admits a job', {
    timeout: 5 * 60_000,
  }, async () => {
    const bin = (name: string) => join(project, 'node_modules', '.bin', name);
    const node22 = (
      await run('bash', [join(repoRoot, 'scripts/node-release.sh'), '22.15.0', '-p', 'process.execPath'])
    ).stdout.trim();
    const providerPort = await freePort();
    const servePort = await freePort();
    // Reasoning first, text later: the first output and the first text are different instants.
    const simulator = startProcess({
      name: 'packaged-simulator',
      command: process.execPath,
      args: [
        bin('lanewatch-simulator'),
        `thinker:${providerPort}`,
        '--knob',
        'headersMedianMs=100',
        '--knob',
        'actionLeadMedianMs=400',
        '--knob',
        'outputTokensMin=10',
        '--knob',
        'outputTokensMax=20',
      ],
      cwd: project,
    });
    processes.push(simulator);
    const serve = startProcess({
      name: 'packaged-serve',
      command: process.execPath,
      args: [
        bin('lanewatch'),
        'serve',
        '--port',
        String(servePort),
        '--interval',
        '1',
        '--min-samples',
        String(CALLS),
        '--store',
        `file:${join(project, 'lane-health.json')}`,
      ],
      cwd: project,
    });
    processes.push(serve);
    await waitUntilReady(simulator, 'its lane', async () => {
      const response = await fetch(`http://127.0.0.1:${providerPort}/`).catch(() => undefined);
      await response?.arrayBuffer();
      return response !== undefined;
    });
    await waitUntilReady(serve, 'its health check', async () => {
      const response = await fetch(`http://127.0.0.1:${servePort}/healthz`);
      await response.arrayBuffer();
      return response.ok;
    });

    const app = `
const calls = [];
for (let i = 0; i < ${CALLS}; i++) {
  calls.push(fetch('http://127.0.0.1:${providerPort}/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: '${MODEL}', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hello' }] }),
  }).then((response) => response.text()));
}
Promise.all(calls).then((bodies) => console.log('streams', bodies.filter((body) => body.includes('[DONE]')).length));
`;
    await writeFile(join(project, 'app.cjs'), app);
    await writeFile(join(project, 'app.mjs'), app);
    // Metrics only, exported when the app exits (the SDK's interval is a minute).
    const appEnv = {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${servePort}`,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_SERVICE_NAME: 'packaged-app',
    };
    const required = await run(
      process.execPath,
      ['--require', '@lanewatch/instrumentation/register', 'app.cjs'],
      {
        cwd: project,
        env: appEnv,
        timeout: 60_000,
      },
    );
    assert.equal(required.stdout.trim(), `streams ${CALLS}`, required.stderr);
    const imported = await run(node22, ['--import', '@lanewatch/instrumentation/register', 'app.mjs'], {
      cwd: project,
      env: appEnv,
      timeout: 60_000,
    });
    assert.equal(imported.stdout.trim(), `streams ${CALLS}`, imported.stderr);
    assert.equal(`${required.stderr}${imported.stderr}`, '', 'the instrumented apps wrote to stderr');

    // A service of the user's, on the installed processor: the hints over HTTP, then admission.
    await writeFile(
      join(project, 'service.mjs'),
      `
import { createAdmissionController, createLaneReader } from '@lanewatch/processor';
const reader = await createLaneReader('http://127.0.0.1:${servePort}');
const lane = await reader.lane('${LANE}');
const admission = createAdmissionController({ reader, safetyMarginS: 0.5 });
const decision = await admission.admit({ id: 'job-1', deadline_s: 60 });
console.log(JSON.stringify({ lane, decision }));
await reader.close();
`,
    );
    const seen = await eventually(
      `lane ${LANE} judged on ${2 * CALLS} calls by the installed lanewatch serve`,
      async () => {
        const { stdout } = await run(process.execPath, ['service.mjs'], { cwd: project, timeout: 30_000 });
        const result = JSON.parse(stdout) as {
          lane?: {
            state: string;
            samples: number;
            quantiles: Record<string, { p50: number; p95: number }>;
            output_tokens_per_second?: { p50: number };
          };
          decision: { admitted: boolean; lane?: string };
        };
        return result.lane?.samples === 2 * CALLS && result.lane.state !== 'unknown' ? result : undefined;
      },
      60_000,
    );
    const record = seen.lane;
    assert.ok(record);
    assert.equal(record.state, 'healthy');
    for (const milestone of MILESTONES.map((name) => MILESTONE_QUANTILE_KEY[name])) {
      const quantiles = record.quantiles[milestone];
      assert.ok(quantiles !== undefined && quantiles.p50 > 0, `${milestone}: ${JSON.stringify(quantiles)}`);
    }
    // Reasoning began ~0.4 s before the text (the simulator's schedule): two instants, not one.
    const firstOutput = record.quantiles.time_to_first_output?.p50 ?? 0;
    const firstText = record.quantiles.time_to_first_text?.p50 ?? 0;
    assert.ok(
      firstText - firstOutput > 0.2,
      `first output p50 ${firstOutput} s, first text p50 ${firstText} s`,
    );
    assert.ok((record.output_tokens_per_second?.p50 ?? 0) > 0, 'no output tokens per second');
    assert.deepEqual(
      { admitted: seen.decision.admitted, lane: seen.decision.lane },
      { admitted: true, lane: LANE },
    );

    // The file store the serve process wrote validates against the schema the package ships.
    const schema = JSON.parse(
      await readFile(
        join(project, 'node_modules/@lanewatch/processor/schema/lane-health.schema.json'),
        'utf8',
      ),
    );
    const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const document = JSON.parse(await readFile(join(project, 'lane-health.json'), 'utf8')) as {
      lanes: Record<string, unknown>;
    };
    const stored = document.lanes[LANE];
    assert.ok(stored !== undefined, `no ${LANE} in lane-health.json`);
    assert.ok(validate(stored), JSON.stringify(validate.errors));
  });

  test('a TypeScript project type-checks against the installed declarations', {
    timeout: 2 * 60_000,
  }, async () => {
    await writeFile(
      join(project, 'consumer.ts'),
      `import { LanewatchInstrumentation } from '@lanewatch/instrumentation';
import { ATTR, MILESTONES } from '@lanewatch/instrumentation/names';
import { admit, createLaneReader, type LaneHealth } from '@lanewatch/processor';
import { startLane } from '@lanewatch/simulator';

const instrumentation = new LanewatchInstrumentation({ lanes: { fast: 'http://127.0.0.1:8001/v1' } });
const lane: string = ATTR.lane;
const first: string = MILESTONES[0];
export async function read(): Promise<LaneHealth[]> {
  const reader = await createLaneReader('file:./lane-health.json');
  return (await reader.lanes()).map((view) => view);
}
export { admit, instrumentation, lane, first, startLane };
`,
    );
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          // The user's own @types/node; this repository's stands in for it.
          typeRoots: [join(repoRoot, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', project], {
      cwd: project,
      timeout: 120_000,
    }).catch((error: { stdout?: string; message: string }) => ({
      stdout: `${error.message}\n${error.stdout ?? ''}`,
      failed: true,
    }));
    assert.ok(!('failed' in result), result.stdout);
  });
});
