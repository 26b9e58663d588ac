import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// openapi.yaml read by two maintained tools of the OpenAPI ecosystem, from scripts/openapi-tools (a package
// of its own, installed by scripts/setup/bootstrap.sh): Redocly CLI's linter, with the rule set in
// scripts/openapi-tools/redocly.yaml, and openapi-typescript, whose output the generated-client test
// (test/integration/api-client.test.ts) compiles against. Each is also shown a broken copy, so that a
// green run means the tool read the file, not that it was never asked.

const root = fileURLToPath(new URL('../../', import.meta.url));
const tools = join(root, 'scripts/openapi-tools/node_modules/.bin');
const spec = readFileSync(join(root, 'openapi.yaml'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'etcd-probe-openapi-lint-'));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Ran {
  readonly code: number;
  readonly output: string;
}

function run(tool: string, args: string[]): Promise<Ran> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1', NODE_DISABLE_COMPILE_CACHE: '1' };
  return new Promise((resolve) => {
    execFile(join(tools, tool), args, { cwd: root, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const lint = (file: string) => run('redocly', ['lint', '--config', 'scripts/openapi-tools/redocly.yaml', '--format=stylish', file]);

/** A copy of openapi.yaml with `from` replaced by `to` (exactly once), in the scratch folder. */
function variant(name: string, from: string, to: string): string {
  expect(spec.split(from).length, `openapi.yaml has ${JSON.stringify(from)} once`).toBe(2);
  const file = join(scratch, name);
  writeFileSync(file, spec.replace(from, to));
  return file;
}

describe('openapi.yaml under Redocly CLI lint', () => {
  it('passes the rule set', async () => {
    const result = await lint('openapi.yaml');
    expect(result.output).toContain('Your API description is valid');
    expect(result.code).toBe(0);
  });

  it('fails on an operation without an ID, an undocumented error answer, or a mistyped property', async () => {
    const noId = await lint(variant('no-id.yaml', '      operationId: listAlarms\n', ''));
    expect([noId.code, noId.output]).toEqual([1, expect.stringContaining('operation-operationId')]);
    const no4xx = await lint(variant('no-4xx.yaml', "        '400':\n          $ref: '#/components/responses/BadRequest'\n        '401':\n          $ref: '#/components/responses/Unauthorized'\n        '500':\n          $ref: '#/components/responses/Internal'\n  /readyz:", "        '500':\n          $ref: '#/components/responses/Internal'\n  /readyz:"));
    expect([no4xx.code, no4xx.output]).toEqual([1, expect.stringContaining('operation-4xx-response')]);
    // An unquoted comma in a flow mapping makes the rest of a description a property of its own (four such
    // descriptions were cut short until this linter read the file).
    const cut = await lint(variant('cut.yaml', "description: 'Members in the membership, learners included.' }", 'description: Members in the membership, learners included. }'));
    expect([cut.code, cut.output]).toEqual([1, expect.stringContaining('struct')]);
  });
});

describe('the generated client types (test/api-client/openapi-types.ts)', () => {
  it('are what openapi-typescript generates from openapi.yaml now (npm run docs:api-types)', async () => {
    const result = await run('openapi-typescript', ['openapi.yaml', '-o', 'test/api-client/openapi-types.ts', '--check']);
    expect([result.code, result.output]).toEqual([0, expect.any(String)]);
  });

  it('go out of date when a response field is removed from the description', async () => {
    const file = variant('no-field.yaml', '        durationMs: { type: number, minimum: 0, description: How long the round took. }\n', '');
    const result = await run('openapi-typescript', [file, '-o', 'test/api-client/openapi-types.ts', '--check']);
    expect(result.code).not.toBe(0);
  });
});
