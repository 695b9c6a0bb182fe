// What grafana/README.md promises of the provisioning files and the committed dashboards that
// dashboards.test.ts does not check: the data source's name, uid and interval, the provider's folder,
// the compose mounts, the dashboards' titles, their variables, the panels the README lists with their
// units, the repeated breakdown, the state mappings, and latency quantiles of successful calls only.
// Only `generate.ts --check` runs as a process; dashboard-values.test.ts runs panels against a real Prometheus.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MILESTONES } from '@lanewatch/instrumentation/names';
import { STATE_CODE } from '@lanewatch/processor';
import { DASHBOARD_FILES, DASHBOARDS_DIR } from '../../grafana/src/dashboards.ts';
import { LABEL, MILESTONE_SERIES, MILESTONE_TITLE, PROCESSOR_SERIES } from '../../grafana/src/series.ts';
import { builtIns, parsePromQL, substituteVariables } from './dashboard-queries.ts';

const repoFile = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

interface Target {
  refId: string;
  expr: string;
  legendFormat?: string;
  instant?: boolean;
  datasource?: { type: string; uid: string };
}
interface Panel {
  type: string;
  title: string;
  repeat?: string;
  datasource?: { type: string; uid: string };
  fieldConfig?: {
    defaults?: {
      unit?: string;
      mappings?: { type: string; options: Record<string, { text: string; color: string }> }[];
    };
  };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  label?: string;
  query?: unknown;
  definition?: string;
  multi?: boolean;
  includeAll?: boolean;
  allValue?: string;
}
interface Dashboard {
  title: string;
  templating: { list: Variable[] };
  panels: Panel[];
}

const dashboards = new Map<string, Dashboard>(
  DASHBOARD_FILES.map(({ file }) => [
    file,
    JSON.parse(readFileSync(fileURLToPath(new URL(file, DASHBOARDS_DIR)), 'utf8')) as Dashboard,
  ]),
);
const LANES = 'lanewatch-lanes.json';
const HINTS = 'lanewatch-lane-hints.json';

function dashboard(file: string): Dashboard {
  const found = dashboards.get(file);
  assert.ok(found, `grafana/dashboards/${file}`);
  return found;
}

function panelsOf(file: string): Panel[] {
  const flat = (panels: readonly Panel[]): Panel[] => panels.flatMap((p) => [p, ...flat(p.panels ?? [])]);
  return flat(dashboard(file).panels).filter((panel) => panel.type !== 'row');
}

function onePanel(file: string, title: RegExp): Panel {
  const found = panelsOf(file).filter((panel) => title.test(panel.title));
  assert.equal(found.length, 1, `${file}: one panel titled ${title}, found ${found.map((p) => p.title)}`);
  return found[0] as Panel;
}

/** `key: value` of a flat YAML line (the provisioning files have no anchors or multi-line values). */
function yamlValue(text: string, key: string): string | undefined {
  return new RegExp(`^\\s*-?\\s*${key}:\\s*(.+?)\\s*$`, 'm').exec(text)?.[1];
}

describe('provisioning as grafana/README.md documents it', () => {
  const datasource = repoFile('grafana/provisioning/datasources/prometheus.yaml');

  test('the data source is "Prometheus (lanewatch)", uid lanewatch-prometheus, of type prometheus', () => {
    assert.equal(yamlValue(datasource, 'name'), 'Prometheus (lanewatch)');
    assert.equal(yamlValue(datasource, 'uid'), 'lanewatch-prometheus');
    assert.equal(yamlValue(datasource, 'type'), 'prometheus');
  });

  test('its interval is 15 s, the export interval the root README tells apps to use', () => {
    assert.equal(yamlValue(datasource, 'timeInterval'), '15s');
    const exportMs = /OTEL_METRIC_EXPORT_INTERVAL=(\d+)/.exec(repoFile('README.md'))?.[1];
    assert.equal(Number(exportMs), 15_000, 'README.md: OTEL_METRIC_EXPORT_INTERVAL');
  });

  test('the dashboard provider reads its path into the lanewatch folder', () => {
    const provider = repoFile('grafana/provisioning/dashboards/lanewatch.yaml');
    assert.equal(yamlValue(provider, 'type'), 'file');
    assert.equal(yamlValue(provider, 'folder'), 'lanewatch');
    assert.equal(yamlValue(provider, 'path'), '/var/lib/grafana/dashboards/lanewatch');
  });

  test('docker-compose.yml mounts provisioning/ at /etc/grafana/provisioning and points PROMETHEUS_URL at its Prometheus', () => {
    const compose = repoFile('docker-compose.yml');
    assert.match(compose, /- \.\/grafana\/provisioning:\/etc\/grafana\/provisioning(:ro)?\s*$/m);
    assert.match(compose, /^\s*PROMETHEUS_URL: http:\/\/prometheus:9090\s*$/m);
  });
});

