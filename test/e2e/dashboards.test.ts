// The committed dashboards against their one source (grafana/generate.ts) and the names the code
// records under. No process is started: pipeline.test.ts runs the same queries against Prometheus.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MILESTONE_METRIC, MILESTONES, type Milestone } from '@lanewatch/instrumentation/names';
import { PROCESSOR_INSTRUMENT, TELEMETRY_ATTR } from '@lanewatch/processor';
import { DASHBOARD_FILES, DASHBOARDS_DIR, renderDashboard } from '../../grafana/src/dashboards.ts';
import {
  prometheusLabel,
  prometheusSeriesName,
  UnknownUnitError,
} from '../../grafana/src/prometheus-name.ts';
import {
  INSTRUMENTATION_SERIES,
  MILESTONE_SERIES,
  MILESTONE_TITLE,
  OUTPUT_SPEED_SERIES,
  PROCESSOR_SERIES,
  TOKEN_USAGE_SERIES,
} from '../../grafana/src/series.ts';
import {
  builtIns,
  committedDashboards,
  panelQueries,
  panelsOf,
  parsePromQL,
  substituteVariables,
  variableNames,
  variableQueries,
} from './dashboard-queries.ts';

const repoFile = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');

/** Any value will do for parsing: the variables as Grafana expands an "All" pick. */
const PLACEHOLDERS = {
  datasource: 'prometheus',
  job: '.*',
  lane: '.*',
  model: '.*',
  processor: '.*',
  ...builtIns('1h', '1m'),
};

describe('dashboards: one source', () => {
  for (const dashboard of DASHBOARD_FILES) {
    test(`grafana/dashboards/${dashboard.file} is what grafana/generate.ts writes`, () => {
      const committed = readFileSync(fileURLToPath(new URL(dashboard.file, DASHBOARDS_DIR)), 'utf8');
      assert.ok(
        committed === renderDashboard(dashboard),
        `grafana/dashboards/${dashboard.file} differs from the generator's output: run npm run dashboards and commit the result`,
      );
    });
  }

  test('series names follow the collector translation the processor and collector READMEs list', () => {
    // The collector README's table, read back from Prometheus by test/collector-config.test.ts.
    assert.deepEqual(MILESTONE_SERIES, {
      headers: 'lanewatch_time_to_headers_seconds',
      first_chunk: 'gen_ai_client_operation_time_to_first_chunk_seconds',
      first_output: 'lanewatch_time_to_first_output_seconds',
      first_text: 'lanewatch_time_to_first_text_seconds',
      end: 'gen_ai_client_operation_duration_seconds',
    });
    assert.equal(TOKEN_USAGE_SERIES, 'gen_ai_client_token_usage');
    assert.equal(OUTPUT_SPEED_SERIES, 'lanewatch_output_tokens_per_second_per_second');
    // The processor's own table (checked there against a real Prometheus) and the same rules agree.
    for (const instrument of Object.values(PROCESSOR_INSTRUMENT)) {
      assert.equal(
        prometheusSeriesName(instrument.name, instrument.unit, instrument.kind),
        instrument.prometheus,
        `${instrument.name} (${instrument.unit || 'no unit'}, ${instrument.kind})`,
      );
    }
    assert.throws(() => prometheusSeriesName('x.size', 'KiBy', 'gauge'), UnknownUnitError);
  });
});

