// The dashboards, one JSON file each under grafana/dashboards/. generate.ts writes them; the test
// (test/e2e/dashboards.test.ts) renders them again and fails when the committed files differ.
import type { DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { lanesDashboard } from './lanes-dashboard.ts';
import { processorDashboard } from './processor-dashboard.ts';

export interface DashboardFile {
  /** File name under grafana/dashboards/. */
  readonly file: string;
  readonly build: () => DashboardBuilder;
}

export const DASHBOARD_FILES: readonly DashboardFile[] = [
  { file: 'lanewatch-lanes.json', build: lanesDashboard },
  { file: 'lanewatch-lane-hints.json', build: processorDashboard },
];

/** Where generate.ts writes and the test reads. */
export const DASHBOARDS_DIR = new URL('../dashboards/', import.meta.url);

/** A dashboard as committed: 2-space JSON and a final newline, so diffs stay readable. */
export function renderDashboard(dashboard: DashboardFile): string {
  return `${JSON.stringify(dashboard.build().build(), null, 2)}\n`;
}
