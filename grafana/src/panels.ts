// Panel and variable builders shared by the dashboards (Grafana Foundation SDK), so every panel reads
// the same data source variable and shows its legend as a table.
import * as bargauge from '@grafana/grafana-foundation-sdk/bargauge';
import {
  BarGaugeDisplayMode,
  LegendDisplayMode,
  LegendPlacement,
  ReduceDataOptionsBuilder,
  VisibilityMode,
  VizLegendOptionsBuilder,
  VizOrientation,
} from '@grafana/grafana-foundation-sdk/common';
import {
  type DataSourceRef,
  DatasourceVariableBuilder,
  MappingType,
  QueryVariableBuilder,
  type ValueMapping,
  VariableRefresh,
  VariableSort,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as statetimeline from '@grafana/grafana-foundation-sdk/statetimeline';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { VAR } from './promql.ts';

export const DATASOURCE: DataSourceRef = { type: 'prometheus', uid: `\${${VAR.datasource}}` };

export interface Target {
  readonly expr: string;
  readonly legend: string;
  /** An instant query (one value per series) instead of a range. */
  readonly instant?: boolean;
}

function targetsOf(targets: readonly Target[]): DataqueryBuilder[] {
  return targets.map((target, i) => {
    const query = new DataqueryBuilder()
      .refId(String.fromCharCode(65 + i))
      .datasource(DATASOURCE)
      .expr(target.expr)
      .legendFormat(target.legend);
    return target.instant ? query.instant() : query.range();
  });
}

const tableLegend = () =>
  new VizLegendOptionsBuilder()
    .showLegend(true)
    .displayMode(LegendDisplayMode.Table)
    .placement(LegendPlacement.Right)
    .calcs(['lastNotNull']);

export interface PanelSpec {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly targets: readonly Target[];
  readonly width?: number;
  readonly height?: number;
}

export function timeseriesPanel(spec: PanelSpec): timeseries.PanelBuilder {
  return new timeseries.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .span(spec.width ?? 12)
    .height(spec.height ?? 8)
    .lineWidth(1)
    .fillOpacity(0)
    .spanNulls(false)
    .legend(tableLegend())
    .targets(targetsOf(spec.targets));
}

/** A bar per query (instant values): a lane's milestones side by side. */
export function barGaugePanel(spec: PanelSpec & { readonly repeatFor?: string }): bargauge.PanelBuilder {
  const panel = new bargauge.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .span(spec.width ?? 12)
    .height(spec.height ?? 8)
    .orientation(VizOrientation.Horizontal)
    .displayMode(BarGaugeDisplayMode.Basic)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']).values(false))
    .targets(targetsOf(spec.targets));
  return spec.repeatFor === undefined
    ? panel
    : panel.repeat(spec.repeatFor).repeatDirection('h').maxPerRow(2);
}

export interface StateSpec extends PanelSpec {
  /** value → [text, color] */
  readonly states: ReadonlyArray<readonly [number, string, string]>;
}

export function stateTimelinePanel(spec: StateSpec): statetimeline.PanelBuilder {
  const mapping: ValueMapping = {
    type: MappingType.ValueToText,
    options: Object.fromEntries(
      spec.states.map(([value, text, color], index) => [String(value), { text, color, index }]),
    ),
  };
  return new statetimeline.PanelBuilder()
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .unit(spec.unit)
    .span(spec.width ?? 24)
    .height(spec.height ?? 7)
    .mappings([mapping])
    .showValue(VisibilityMode.Never)
    .mergeValues(true)
    .legend(
      new VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(LegendDisplayMode.List)
        .placement(LegendPlacement.Bottom),
    )
    .targets(targetsOf(spec.targets));
}

export function datasourceVariable(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder(VAR.datasource).label('Data source').type('prometheus');
}

/** A multi-value variable over a label's values (All = any value, the label absent included). */
export function labelVariable(options: {
  readonly name: string;
  readonly label: string;
  readonly description: string;
  /** `label_values(<selector>, <label>)`: the selector is PromQL (test/e2e parses it). */
  readonly selector: string;
  readonly labelName: string;
}): QueryVariableBuilder {
  const definition = `label_values(${options.selector}, ${options.labelName})`;
  return new QueryVariableBuilder(options.name)
    .label(options.label)
    .description(options.description)
    .datasource(DATASOURCE)
    .query({ qryType: 1, query: definition, refId: 'PrometheusVariableQueryEditor-VariableQuery' })
    .definition(definition)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .current({ text: 'All', value: '$__all' });
}
