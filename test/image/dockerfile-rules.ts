import { Add, Arg, PropertyInstruction, type Instruction } from 'dockerfile-ast';
import { copySourceStage, execForm, instructionsOf, parseStages, type Stage } from '../../scripts/image/dockerfile-stages.ts';

// What the image must be (issue 4), as checks over the parsed Dockerfile. Each returns the problems it
// finds, so the test can show both that the real file has none and that a bad file is caught.

/** What the Dockerfile is held to, from package.json. */
export interface ImageExpectations {
  /** `npm start`'s node flags: the entrypoint must run the service the same way. */
  readonly startFlags: readonly string[];
  readonly version: string;
  readonly license: string;
}

/** The OCI labels every image must carry. */
export const REQUIRED_LABELS = ['title', 'description', 'source', 'licenses', 'version'].map((k) => `org.opencontainers.image.${k}`);

/** What the runtime stage may copy from the build stage, and from the build context. */
const RUNTIME_FROM_BUILD = ['/app/dist', '/app/node_modules', '/app/package.json'];
const RUNTIME_FROM_CONTEXT = ['openapi.yaml'];

function line(i: Instruction): string {
  return `line ${i.getRange().start.line + 1}`;
}

function words(i: Instruction): string[] {
  return i.getArguments().map((a) => a.getValue());
}

function properties(stage: Stage, keyword: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const i of instructionsOf(stage, keyword)) {
    if (i instanceof PropertyInstruction) for (const p of i.getProperties()) map.set(p.getName(), p.getValue() ?? '');
  }
  return map;
}

function stageProblems(stages: readonly Stage[]): string[] {
  const problems: string[] = [];
  if (stages.length < 2) problems.push('not multi-stage: build with dev dependencies in one stage, run from another');
  for (const s of stages.filter((st) => !st.fromStage)) {
    const tag = /^[^@]+:([^:/@]+)$/.exec(s.base)?.[1];
    if (!tag || tag === 'latest') problems.push(`FROM ${s.base}: pin the base image by a tag (not latest)`);
    else if (!/^24(\.|-|$)/.test(tag) && !/nodejs24/.test(s.base)) problems.push(`FROM ${s.base}: not Node 24`);
  }
  const runtime = stages.at(-1)!;
  if (!runtime.fromStage && !/slim|distroless/.test(runtime.base)) problems.push(`runtime FROM ${runtime.base}: not a slim or distroless base`);
  return problems;
}

function npmProblems(stages: readonly Stage[]): string[] {
  const problems: string[] = [];
  const runs = stages.flatMap((s) => instructionsOf(s, 'RUN'));
  for (const run of runs) {
    const text = run.getArgumentsContent() ?? '';
    if (/\bnpm\s+(install|i|add)\b/.test(text)) problems.push(`${line(run)}: npm install; use npm ci (the lockfile decides)`);
  }
  const all = runs.map((r) => r.getArgumentsContent() ?? '').join('\n');
  if (!/\bnpm\s+ci\b/.test(all)) problems.push('no `npm ci` in any stage');
  if (!/\bnpm\s+(prune|ci)\b[^\n&|;]*--omit=dev/.test(all)) problems.push('dev dependencies never pruned (npm prune --omit=dev or npm ci --omit=dev)');
  for (const add of stages.flatMap((s) => s.instructions.filter((i): i is Add => i instanceof Add))) {
    if (words(add).slice(0, -1).some((w) => /^(https?|git|ssh):|^git@/.test(w))) problems.push(`${line(add)}: ADD of a URL; fetch nothing unpinned at build time`);
  }
  return problems;
}

