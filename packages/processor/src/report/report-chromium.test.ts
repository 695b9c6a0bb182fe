import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, ensureChromium } from './chromium.test-helper.ts';
import { htmlReport } from './html-report.ts';
import { reportFixture } from './report-fixture.test-helper.ts';

// The report as a person sees it: rendered by headless Chromium, measured in the page, screenshotted.
// The measuring script is added to a copy for the test only; the report itself has no script.

const MEASURE = `<script>
const visible = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
const drawn = (e) => { const r = e.getBoundingClientRect(); return r.height > 0; }; // a vertical line has no width
const svgs = [...document.querySelectorAll('svg')].map((s) => {
  const r = s.getBoundingClientRect();
  return { kind: s.getAttribute('class'), label: s.getAttribute('aria-label'), width: r.width, height: r.height,
    bins: [...s.querySelectorAll('rect.bin')].filter(visible).length,
    markers: [...s.querySelectorAll('line.marker')].filter(drawn).length,
    texts: [...s.querySelectorAll('text')].filter((t) => t.getBBox().width > 0).map((t) => t.textContent) };
});
const out = document.createElement('pre');
out.id = 'measured';
out.textContent = JSON.stringify({ svgs, headings: [...document.querySelectorAll('h1, h2')].map((h) => h.innerText),
  table: document.querySelector('table.summary')?.innerText ?? '' });
document.body.append(out);
</script>`;

interface Measured {
  svgs: {
    kind: string;
    label: string;
    width: number;
    height: number;
    bins: number;
    markers: number;
    texts: string[];
  }[];
  headings: string[];
  table: string;
}

let binary = '';
let dir = '';

before(async () => {
  binary = await ensureChromium();
  dir = await mkdtemp(join(tmpdir(), 'lanewatch-report-'));
});
after(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the report in headless Chromium', { timeout: 600_000 }, () => {
  it('shows every lane, its state, the quantile labels, and SVG charts of real size', async () => {
    const html = htmlReport(reportFixture());
    const page = join(dir, 'measured.html');
    await writeFile(page, html.replace('</body>', `${MEASURE}</body>`));
    const dom = await chromium(binary, ['--dump-dom'], page);
    const json = /<pre id="measured">([^<]*)<\/pre>/.exec(dom)?.[1];
    assert.ok(json, 'the page ran the measuring script');
    const text = json
      .replaceAll('&lt;', '<')
      .replaceAll('&gt;', '>')
      .replaceAll('&quot;', '"')
      .replaceAll('&amp;', '&');
    const measured = JSON.parse(text) as Measured;
    const charts = measured.svgs.filter((s) => s.kind === 'lane-chart');
    assert.equal(charts.length, 3);
    for (const chart of charts) {
      assert.ok(chart.width > 500 && chart.height > 150, `${chart.label}: ${chart.width}×${chart.height}`);
      assert.ok(chart.bins > 20, `${chart.label}: ${chart.bins} visible bins`);
      assert.equal(chart.markers, 15, `${chart.label}: p50, p95, p99 on five milestones`);
      for (const label of ['headers', 'first_chunk', 'first_output', 'first_text', 'end', '50', '95', '99']) {
        assert.ok(chart.texts.includes(label), `${chart.label} shows ${label}`);
      }
      assert.ok(
        chart.texts.some((t) => /p50 [\d.]+ m?s\s+p95 [\d.]+ m?s\s+p99 [\d.]+ m?s/.test(t)),
        chart.label,
      );
    }
    const contrast = measured.svgs.find((s) => s.kind === 'contrast-chart');
    assert.ok(contrast && contrast.width > 500 && contrast.height > 60);
    assert.ok(contrast.texts.includes('steady') && contrast.texts.includes('spiky'));
    for (const heading of ['steady', 'spiky', 'x<script>alert(1)</script>']) {
      assert.ok(
        measured.headings.some((h) => h.startsWith(heading)),
        heading,
      );
    }
    assert.match(measured.table, /steady\s+openai-chat\s+healthy/);
    assert.match(measured.table, /spiky\s+openai-chat\s+degraded/);
  });

  it('takes a screenshot with the charts in it', async () => {
    const page = join(dir, 'lanewatch-report.html');
    await writeFile(page, htmlReport(reportFixture()));
    const png = join(dir, 'report.png');
    await chromium(binary, ['--hide-scrollbars', '--window-size=1100,1800', `--screenshot=${png}`], page);
    const bytes = await readFile(png);
    assert.deepEqual([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join(''), 'PNG');
    assert.equal(bytes.readUInt32BE(16), 1100, 'width');
    assert.ok((await stat(png)).size > 50_000, 'a page of charts, not a blank one');
  });
});
