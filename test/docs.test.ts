import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT } from '../src/cli/command.js';
import { runInProcess } from './helpers/cli.js';

/**
 * The documentation as a reader follows it: the README stays short, and every relative link
 * of the README, the contributor guide, docs/ and the benchmark's notes leads to a file that
 * exists and, with an `#anchor`, to a heading of that file as GitHub names it.
 */
const root = fileURLToPath(new URL('..', import.meta.url));

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(root, 'bench'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `bench/${name}`),
];

/** The lines of a Markdown text outside fenced code blocks, each with its line number. */
function proseLines(text: string): Array<{ line: string; number: number }> {
  const lines: Array<{ line: string; number: number }> = [];
  let fence: string | undefined;
  text.split('\n').forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === undefined || marker.startsWith(fence)))
      fence = fence === undefined ? marker : undefined;
    else if (fence === undefined) lines.push({ line, number: index + 1 });
  });
  return lines;
}

/**
 * A heading's anchor as GitHub makes it: the text without its markup, lower case, punctuation dropped, spaces as
 * hyphens.
 */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .replace(/\*+/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings; a repeated one gets -1, -2, … as on GitHub. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative links of a Markdown text (code spans and blocks left out), each with its line. */
function relativeLinks(text: string): Array<{ target: string; number: number }> {
  return proseLines(text).flatMap(({ line, number }) =>
    [
      ...line
        .replace(/(`+)[^`]*?\1/g, 'code')
        .matchAll(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g),
    ]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//'))
      .map((target) => ({ target, number })),
  );
}

/** Why a link of `page` leads nowhere, or undefined when it leads to its file and heading. */
function brokenBecause(page: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2) as [string, string | undefined];
  const file = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
  if (!existsSync(file)) return `${relative(root, file)} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md'))
    return `#${anchor} points into ${relative(root, file)}, which has no headings`;
  const anchors = anchorsOf(readFileSync(file, 'utf8'));
  return anchors.has(decodeURIComponent(anchor)) ? undefined : `${relative(root, file)} has no heading #${anchor}`;
}

describe('the documentation', () => {
  it('has a README a new user reads in ten minutes: under 300 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThan(300);
  });

  it('has every relative link of the README, CONTRIBUTING.md, docs/ and bench/ lead to a file and its heading', () => {
    const broken = pages.flatMap((page) =>
      relativeLinks(readFileSync(join(root, page), 'utf8')).flatMap(({ target, number }) => {
        const why = brokenBecause(page, target);
        return why === undefined ? [] : [`${page}:${number}: (${target}): ${why}`];
      }),
    );
    expect(broken).toEqual([]);
    expect(pages).toContain('docs/commands.md');
  });

  it("has docs/file.md name every field of the desired-state file's schema", () => {
    const fields = new Set<string>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (typeof node === 'object' && node !== null) {
        const { properties } = node as { properties?: Record<string, unknown> };
        if (properties !== undefined) Object.keys(properties).forEach((name) => fields.add(name));
        Object.values(node).forEach(collect);
      }
    };
    collect(JSON.parse(readFileSync(join(root, 'schemas/audiences.schema.json'), 'utf8')));
    const reference = readFileSync(join(root, 'docs/file.md'), 'utf8');
    expect(fields.size).toBeGreaterThan(50);
    expect(
      [...fields].filter((field) => !reference.includes(`\`${field}\``) && !reference.includes(`${field}:`)),
    ).toEqual([]);
  });

  it('has docs/commands.md name every option of every command, and docs/ every variable the commands read', async () => {
    const options = new Set<string>();
    for (const command of ['validate', 'plan', 'show', 'apply', 'import', 'company', 'emulator']) {
      const help = await runInProcess([command, '--help'], { cwd: root, env: {} });
      for (const match of help.stdout.matchAll(/^ {2}(?:-\w, | {4})(--[\w-]+)/gm)) options.add(match[1]!);
    }
    const commands = readFileSync(join(root, 'docs/commands.md'), 'utf8');
    const docs = readdirSync(join(root, 'docs')).map((name) => readFileSync(join(root, 'docs', name), 'utf8'));
    expect(options.size).toBeGreaterThan(30);
    expect(
      [...options].filter(
        (option) => !commands.includes(`${option}`) && !commands.includes(option.replace(/^--/, '--no-')),
      ),
    ).toEqual([]);
    expect(
      Object.keys(ENVIRONMENT).filter((variable) => !docs.some((text) => text.includes(`\`${variable}\``))),
    ).toEqual([]);
  });

  it('names anchors as GitHub does', () => {
    expect(githubSlug('Drift labels (--base)')).toBe('drift-labels---base');
    expect(githubSlug('massDelete: the mass-delete guard')).toBe('massdelete-the-mass-delete-guard');
    expect(githubSlug('Test-only routes (§12)')).toBe('test-only-routes-12');
    expect(githubSlug('`plan` and [the comment](x.md)')).toBe('plan-and-the-comment');
    expect(githubSlug('The état of ids_long')).toBe('the-état-of-ids_long');
    expect([...anchorsOf('# A\n## A\n```\n# B\n```\n## A\n')]).toEqual(['a', 'a-1', 'a-2']);
  });
});