describe('the dashboards as grafana/README.md documents them', () => {
  test('the two dashboards are "lanewatch — lanes" and "lanewatch — lane hints"', () => {
    assert.equal(dashboard(LANES).title, 'lanewatch — lanes');
    assert.equal(dashboard(HINTS).title, 'lanewatch — lane hints');
  });

  test('variables: Service, Lane and Model (lanes); Processor and Lane (hints); each over its label, multi-value with All', () => {
    const expected: Record<string, [name: string, label: string, labelName: string][]> = {
      [LANES]: [
        ['job', 'Service', 'job'],
        ['lane', 'Lane', LABEL.lane],
        ['model', 'Model', LABEL.model],
      ],
      [HINTS]: [
        ['processor', 'Processor', 'job'],
        ['lane', 'Lane', LABEL.lane],
      ],
    };
    for (const [file, variables] of Object.entries(expected)) {
      const list = dashboard(file).templating.list.filter((v) => v.type === 'query');
      assert.deepEqual(
        list.map((v) => v.name),
        variables.map(([name]) => name),
        file,
      );
      for (const [name, label, labelName] of variables) {
        const variable = list.find((v) => v.name === name) as Variable;
        assert.equal(variable.label, label, `${file} $${name}`);
        assert.match(variable.definition ?? '', new RegExp(`^label_values\\(.*, ${labelName}\\)$`), name);
        assert.equal(variable.multi, true, `${file} $${name} is multi-value`);
        assert.equal(variable.includeAll, true, `${file} $${name} offers All`);
      }
    }
    // The Processor variable lists the processor's own job, not the apps'.
    const processor = dashboard(HINTS).templating.list.find((v) => v.name === 'processor');
    assert.match(
      processor?.definition ?? '',
      new RegExp(`^label_values\\(${PROCESSOR_SERIES.laneStateCode}\\b`),
    );
  });

  test('every panel and query reads the data source picked in the Data source variable', () => {
    for (const file of dashboards.keys()) {
      const variable = dashboard(file).templating.list.find((v) => v.type === 'datasource');
      assert.equal(variable?.label, 'Data source', file);
      assert.equal(variable?.query, 'prometheus', file);
      const ref = `\${${variable?.name}}`;
      for (const panel of panelsOf(file)) {
        assert.equal(panel.datasource?.uid, ref, `${file} / ${panel.title}`);
        for (const target of panel.targets ?? []) {
          assert.equal(target.datasource?.uid, ref, `${file} / ${panel.title} / ${target.refId}`);
        }
      }
    }
  });

  test('the panels the README lists are there, with their units', () => {
    const perSecond = /^(reqps|ops)$/;
    const seconds = /^s$/;
    const fraction = /^percentunit$/;
    const listed: [file: string, title: RegExp, unit?: RegExp, type?: string][] = [
      ...MILESTONES.map((m): [string, RegExp, RegExp] => [
        LANES,
        new RegExp(`^Time to ${MILESTONE_TITLE[m]}\\b.* — p50 · p95 · p99 per lane$`),
        seconds,
      ]),
      [LANES, /^Tail ratio p99 \/ p50 per lane — first text and end$/],
      [LANES, /^Milestone breakdown of lane \$lane\b/, seconds, 'bargauge'],
      [LANES, /^Calls per second by lane and outcome\b/, perSecond],
      [LANES, /^Error and 429 ratio per lane\b/, fraction],
      [LANES, /^Errors per second by lane and error\.type\b/, perSecond],
      [LANES, /^Output speed per call, tokens\/s from first text to end — p50 and p5\b/],
      [LANES, /^Tokens per second through each lane\b/],
      [LANES, /^What arrives at first output: text, reasoning or tool call\b/, perSecond],
      [HINTS, /^Lane state: unknown · healthy · degraded · saturated · down$/, undefined, 'state-timeline'],
      [HINTS, /^Calls in the processor’s window\b/],
      [
        HINTS,
        /^Rates per lane\b.*error, rate_limited \(429\), timeout, cancelled, truncated, retry$/,
        fraction,
      ],
      ...MILESTONES.map((m): [string, RegExp, RegExp] => [
        HINTS,
        new RegExp(`^Time to ${MILESTONE_TITLE[m]}\\b.*, as the processor sees it — p50 · p95 · p99\\b`),
        seconds,
      ]),
      [HINTS, /^Tail ratio p99 \/ p50 per lane\b/],
      [HINTS, /^Recommended cutoffs per lane: first output and end\b/, seconds],
      [HINTS, /^Hedge delay\b/, seconds],
      [HINTS, /^Hedging allowed\b/, undefined, 'state-timeline'],
      [HINTS, /^Expected cost\b/, seconds],
      [HINTS, /^Admission decisions per second by decision and reason$/, perSecond],
      [HINTS, /^Jobs admitted per second, by the lane chosen$/, perSecond],
      [HINTS, /^Processor ingest\b/, perSecond],
    ];
    for (const [file, title, unit, type] of listed) {
      const panel = onePanel(file, title);
      if (unit !== undefined) assert.match(panel.fieldConfig?.defaults?.unit ?? '', unit, panel.title);
      if (type !== undefined) assert.equal(panel.type, type, panel.title);
    }
  });

  test('each milestone panel of the lanes dashboard shows p50, p95 and p99 per lane over its own histogram', () => {
    for (const m of MILESTONES) {
      const panel = onePanel(
        LANES,
        new RegExp(`^Time to ${MILESTONE_TITLE[m]}\\b.* — p50 · p95 · p99 per lane$`),
      );
      const exprs = (panel.targets ?? []).map((t) => t.expr);
      assert.equal(exprs.length, 3, panel.title);
      for (const [i, q] of ['0.5', '0.95', '0.99'].entries()) {
        assert.ok(
          exprs[i]?.startsWith(
            `histogram_quantile(${q}, sum by (${LABEL.lane}) (rate(${MILESTONE_SERIES[m]}{`,
          ),
          `${panel.title}: ${exprs[i]}`,
        );
      }
    }
  });

  test('the milestone breakdown is repeated for each picked lane: every milestone’s p50 and p95 over the picked range', () => {
    const panel = onePanel(LANES, /^Milestone breakdown of lane \$lane\b/);
    assert.equal(panel.repeat, 'lane');
    const targets = panel.targets ?? [];
    assert.deepEqual(
      targets.map((t) => t.legendFormat),
      MILESTONES.flatMap((m) => [`${MILESTONE_TITLE[m]} p50`, `${MILESTONE_TITLE[m]} p95`]),
    );
    for (const target of targets) {
      assert.equal(target.instant, true, `${target.legendFormat}: one value over the range`);
      assert.match(target.expr, /\[\$__range\]/, target.legendFormat);
    }
  });

  test('Lane state shows every state code the processor writes by its name; Hedging allowed shows 1 and 0 as allowed and not allowed', () => {
    const state = onePanel(HINTS, /^Lane state\b/);
    assert.match(state.targets?.[0]?.expr ?? '', new RegExp(`\\b${PROCESSOR_SERIES.laneStateCode}\\b`));
    const states = state.fieldConfig?.defaults?.mappings?.[0]?.options ?? {};
    assert.deepEqual(
      Object.fromEntries(Object.entries(states).map(([code, { text }]) => [code, text])),
      Object.fromEntries(Object.entries(STATE_CODE).map(([name, code]) => [String(code), name])),
    );
    const hedging = onePanel(HINTS, /^Hedging allowed\b/);
    assert.match(hedging.targets?.[0]?.expr ?? '', new RegExp(`\\b${PROCESSOR_SERIES.laneHedgeAllowed}\\b`));
    const allowed = hedging.fieldConfig?.defaults?.mappings?.[0]?.options ?? {};
    assert.equal(allowed['1']?.text, 'allowed');
    assert.equal(allowed['0']?.text, 'not allowed');
  });

  test('every latency quantile on the lanes dashboard is of successful calls (lanewatch_outcome="ok")', () => {
    const milestoneSeries = new Set<string>(Object.values(MILESTONE_SERIES));
    const placeholders = { datasource: 'x', job: '.*', lane: '.*', model: '.*', ...builtIns('1h', '1m') };
    let quantiles = 0;
    for (const panel of panelsOf(LANES)) {
      for (const target of panel.targets ?? []) {
        if (!target.expr.includes('histogram_quantile(')) continue;
        const parsed = parsePromQL(substituteVariables(target.expr, placeholders));
        const latency = parsed.metrics.filter((metric) => milestoneSeries.has(metric)).length;
        if (latency === 0) continue;
        quantiles += latency;
        const ok = (parsed.equalities.get(LABEL.outcome) ?? []).filter((value) => value === 'ok').length;
        assert.equal(ok, latency, `${panel.title} / ${target.refId}: ${target.expr}`);
      }
    }
    // 5 milestone panels × 3, the tail ratio's 2 × 2, the breakdown's 10.
    assert.equal(quantiles, 29);
  });
});

