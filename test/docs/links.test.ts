import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link in README.md and docs/*.md resolves: to a file of the repository, and, with a
// #fragment, to a heading of that file (GitHub's anchor rules). External links are not fetched (the
// machines here have no internet), but they are listed so that a reader sees which there are.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// docs/ and its folders (docs/benchmarks/): a page moved into a folder keeps its links checked.
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).sort().map((f) => join('docs', f))];

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] as string)));
}

function links(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string);
}

describe('documentation links', () => {
  it('computes anchors as GitHub does', () => {
    expect(anchorOf('Kubernetes and Cluster API modes')).toBe('kubernetes-and-cluster-api-modes');
    expect(anchorOf('CLI: etcd-probe check')).toBe('cli-etcd-probe-check');
    expect(anchorOf('How quorum is judged')).toBe('how-quorum-is-judged');
  });

  it.each(PAGES)('%s: every relative link resolves to a file and heading', (page) => {
    const broken: string[] = [];
    for (const link of links(join(ROOT, page))) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path = '', fragment] = link.split('#');
      const target = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${relative(ROOT, target)}`);
        continue;
      }
      if (fragment && target.endsWith('.md') && !anchors(target).has(fragment)) broken.push(`${link}: no heading #${fragment} in ${relative(ROOT, target)}`);
    }
    expect(broken).toEqual([]);
  });

  it('README.md fits on a few screens (at most 250 lines)', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });
});
