import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// README.md is the front door and every topic lives in a page under docs/ (README, "Documentation"). Many hands
// edit these pages, so a renamed heading or a moved page must not leave a link pointing at nothing.

const ROOT = path.resolve(import.meta.dirname, '../..');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of outsideFences(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '').toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

function outsideFences(markdown: string): string[] {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push(line);
  }
  return lines;
}

/** Relative links (and images) of a Markdown file that name a missing file or a missing heading. */
function brokenLinks(file: string, markdown: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const line of outsideFences(markdown)) {
    for (const m of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [pathPart = '', anchor] = target.split('#', 2);
      const resolved = pathPart === '' ? file : path.join(path.dirname(file), decodeURIComponent(pathPart));
      const text = read(resolved);
      if (text === undefined) {
        broken.push(`${target}: no file ${path.relative(ROOT, resolved)}`);
      } else if (anchor !== undefined && resolved.endsWith('.md') && !headingAnchors(text).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${path.relative(ROOT, resolved)}`);
      }
    }
  }
  return broken;
}

function readRepoFile(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  return file.endsWith('.md') ? readFileSync(file, 'utf8') : '';
}

/** TypeScript and JavaScript files under `dirs`, generated API types and dependencies left out. */
function sourceFiles(dirs: string[]): string[] {
  return dirs.flatMap((dir) => readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|js)$/.test(e.name) && e.name !== 'schema.d.ts' && !e.parentPath.includes('node_modules'))
    .map((e) => path.join(e.parentPath, e.name)));
}

const pages = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f)),
];

describe('documentation links', () => {
  it('every relative link in README.md and docs/*.md reaches an existing file and heading', () => {
    const broken = pages.flatMap((file) =>
      brokenLinks(file, readFileSync(file, 'utf8'), readRepoFile).map((b) => `${path.relative(ROOT, file)}: ${b}`));
    assert.deepEqual(broken, []);
  });

  it('every page under docs/ is one click from README.md', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const unlinked = pages.slice(1).map((f) => path.relative(ROOT, f)).filter((rel) => !readme.includes(`](${rel}`));
    assert.deepEqual(unlinked, []);
  });

  it('every docs page a comment or API description cites (docs/x.md, docs/x.md#anchor, docs/x.md, "Heading") exists, with that heading', () => {
    const cited = sourceFiles(['src', 'web/src', 'bench', 'bin', 'test']).filter((f) => f !== import.meta.filename).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/docs\/([a-z0-9_-]+\.md)(?:#([a-z0-9-]+)|, "([^"]+)")?/g)].map((m) => ({ file, page: m[1] ?? '', anchor: m[2], heading: m[3] })));
    assert.ok(cited.length > 10, 'the source cites its docs');
    const broken = cited.flatMap(({ file, page, anchor, heading }) => {
      const where = `${path.relative(ROOT, file)}: docs/${page}`;
      const text = readRepoFile(path.join(ROOT, 'docs', page));
      if (text === undefined) return [`${where}: no such page`];
      if (anchor !== undefined && !headingAnchors(text).has(anchor)) return [`${where}#${anchor}: no such heading`];
      if (heading !== undefined && !headingAnchors(text).has(headingAnchors(`# ${heading}`).values().next().value as string)) return [`${where}, "${heading}": no such heading`];
      return [];
    });
    assert.deepEqual([...new Set(broken)], []);
  });

  it('reports a missing page, a missing heading, and numbers repeated headings as GitHub does', () => {
    const files: Record<string, string> = {
      [path.join(ROOT, 'docs/a.md')]: '# Scaling out: PostgreSQL + Redis\n## Notes\n## Notes\n```\n# not a heading\n```\n',
    };
    const read = (f: string) => files[f];
    const page = path.join(ROOT, 'docs/b.md');
    assert.deepEqual(brokenLinks(page, [
      '[ok](a.md#scaling-out-postgresql--redis) [ok](a.md#notes-1) [web](https://example.com/x.md#y)',
      '[gone](c.md) [no](a.md#not-a-heading) `[code](nowhere.md)`',
    ].join('\n'), read), [
      'c.md: no file docs/c.md',
      'a.md#not-a-heading: no heading #not-a-heading in docs/a.md',
    ]);
  });
});