describe('grafana/generate.ts --check', () => {
  const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

  /** `node --conditions=lanewatch-source grafana/generate.ts --check` in `cwd`: exit code and stderr. */
  function check(cwd: string): Promise<{ code: number; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=lanewatch-source', 'grafana/generate.ts', '--check'],
        { cwd, timeout: 60_000 },
        (error, _stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stderr }),
      );
    });
  }

  test('exits 0 on the committed dashboards', async () => {
    const { code, stderr } = await check(repoRoot);
    assert.equal(code, 0, stderr);
  });

  test('exits 1 naming a stale dashboard, and leaves it as it was', async () => {
    // A copy of grafana/ whose imports resolve through the repo's node_modules.
    const dir = mkdtempSync(join(tmpdir(), 'lanewatch-generate-'));
    try {
      cpSync(join(repoRoot, 'grafana'), join(dir, 'grafana'), { recursive: true });
      symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
      const stale = join(dir, 'grafana/dashboards/lanewatch-lane-hints.json');
      writeFileSync(stale, '{}\n');
      const { code, stderr } = await check(dir);
      assert.equal(code, 1, stderr);
      assert.match(stderr, /grafana\/dashboards\/lanewatch-lane-hints\.json differs/);
      assert.doesNotMatch(stderr, /lanewatch-lanes\.json/, 'the up-to-date one is not named');
      assert.equal(readFileSync(stale, 'utf8'), '{}\n', '--check writes nothing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
