import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import {
  githubSlug,
  headingAnchors,
  isExternal,
  markdownLinks,
} from '../../support/checks/markdown-links.ts';
import { projectFiles } from '../../support/checks/project-files.ts';

const files = projectFiles().filter((file) => !file.split('/').includes('node_modules'));

/** The pages a reader opens: the README, every page under docs/ and every folder's README. */
const markdownPages = files.filter(
  (file) => file.endsWith('.md') && (file.startsWith('docs/') || basename(file) === 'README.md'),
);

/** Code and configuration that name pages in their comments, and the pages' own code spans. */
const mentioningFiles = files.filter((file) => /\.(?:ts|mjs|yml|yaml|md)$/.test(file));

/** The alerting rules, for Prometheus and as the Kubernetes PrometheusRule. */
const rulesFiles = files.filter(
  (file) =>
    file === 'deploy/prometheus/plant-store.rules.yml' ||
    (file.startsWith('deploy/k8s/') && read(file).includes('kind: PrometheusRule')),
);

function read(file: string): string {
  return readFileSync(join(projectRoot, file), 'utf8');
}

const anchorsByFile = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorsByFile.get(file);
  if (anchors === undefined) {
    anchors = headingAnchors(read(file));
    anchorsByFile.set(file, anchors);
  }
  return anchors;
}

/** Why `target` (a path from the project's root, with an optional `#anchor`) does not resolve. */
function brokenBecause(target: string): string | undefined {
  const [path = '', anchor] = target.split('#', 2);
  if (path === '' || path.startsWith('..') || !existsSync(join(projectRoot, path))) {
    return 'no such file';
  }
  if (anchor === undefined || anchor === '' || statSync(join(projectRoot, path)).isDirectory()) {
    return undefined;
  }
  if (!path.endsWith('.md')) return undefined;
  return anchorsOf(path).has(decodeURIComponent(anchor)) ? undefined : 'no such heading';
}

/** `file:line: target (reason)` for every relative link of a Markdown page that does not resolve. */
function brokenLinks(page: string): string[] {
  return markdownLinks(read(page)).flatMap(({ line, target }) => {
    if (isExternal(target)) return [];
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path === '' ? page : normalize(join(dirname(page), decodeURIComponent(path)));
    const why = brokenBecause(anchor === undefined ? resolved : `${resolved}#${anchor}`);
    return why === undefined ? [] : [`${page}:${String(line)}: ${target} (${why})`];
  });
}

/** `file:line: path (reason)` for every `docs/….md` a file names that does not resolve. */
function brokenMentions(file: string): string[] {
  return read(file)
    .split('\n')
    .flatMap((text, index) =>
      [...text.matchAll(/(?<![\w/.-])docs\/[\w./-]*?\.md(?:#[\w-]+)?/g)].flatMap(([mention]) => {
        const why = brokenBecause(mention);
        return why === undefined ? [] : [`${file}:${String(index + 1)}: ${mention} (${why})`];
      }),
    );
}

describe('Links in the documentation', () => {
  it("When a heading has punctuation, code or a text used before, then its anchor is GitHub's", () => {
    expect(githubSlug('Against NestJS, repeated (`--repeat 3`)')).toBe(
      'against-nestjs-repeated---repeat-3',
    );
    expect(githubSlug('Capacity at p99 ≤ 50 ms, open loop (2026-11-27, early morning)')).toBe(
      'capacity-at-p99--50-ms-open-loop-2026-11-27-early-morning',
    );
    expect(githubSlug('PlantStoreNoWriterReady and the [writer](x.md) `KAFKA_BROKERS`')).toBe(
      'plantstorenowriterready-and-the-writer-kafka_brokers',
    );
    expect([
      ...headingAnchors('# Targets\n## Targets\n```sh\n# not a heading\n```\n### Targets\n'),
    ]).toEqual(['targets', 'targets-1', 'targets-2']);
  });

  it('When a link sits in code, then it is not taken for a link; when it has a title, then its target is read alone', () => {
    const page = '[a](one.md "title")\n`[b](two.md)`\n```\n[c](three.md)\n```\n[d]: four.md\n';

    expect(markdownLinks(page).map(({ target }) => target)).toEqual(['one.md', 'four.md']);
  });

  it.each(markdownPages)(
    'When %s links to a file of the project, then the file exists and its anchor names a heading of it',
    (page) => {
      expect(brokenLinks(page)).toEqual([]);
    },
  );

  it('When an alert names its runbook, then the runbook_url is a page of the project with that heading', () => {
    const runbooks = rulesFiles.flatMap((file) =>
      [...read(file).matchAll(/runbook_url:\s*['"]?([^\s'"]+)/g)].map(([, url = '']) => ({
        file,
        url,
      })),
    );

    expect(rulesFiles).toHaveLength(2);
    expect(runbooks.length).toBeGreaterThan(0);
    expect(
      runbooks.flatMap(({ file, url }) => {
        const why = brokenBecause(url);
        return why === undefined ? [] : [`${file}: ${url} (${why})`];
      }),
    ).toEqual([]);
  });

  it('When code, configuration or a page names a page under docs/, then that page exists, with the heading its anchor names', () => {
    expect(mentioningFiles.flatMap(brokenMentions)).toEqual([]);
  });
});
