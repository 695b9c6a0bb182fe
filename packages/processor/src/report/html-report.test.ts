import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exactDistribution } from '../evaluation/exact-distribution.ts';
import { htmlReport } from './html-report.ts';
import { commonEdges, niceAbove, niceBelow, sharesOf } from './report-data.ts';
import { reportFixture } from './report-fixture.test-helper.ts';
import { ticksOf } from './svg-charts.ts';

describe('HTML report', () => {
  it('is one self-contained document: no script, no link, no remote or file reference', () => {
    const html = htmlReport(reportFixture());
    assert.match(html, /^<!doctype html>/);
    assert.ok(!/<script|<link|<img|<iframe|@import|url\(/i.test(html));
    // The only URL in the page is the SVG namespace, which is a name, not a fetch.
    const urls = html.match(/https?:\/\/[^\s"'<>]+/g) ?? [];
    assert.deepEqual([...new Set(urls)], ['http://www.w3.org/2000/svg']);
    assert.ok(!/\b(src|href)=/i.test(html));
  });

  it('escapes lane names and reasons', () => {
    const html = htmlReport(reportFixture());
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.ok(html.includes('x&lt;script&gt;alert(1)&lt;/script&gt;'));
  });

  it('draws every lane and milestone with p50, p95, p99 and the mean', () => {
    const html = htmlReport(reportFixture());
    for (const lane of ['steady', 'spiky']) assert.ok(html.includes(`id="lane-${lane}"`), lane);
    assert.equal((html.match(/class="lane-chart"/g) ?? []).length, 3);
    assert.equal((html.match(/class="marker q-p95"/g) ?? []).length, 3 * 5);
    for (const label of ['>headers<', '>first_chunk<', '>first_output<', '>first_text<', '>end<']) {
      assert.ok(html.includes(label), label);
    }
  });

  it('bins shares on a 1-2-5 log axis that holds every sample', () => {
    assert.equal(niceBelow(0.137), 0.1);
    assert.equal(niceBelow(0.27), 0.2);
    assert.equal(niceAbove(0.27), 0.5);
    assert.equal(niceAbove(6), 10);
    const d = exactDistribution([0.15, 0.2, 0.3, 0.5, 4]);
    const edges = commonEdges([d], 20);
    assert.equal(edges[0], 0.1);
    assert.ok(Math.abs((edges.at(-1) as number) - 5) < 1e-9);
    const shares = sharesOf(d, edges);
    assert.ok(Math.abs(shares.reduce((s, x) => s + x, 0) - 1) < 1e-9);
    assert.deepEqual(ticksOf(edges), [0.1, 0.2, 0.5, 1, 2, 5]);
  });
});
