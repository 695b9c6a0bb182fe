// The queries of the committed dashboards, read from their JSON the way Grafana would: every panel's
// targets (rows' nested panels included), every query variable, template variables substituted, and
// PromQL parsed by Prometheus's own grammar (@prometheus-io/lezer-promql).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { DASHBOARD_FILES, DASHBOARDS_DIR } from '../../grafana/src/dashboards.ts';

interface DashboardJson {
  uid: string;
  title: string;
  templating: { list: { name: string; type: string; definition?: string }[] };
  panels: PanelJson[];
}

interface PanelJson {
  type: string;
  title: string;
  repeat?: string;
  panels?: PanelJson[];
  targets?: { refId: string; expr: string; legendFormat?: string; instant?: boolean }[];
}

export interface PanelQuery {
  readonly dashboard: string;
  readonly panel: string;
  /** The variable the panel is repeated for, if any. */
  readonly repeat: string | undefined;
  readonly refId: string;
  readonly expr: string;
  readonly legend: string;
  readonly instant: boolean;
}

export interface VariableQuery {
  readonly dashboard: string;
  readonly name: string;
  /** The series selector inside label_values(…). */
  readonly selector: string;
  readonly label: string;
}

export function committedDashboards(): { file: string; json: DashboardJson }[] {
  return DASHBOARD_FILES.map(({ file }) => ({
    file,
    json: JSON.parse(readFileSync(fileURLToPath(new URL(file, DASHBOARDS_DIR)), 'utf8')) as DashboardJson,
  }));
}

function flatPanels(panels: readonly PanelJson[]): PanelJson[] {
  return panels.flatMap((panel) => [panel, ...flatPanels(panel.panels ?? [])]);
}

export function panelsOf(dashboard: DashboardJson): PanelJson[] {
  return flatPanels(dashboard.panels).filter((panel) => panel.type !== 'row');
}

export function panelQueries(): PanelQuery[] {
  return committedDashboards().flatMap(({ json }) =>
    panelsOf(json).flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({
        dashboard: json.title,
        panel: panel.title,
        repeat: panel.repeat,
        refId: target.refId,
        expr: target.expr,
        legend: target.legendFormat ?? '',
        instant: target.instant === true,
      })),
    ),
  );
}

export function variableQueries(): VariableQuery[] {
  return committedDashboards().flatMap(({ json }) =>
    json.templating.list
      .filter((variable) => variable.type === 'query')
      .map((variable) => {
        const match = /^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(variable.definition ?? '');
        if (match === null)
          throw new Error(`${json.title}: variable ${variable.name} is not label_values(…)`);
        return {
          dashboard: json.title,
          name: variable.name,
          selector: match[1] ?? '',
          label: match[2] ?? '',
        };
      }),
  );
}

export function variableNames(dashboardTitle: string): string[] {
  const dashboard = committedDashboards().find(({ json }) => json.title === dashboardTitle);
  return dashboard?.json.templating.list.map((variable) => variable.name) ?? [];
}

/**
 * Grafana's interpolation of `$name`, `${name}` and `[[name]]`: each variable present in `values` is
 * replaced; any other one left in the query is an error (a query would reach Prometheus with a `$`).
 */
export function substituteVariables(expr: string, values: Readonly<Record<string, string>>): string {
  const result = expr.replace(
    /\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g,
    (whole, braced?: string, bracketed?: string, bare?: string) => {
      const name = braced ?? bracketed ?? bare ?? '';
      return values[name] ?? whole;
    },
  );
  const left = /\$\{?\w+|\[\[\w+\]\]/.exec(result);
  if (left !== null) throw new Error(`no value for ${left[0]} in ${expr}`);
  return result;
}

/** Grafana's built-ins as the tests set them. */
export function builtIns(range: string, rateInterval: string): Record<string, string> {
  return { __rate_interval: rateInterval, __interval: '15s', __range: range };
}

export interface ParsedQuery {
  /** Text of every syntax error (lezer's error nodes), empty when the query parses. */
  readonly errors: readonly string[];
  /** Metric names of every vector selector. */
  readonly metrics: readonly string[];
  /** label → values of every `label="value"` matcher. */
  readonly equalities: ReadonlyMap<string, readonly string[]>;
}

export function parsePromQL(expr: string): ParsedQuery {
  const errors: string[] = [];
  const metrics: string[] = [];
  const equalities = new Map<string, string[]>();
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) {
        errors.push(
          `syntax error at ${node.from}: …${expr.slice(Math.max(0, node.from - 20), node.from + 20)}…`,
        );
      }
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier !== null) metrics.push(expr.slice(identifier.from, identifier.to));
      }
      if (node.name === 'UnquotedLabelMatcher') {
        const name = node.node.getChild('LabelName');
        const op = node.node.getChild('MatchOp');
        const value = node.node.getChild('StringLiteral');
        if (name && op && value && expr.slice(op.from, op.to) === '=') {
          const label = expr.slice(name.from, name.to);
          const list = equalities.get(label) ?? [];
          list.push(JSON.parse(expr.slice(value.from, value.to)) as string);
          equalities.set(label, list);
        }
      }
    },
  });
  return { errors, metrics, equalities };
}
