import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EVALUATION_CONFIG } from '../evaluation/evaluation-config.ts';
import { evaluationConfigOf, laneMapOf, loadLanesFile, parseLanesFile, scorecardOf } from './lanes-file.ts';
import { LanesFileError } from './lanes-file-error.ts';

function problemsOf(text: string): string[] {
  try {
    parseLanesFile(text, 'lanes.yaml');
  } catch (error) {
    assert.ok(error instanceof LanesFileError);
    return error.message.split('\n');
  }
  assert.fail('expected a LanesFileError');
}

describe('lanes file', () => {
  it('loads the shipped example', async () => {
    const path = fileURLToPath(new URL('./lanes.example.yaml', import.meta.url));
    const lanes = await loadLanesFile(path);
    assert.deepEqual([...lanes.lanes.keys()], ['local', 'hosted-fast']);
    assert.deepEqual(scorecardOf(lanes, 'local'), {
      can_hold_secret: true,
      offline_capable: true,
      handoff_s: 0.2,
      rank: 0,
      source: 'lanes_file',
    });
    assert.deepEqual(laneMapOf(lanes), {
      local: ['http://127.0.0.1:11434/api'],
      'hosted-fast': ['https://llm.example.com/v1'],
    });
  });

  it('merges process defaults, the file defaults and the lane overrides, in that order', async () => {
    const lanes = parseLanesFile(
      'defaults:\n  min_samples: 80\n  p95_budget_s: {end: 60}\nlanes:\n  a:\n    min_samples: 20\n    p95_budget_s: {first_output: 2}\n  b: {}\n',
      'lanes.yaml',
    );
    const a = evaluationConfigOf(lanes, 'a', DEFAULT_EVALUATION_CONFIG);
    assert.equal(a.minSamples, 20);
    assert.deepEqual(a.p95BudgetS, { end: 60, first_output: 2 });
    assert.equal(evaluationConfigOf(lanes, 'b', DEFAULT_EVALUATION_CONFIG).minSamples, 80);
    assert.equal(evaluationConfigOf(lanes, 'unlisted', DEFAULT_EVALUATION_CONFIG).cutoffMultiplier, 1.5);
  });

  it('gives a lane it does not name the conservative default scorecard', () => {
    const card = scorecardOf(parseLanesFile('lanes: {}\n', 'lanes.yaml'), 'other');
    assert.equal(card.can_hold_secret, false);
    assert.equal(card.offline_capable, false);
    assert.equal(card.source, 'default');
  });

  it('names the file, the line and the field, and says what to write instead', () => {
    const text = [
      'lanes:', //                         1
      '  fast:', //                        2
      '    match: [https://x.example/v1]', // 3
      '    can_hold_secret: yes please', // 4
      '    rank: 1', //                    5
      '    offline_capable: false', //     6
      '    handoff_s: fast', //            7
    ].join('\n');
    assert.deepEqual(problemsOf(text), [
      'lanes.yaml line 4: "can_hold_secret" must be true or false, got "yes please"',
      'lanes.yaml line 7: "handoff_s" must be a number of seconds, got "fast"',
    ]);
  });

  it('shows a bad value or an unknown field only when it looks like a setting, never a pasted key', () => {
    const SECRET = 'sk-CANARY-Lf7Qx2';
    const problems = problemsOf(
      ['lanes:', '  fast:', `    can_hold_secret: ${SECRET}`, `    ${SECRET}: 1`, `    rank: ${SECRET}`].join(
        '\n',
      ),
    );
    assert.deepEqual(problems, [
      'lanes.yaml line 4: unknown field (a name that is not shown); expected one of match, can_hold_secret, offline_capable, handoff_s, rank, min_samples, p95_budget_s, cutoff_multiplier',
      'lanes.yaml line 3: "can_hold_secret" must be true or false, got a value that is not shown',
      'lanes.yaml line 5: "rank" must be a whole number (lower is preferred), got a value that is not shown',
    ]);
    assert.ok(!problems.join('\n').includes('CANARY'));
  });

  it('rejects unknown fields, milestones and URLs with a query', () => {
    const problems = problemsOf(
      'lanes:\n  a:\n    handof_s: 1\n    p95_budget_s: {ttft: 2}\n    match: ["https://x.example/v1?key=abc", "not a url"]\n',
    );
    assert.equal(problems.length, 4);
    assert.match(problems[0] ?? '', /^lanes\.yaml line 3: unknown field "handof_s"; expected one of match, /);
    assert.match(
      problems[1] ?? '',
      /^lanes\.yaml line 4: "p95_budget_s\.ttft": unknown milestone; expected one of headers,/,
    );
    assert.match(
      problems[2] ?? '',
      /line 5: "match" entries .* carries a query or credentials; remove them$/,
    );
    assert.match(problems[3] ?? '', /line 5: .*; entry 2 is not an absolute URL$/);
  });

  it('names a bad "match" entry without its credentials, query or a value that is not a URL', () => {
    const SECRET = 'CANARY-3f9a';
    const problems = problemsOf(
      [
        'lanes:',
        '  local:',
        '    match:',
        `      - http://u:p-${SECRET}@127.0.0.1:11434/api?key=${SECRET}`,
        `      - u:${SECRET}@127.0.0.1/v1`,
        `      - redis://u:${SECRET}@127.0.0.1:6379`,
      ].join('\n'),
    );
    assert.deepEqual(problems, [
      'lanes.yaml line 4: "match" entries must be URL prefixes like http://127.0.0.1:8000/v1; entry 1 (http://127.0.0.1:11434/api) carries a query or credentials; remove them',
      'lanes.yaml line 5: "match" entries must be URL prefixes like http://127.0.0.1:8000/v1; entry 2 is not http or https',
      'lanes.yaml line 6: "match" entries must be URL prefixes like http://127.0.0.1:8000/v1; entry 3 is not http or https',
    ]);
    for (const problem of problems) assert.ok(!problem.includes(SECRET), problem);
  });

  it('reports YAML syntax errors and a missing file with the path', async () => {
    assert.match(problemsOf('lanes:\n  a: [unclosed\n')[0] ?? '', /^lanes\.yaml line \d+: not valid YAML: /);
    assert.match(
      problemsOf('- just\n- a list\n')[0] ?? '',
      /^lanes\.yaml line 1: expected a mapping with a "lanes" key/,
    );
    const dir = await mkdtemp(join(tmpdir(), 'lanes-'));
    try {
      await assert.rejects(
        loadLanesFile(join(dir, 'missing.yaml')),
        /missing\.yaml: cannot read the lanes file \(ENOENT\)/,
      );
      // The lane names points carry, Vertex AI's `model@version` included; not one folded into `other`.
      await writeFile(
        join(dir, 'vertex.yaml'),
        'lanes:\n  gcp.vertex_ai/claude-sonnet-4@20250514: {rank: 2}\n',
      );
      const vertex = await loadLanesFile(join(dir, 'vertex.yaml'));
      assert.equal(vertex.lanes.get('gcp.vertex_ai/claude-sonnet-4@20250514')?.scorecard?.rank, 2);
      await writeFile(join(dir, 'other.yaml'), 'lanes:\n  _fast: {}\n');
      await assert.rejects(
        loadLanesFile(join(dir, 'other.yaml')),
        /other\.yaml line 2: lane name "_fast" must be 1–128 letters, digits, .*starting with a letter or digit/,
      );
      await writeFile(join(dir, 'bad.yaml'), 'lanes:\n  "bad name!": {}\n');
      await assert.rejects(
        loadLanesFile(join(dir, 'bad.yaml')),
        /bad\.yaml line 2: lane name "bad name!" must be/,
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
