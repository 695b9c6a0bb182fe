// Writes grafana/dashboards/*.json from grafana/src/ (run by `npm run dashboards`), or with --check
// exits 1 naming every file that differs from what would be written.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_FILES, DASHBOARDS_DIR, renderDashboard } from './src/dashboards.ts';

const check = process.argv.includes('--check');
let stale = 0;
for (const dashboard of DASHBOARD_FILES) {
  const path = fileURLToPath(new URL(dashboard.file, DASHBOARDS_DIR));
  const json = renderDashboard(dashboard);
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === json) continue;
  if (check) {
    stale++;
    console.error(`grafana/dashboards/${dashboard.file} differs from the generator: run npm run dashboards`);
  } else {
    writeFileSync(path, json);
    console.log(`wrote grafana/dashboards/${dashboard.file}`);
  }
}
process.exitCode = stale === 0 ? 0 : 1;