function runtimeProblems(runtime: Stage, stages: readonly Stage[], expect: ImageExpectations): string[] {
  const problems: string[] = [];
  const users = instructionsOf(runtime, 'USER');
  const user = users.at(-1) ? words(users.at(-1)!).join(' ') : null;
  const ids = user ? /^(\d+)(?::(\d+))?$/.exec(user) : null;
  if (!user) problems.push('runtime stage sets no USER (it would run as root)');
  else if (!ids) problems.push(`USER ${user}: use a numeric uid[:gid] so runAsNonRoot can be checked`);
  else if (ids[1] === '0' || ids[2] === '0') problems.push(`USER ${user}: root`);

  const exposed = instructionsOf(runtime, 'EXPOSE').flatMap(words);
  if (!exposed.some((p) => p === '8080' || p === '8080/tcp')) problems.push('runtime stage does not EXPOSE 8080');

  const entrypoints = instructionsOf(runtime, 'ENTRYPOINT');
  const entry = entrypoints.at(-1);
  const argv = entry ? execForm(entry) : null;
  const wanted = ['node', ...expect.startFlags, 'dist/main.js'];
  if (!entry) problems.push('runtime stage has no ENTRYPOINT');
  else if (!argv) problems.push(`${line(entry)}: ENTRYPOINT in shell form; use exec form so node is PID 1 and gets SIGTERM`);
  else if (argv.join(' ') !== wanted.join(' ')) problems.push(`ENTRYPOINT ${JSON.stringify(argv)}: should be ${JSON.stringify(wanted)} (npm start's flags)`);
  for (const cmd of instructionsOf(runtime, 'CMD')) if (!execForm(cmd)) problems.push(`${line(cmd)}: CMD in shell form`);

  if (properties(runtime, 'ENV').get('NODE_ENV') !== 'production') problems.push('runtime stage does not set ENV NODE_ENV=production');

  const labels = properties(runtime, 'LABEL');
  for (const key of REQUIRED_LABELS) if (!labels.has(key)) problems.push(`missing LABEL ${key}`);
  if (labels.has('org.opencontainers.image.licenses') && labels.get('org.opencontainers.image.licenses') !== expect.license) problems.push(`LABEL licenses is not package.json's ${expect.license}`);
  const version = labels.get('org.opencontainers.image.version');
  const versionArg = runtime.instructions.find((i): i is Arg => i instanceof Arg && i.getProperty()?.getName() === 'VERSION');
  if (version !== undefined && version !== '${VERSION}' && version !== '$VERSION') problems.push('LABEL version must come from ARG VERSION');
  if (!versionArg || versionArg.getProperty()?.getValue() !== expect.version) problems.push(`ARG VERSION's default is not package.json's version ${expect.version}`);

  problems.push(...runtimeCopyProblems(runtime, stages));
  return problems;
}

function runtimeCopyProblems(runtime: Stage, stages: readonly Stage[]): string[] {
  const problems: string[] = [];
  const buildNames = new Set(stages.slice(0, -1).map((s) => s.name?.toLowerCase()).filter(Boolean));
  const copied = new Set<string>();
  if (instructionsOf(runtime, 'ADD').length > 0) problems.push('runtime stage uses ADD; COPY only what it needs');
  for (const copy of instructionsOf(runtime, 'COPY')) {
    const from = copySourceStage(copy);
    const sources = words(copy)
      .filter((w) => !w.startsWith('--'))
      .slice(0, -1)
      .map((s) => s.replace(/\/$/, ''));
    for (const source of sources) {
      if (from !== null && buildNames.has(from.toLowerCase()) && RUNTIME_FROM_BUILD.includes(source)) copied.add(source);
      else if (from === null && RUNTIME_FROM_CONTEXT.includes(source.replace(/^\.\//, ''))) continue;
      else problems.push(`${line(copy)}: runtime stage copies ${source}${from ? ` from ${from}` : ' from the context'}; only dist, production node_modules, package.json and openapi.yaml belong there`);
    }
  }
  for (const needed of RUNTIME_FROM_BUILD) if (!copied.has(needed)) problems.push(`runtime stage does not copy ${needed} from the build stage`);
  return problems;
}

/** Every way the Dockerfile falls short of the image issue 4 asks for; empty when it meets it. */
export function dockerfileProblems(text: string, expect: ImageExpectations): string[] {
  let stages: Stage[];
  try {
    stages = parseStages(text);
  } catch (error) {
    return [(error as Error).message];
  }
  const runtime = stages.at(-1)!;
  return [...stageProblems(stages), ...npmProblems(stages), ...runtimeProblems(runtime, stages, expect)];
}

/** Paths the build context must never carry. */
export const MUST_IGNORE = ['node_modules', '.git', 'dist', 'test-results'];

/** What .dockerignore fails to keep out of the build context; empty when it keeps out all of MUST_IGNORE. */
export function dockerignoreProblems(text: string): string[] {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.replace(/^\/+|\/+$/g, ''));
  const problems: string[] = [];
  for (const path of MUST_IGNORE) {
    const excluded = patterns.some((p) => p === path || p === `**/${path}` || p === '*' || p === '**');
    const reincluded = patterns.some((p) => p.startsWith('!') && (p.slice(1) === path || p.slice(1).startsWith(`${path}/`)));
    if (!excluded) problems.push(`.dockerignore does not exclude ${path}`);
    else if (reincluded) problems.push(`.dockerignore re-includes ${path}`);
  }
  return problems;
}
