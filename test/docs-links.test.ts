// Every relative link in the repository's Markdown leads somewhere: the file exists, and a `#anchor`
// names a heading of that file, by the rule GitHub uses to make a heading's anchor. A reader who
// follows a link from a README to a measurement or a setting lands on it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The lines of a Markdown text outside fenced code, each with its 1-based number. */
function* proseLines(markdown: string): Generator<[number, string]> {
  let fenced = false;
  for (const [i, line] of markdown.split('\n').entries()) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced) yield [i + 1, line];
  }
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, line] of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const text = (heading[1] as string)
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text stays, its target goes
      .replace(/<[^>]+>/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The `[text](target)` links of a Markdown text outside code, with their line numbers. */
function relativeLinks(markdown: string): Array<{ target: string; line: number }> {
  const links: Array<{ target: string; line: number }> = [];
  for (const [number, line] of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, '``');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] as string;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:, file:
      links.push({ target, line: number });
    }
  }
  return links;
}

const markdownFiles = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file !== '' && existsSync(join(root, file)));

describe('the Markdown links of the repository', () => {
  test('the anchor rule is GitHub’s', () => {
    const anchors = headingAnchors(
      [
        '# What it costs',
        "## Against the project's ≤ 1.10× target",
        '## How `npm run bench` measures',
        '## Node 22',
        '## Node 22',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    assert.deepEqual(
      [...anchors],
      [
        'what-it-costs',
        'against-the-projects--110-target',
        'how-npm-run-bench-measures',
        'node-22',
        'node-22-1',
      ],
    );
    assert.deepEqual(
      relativeLinks('see [a](b.md#c), `[not](a-link)`, [web](https://x.test/y) and [d](#e "title")').map(
        (link) => link.target,
      ),
      ['b.md#c', '#e'],
    );
  });

  test('are Markdown files the repository tracks', () => {
    assert.ok(markdownFiles.includes('README.md'), 'git ls-files found the root README');
    assert.ok(markdownFiles.length >= 6, `only ${markdownFiles.length} Markdown files found`);
  });

  for (const file of markdownFiles) {
    test(`${file}: every relative link leads to a file, and every anchor to a heading`, () => {
      const markdown = readFileSync(join(root, file), 'utf8');
      const broken: string[] = [];
      for (const { target, line } of relativeLinks(markdown)) {
        const [path = '', anchor] = decodeURI(target).split('#', 2);
        const resolved = path === '' ? join(root, file) : join(dirname(join(root, file)), path);
        if (!existsSync(resolved)) {
          broken.push(`line ${line}: ${target} — no ${relative(root, resolved)}`);
          continue;
        }
        if (anchor === undefined || anchor === '' || !resolved.endsWith('.md')) continue;
        if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)) {
          broken.push(`line ${line}: ${target} — no heading with that anchor in ${relative(root, resolved)}`);
        }
      }
      assert.deepEqual(broken, [], `${file} has links that lead nowhere`);
    });
  }
});
