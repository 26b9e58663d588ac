import { readFileSync } from 'node:fs';
import { validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { startFlags } from '#lab/service/start-flags.ts';
import { baseImages, parseStages } from '../../scripts/image/dockerfile-stages.ts';
import { dockerfileProblems, dockerignoreProblems, type ImageExpectations } from './dockerfile-rules.ts';

// The Dockerfile is linted and held to issue 4's properties here; `npm run test:image` builds and runs it.
// Each rule is also shown failing on a broken copy of the file, so a rule that could never fire is caught.

const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const dockerignore = readFileSync(new URL('../../.dockerignore', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; license: string };
const expectations: ImageExpectations = { startFlags: startFlags(), version: pkg.version, license: pkg.license };

function mutate(from: string | RegExp, to: string): string {
  const changed = dockerfile.replace(from, to);
  if (changed === dockerfile) throw new Error(`mutation did not apply: ${String(from)}`);
  return changed;
}

describe('Dockerfile', () => {
  it('has no problems by dockerfile-utils', () => {
    expect(validate(dockerfile).map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('meets the image requirements', () => {
    expect(dockerfileProblems(dockerfile, expectations)).toEqual([]);
  });

  it('builds in a `build` stage and runs from a `runtime` stage, both on an official Node 24 image', () => {
    const stages = parseStages(dockerfile);
    expect(stages.map((s) => s.name)).toEqual(['build', 'runtime']);
    expect(stages.every((s) => !s.fromStage)).toBe(true);
    for (const image of baseImages(stages)) expect(image).toMatch(/^docker\.io\/library\/node:24[\w.]*-(bookworm|trixie)-slim$/);
  });

  it('dockerfile-utils reports a malformed instruction (the lint is not a no-op)', () => {
    expect(validate(mutate('EXPOSE 8080', 'EXPOSE eighty')).length).toBeGreaterThan(0);
    expect(validate(mutate('WORKDIR /app\n', 'WORKDIR /app\nFOO bar\n')).length).toBeGreaterThan(0);
  });

  const broken: [string, string, RegExp][] = [
    ['USER root', mutate('USER 65532:65532', 'USER root'), /USER root: use a numeric uid/],
    ['USER 0', mutate('USER 65532:65532', 'USER 0'), /USER 0: root/],
    ['a root group', mutate('USER 65532:65532', 'USER 65532:0'), /USER 65532:0: root/],
    ['no USER', mutate(/^USER .*\n/m, ''), /sets no USER/],
    ['EXPOSE 3000', mutate('EXPOSE 8080', 'EXPOSE 3000'), /does not EXPOSE 8080/],
    ['a shell-form ENTRYPOINT', mutate(/^ENTRYPOINT .*$/m, 'ENTRYPOINT node dist/main.js'), /shell form/],
    ['an ENTRYPOINT without the heap flags', mutate(/^ENTRYPOINT .*$/m, 'ENTRYPOINT ["node", "dist/main.js"]'), /npm start's flags/],
    ['a missing label', mutate(/^\s*org\.opencontainers\.image\.licenses=.*\n/m, ''), /missing LABEL org\.opencontainers\.image\.licenses/],
    ['a hard-coded version label', mutate('image.version="${VERSION}"', 'image.version="9.9.9"'), /ARG VERSION/],
    ['a stale ARG VERSION', mutate(/^ARG VERSION=.*$/m, 'ARG VERSION=0.0.0-stale'), /package\.json's version/],
    ['npm install', mutate('RUN npm ci ', 'RUN npm install '), /npm install; use npm ci/],
    ['npm i', mutate('RUN npm ci ', 'RUN npm i '), /npm install; use npm ci/],
    ['no pruning', mutate(' && npm prune --omit=dev --no-audit --no-fund', ''), /never pruned/],
    ['an ADD of a URL', mutate('WORKDIR /app\n', 'WORKDIR /app\nADD https://example.com/x.tgz /tmp/x.tgz\n'), /ADD of a URL/],
    ['a single stage', mutate(/^FROM [^\n]* AS build\n[\s\S]*?(?=^# --- runtime)/m, ''), /not multi-stage/],
    ['an unpinned base', mutate(/^FROM docker\.io\/library\/node:24-bookworm-slim AS runtime/m, 'FROM docker.io/library/node AS runtime'), /pin the base image/],
    ['a latest base', mutate(/^FROM docker\.io\/library\/node:24-bookworm-slim AS runtime/m, 'FROM docker.io/library/node:latest AS runtime'), /pin the base image/],
    ['a Node 22 base', mutate(/^FROM docker\.io\/library\/node:24-bookworm-slim AS build/m, 'FROM docker.io/library/node:22-bookworm AS build'), /not Node 24/],
    ['a full-size runtime base', mutate(/^FROM docker\.io\/library\/node:24-bookworm-slim AS runtime/m, 'FROM docker.io/library/node:24-bookworm AS runtime'), /not a slim or distroless/],
    ['the whole context copied', mutate('COPY openapi.yaml ./openapi.yaml', 'COPY . .'), /copies \. from the context/],
    ['the sources copied from build', mutate('COPY --from=build /app/dist ./dist', 'COPY --from=build /app/dist ./dist\nCOPY --from=build /app/src ./src'), /copies \/app\/src from build/],
    ['dist not copied', mutate(/^COPY --from=build \/app\/dist .*\n/m, ''), /does not copy \/app\/dist/],
    ['no NODE_ENV', mutate(/^ENV NODE_ENV=production\n/m, ''), /NODE_ENV=production/],
  ];
  it.each(broken)('catches %s', (_name, text, problem) => {
    const problems = dockerfileProblems(text, expectations);
    expect(problems.some((p) => problem.test(p)), problems.join('\n')).toBe(true);
  });
});

describe('.dockerignore', () => {
  it('keeps node_modules, .git, dist and test-results out of the build context', () => {
    expect(dockerignoreProblems(dockerignore)).toEqual([]);
  });

  it('catches a missing or re-included entry', () => {
    expect(dockerignoreProblems(dockerignore.replace(/^node_modules$/m, ''))).toContain('.dockerignore does not exclude node_modules');
    expect(dockerignoreProblems(dockerignore.replace(/^\.git$/m, ''))).toContain('.dockerignore does not exclude .git');
    expect(dockerignoreProblems(`${dockerignore}\n!.git/config\n`)).toContain('.dockerignore re-includes .git');
  });
});