describe('dashboards: queries', () => {
  const queries = panelQueries();

  test('both dashboards have panels and every panel has a query', () => {
    for (const { json } of committedDashboards()) {
      const panels = panelsOf(json);
      assert.ok(panels.length >= 8, `${json.title}: ${panels.length} panels`);
      for (const panel of panels) assert.ok((panel.targets ?? []).length > 0, `${panel.title}: no query`);
    }
  });

  test('every panel query and variable selector parses as PromQL', () => {
    for (const query of queries) {
      const { errors } = parsePromQL(substituteVariables(query.expr, PLACEHOLDERS));
      assert.deepEqual(errors, [], `${query.dashboard} / ${query.panel} / ${query.refId}: ${query.expr}`);
    }
    for (const variable of variableQueries()) {
      const { errors } = parsePromQL(substituteVariables(variable.selector, PLACEHOLDERS));
      assert.deepEqual(errors, [], `${variable.dashboard} / $${variable.name}: ${variable.selector}`);
    }
  });

  test('the parser is strict enough to catch a broken query', () => {
    assert.notDeepEqual(parsePromQL('sum by (lanewatch_lane (rate(x[5m]))').errors, []);
    assert.notDeepEqual(parsePromQL('histogram_quantile(0.95, rate(x{a="b"}[5m])').errors, []);
  });

  test('every metric a query names is one the instrumentation or the processor records', () => {
    const known = new Set([...INSTRUMENTATION_SERIES, ...Object.values(PROCESSOR_SERIES)]);
    for (const query of queries) {
      for (const metric of parsePromQL(substituteVariables(query.expr, PLACEHOLDERS)).metrics) {
        assert.ok(known.has(metric), `${query.panel}: ${metric} is recorded by nothing`);
      }
    }
  });

  test('every variable a query uses is defined on its dashboard', () => {
    for (const query of queries) {
      const defined = Object.fromEntries(
        [...variableNames(query.dashboard), '__rate_interval', '__interval', '__range'].map((name) => [
          name,
          'x',
        ]),
      );
      assert.doesNotThrow(() => substituteVariables(query.expr, defined), `${query.panel}: ${query.expr}`);
    }
  });

  test('variables for service, lane and model (and the processor) exist', () => {
    const [lanes, hints] = committedDashboards().map(({ json }) => json.title);
    assert.deepEqual(variableNames(lanes ?? ''), ['datasource', 'job', 'lane', 'model']);
    assert.deepEqual(variableNames(hints ?? ''), ['datasource', 'processor', 'lane']);
  });
});

describe('dashboards: every panel names the milestone it shows', () => {
  const seriesMilestone = new Map<string, Milestone>(MILESTONES.map((m) => [MILESTONE_SERIES[m], m]));
  const milestoneLabel = prometheusLabel(TELEMETRY_ATTR.milestone);
  const milestoneLabelled = new Set<string>(
    Object.values(PROCESSOR_INSTRUMENT)
      .filter((instrument) => (instrument.attributes as readonly string[]).includes(TELEMETRY_ATTR.milestone))
      .map((instrument) => instrument.prometheus),
  );
  const names = (title: string, m: Milestone) => new RegExp(`\\b${MILESTONE_TITLE[m]}\\b`, 'i').test(title);

  test('"TTFT" is never a title', () => {
    for (const query of panelQueries()) assert.doesNotMatch(query.panel, /\bTT[FL]T\b|time to first token/i);
  });

  test('a panel over a milestone histogram, or a processor series pinned to a milestone, names it', () => {
    for (const query of panelQueries()) {
      const parsed = parsePromQL(substituteVariables(query.expr, PLACEHOLDERS));
      const shown = new Set<Milestone>();
      for (const metric of parsed.metrics) {
        const m = seriesMilestone.get(metric);
        if (m !== undefined) shown.add(m);
      }
      for (const value of parsed.equalities.get(milestoneLabel) ?? []) {
        assert.ok((MILESTONES as readonly string[]).includes(value), `${query.panel}: milestone "${value}"`);
        shown.add(value as Milestone);
      }
      for (const m of shown)
        assert.ok(names(query.panel, m), `"${query.panel}" shows ${m} but does not say so`);
    }
  });

  test('a processor series whose milestone varies per lane names it in the legend', () => {
    for (const query of panelQueries()) {
      const parsed = parsePromQL(substituteVariables(query.expr, PLACEHOLDERS));
      const pinned = (parsed.equalities.get(milestoneLabel) ?? []).length > 0;
      if (parsed.metrics.some((metric) => milestoneLabelled.has(metric)) && !pinned) {
        assert.match(query.legend, new RegExp(`\\{\\{\\s*${milestoneLabel}\\s*\\}\\}`), query.panel);
      }
    }
  });

  test('the milestone vocabulary is the instrumentation’s', () => {
    assert.deepEqual(Object.keys(MILESTONE_SERIES), Object.keys(MILESTONE_METRIC));
  });
});

describe('provisioning', () => {
  test('the data source URL comes from the environment, the dashboards from the mounted directory', () => {
    const datasource = repoFile('grafana/provisioning/datasources/prometheus.yaml');
    assert.match(datasource, /url: \$\{PROMETHEUS_URL\}/);
    assert.match(datasource, /type: prometheus/);
    const provider = repoFile('grafana/provisioning/dashboards/lanewatch.yaml');
    const path = /path: (\S+)/.exec(provider)?.[1];
    assert.ok(path !== undefined, 'the dashboard provider has a path');
    assert.match(repoFile('docker-compose.yml'), new RegExp(`\\./grafana/dashboards:${path}:ro`));
  });
});
