import { afterEach, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { ApiError } from '../../src/http/api-error.ts';
import { parseQuery, queryRules } from '../../src/http/strict-query.ts';
import { loadConfig } from '../../src/cli/load-config.ts';
import { createLogger } from '../../src/log/logger.ts';
import { LogSink } from '../helpers/log-sink.ts';
import { checkResponse, openapi, SINGLE_CLUSTER_PATHS } from '../helpers/openapi.ts';
import { scriptedSource } from '../helpers/scripted-source.ts';
import { round, three } from '../probe/observation-builders.ts';

// Strict queries (issue 12): a typo fails loudly instead of quietly getting the default.

const RULES = queryRules('/r', { policy: ['quorum', 'strict'], fresh: 'flag', since: 'text' });

function refusal(query: Record<string, unknown>): string {
  try {
    parseQuery(RULES, query);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'INVALID_PARAMETER') return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseQuery', () => {
  it('reads flags, words and text', () => {
    expect(parseQuery(RULES, {})).toEqual({});
    for (const [value, on] of [['', true], ['true', true], ['1', true], ['false', false], ['0', false]] as const) {
      expect(parseQuery(RULES, { fresh: value })).toEqual({ fresh: on });
    }
    expect(parseQuery(RULES, { policy: 'strict', since: '15m' })).toEqual({ policy: 'strict', since: '15m' });
  });

  it('refuses unknown, repeated and malformed parameters, naming the parameter and never echoing the value', () => {
    expect(refusal({ polcy: 'strict' })).toBe("unknown query parameter 'polcy': /r accepts policy, fresh, since");
    expect(refusal({ policy: ['strict', 'quorum'] })).toBe('policy: given 2 times; give it at most once');
    expect(refusal({ fresh: 'banana' })).toBe('fresh: must be true, false, 1 or 0, or no value (?fresh)');
    expect(refusal({ fresh: 'TRUE' })).toBe('fresh: must be true, false, 1 or 0, or no value (?fresh)');
    expect(refusal({ policy: '' })).toBe('policy: must be one of quorum, strict');
    expect(refusal({ policy: '<b>secret</b>' })).not.toContain('secret');
    // A name is input too: shown cut and with anything but [A-Za-z0-9_.-/] as `?`.
    expect(refusal({ '<img src=x>': '1' })).toBe("unknown query parameter '?img?src?x?': /r accepts policy, fresh, since");
    expect(refusal({ ['k'.repeat(100)]: '1' })).toBe(`unknown query parameter '${'k'.repeat(40)}…': /r accepts policy, fresh, since`);
    expect(refusal({ constructor: '1' })).toContain("unknown query parameter 'constructor'");
  });

  it('says when a route takes no parameters', () => {
    expect(() => parseQuery(queryRules('/livez', {}), { x: '1' })).toThrow("unknown query parameter 'x': /livez takes no query parameters");
  });
});

let app: App | undefined;

afterEach(async () => {
  await app?.server.close();
  app = undefined;
});

describe('every route', () => {
  it('refuses a parameter it does not document, naming the ones it does', async () => {
    const result = loadConfig({ env: {}, argv: [], now: new Date() });
    if (!result.ok) throw new Error('bad test config');
    app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('warn', new LogSink()), source: scriptedSource(round(three()).endpoints) });
    for (const [template, item] of Object.entries<any>(openapi.paths).filter(([t]) => SINGLE_CLUSTER_PATHS.includes(t))) {
      const url = template.replace('{idOrName}', 'm-a').replace('{member}', 'm-b');
      const documented = (item.get.parameters ?? [])
        .map((p: any) => (p.$ref ? openapi.components.parameters[p.$ref.split('/').at(-1)] : p))
        .filter((p: any) => p.in === 'query')
        .map((p: any) => p.name);
      const res = await app.server.inject(`${url}?zzz=1`);
      expect(res.statusCode, url).toBe(400);
      const accepts = documented.length === 0 ? `${template} takes no query parameters` : `${template} accepts ${documented.join(', ')}`;
      expect(res.json(), url).toEqual({ error: 'INVALID_PARAMETER', message: `unknown query parameter 'zzz': ${accepts}` });
      expect(checkResponse('GET', template, { status: 400, contentType: String(res.headers['content-type']), body: res.json(), headers: res.headers }), url).toEqual([]);
      for (const name of documented) {
        const repeated = await app.server.inject(`${url}?${name}=1&${name}=1`);
        expect(repeated.json().message, `${url} ${name}`).toBe(`${name}: given 2 times; give it at most once`);
      }
    }
  });

  it('takes the kube-style flags: ?verbose alone, and true/false/1/0', async () => {
    const result = loadConfig({ env: {}, argv: [], now: new Date() });
    if (!result.ok) throw new Error('bad test config');
    app = await buildApp({ config: result.config, tls: result.tls, logger: createLogger('warn', new LogSink()), source: scriptedSource(round(three()).endpoints) });
    for (const query of ['verbose', 'verbose=', 'verbose=true', 'verbose=1']) {
      expect((await app.server.inject(`/healthz/etcd?${query}`)).headers['content-type'], query).toBe('text/plain; charset=utf-8');
    }
    for (const query of ['verbose=false', 'verbose=0', 'fresh=0']) {
      expect((await app.server.inject(`/healthz/etcd?${query}`)).headers['content-type'], query).toBe('application/json; charset=utf-8');
    }
    expect((await app.server.inject('/healthz/etcd?verbose=yes')).statusCode).toBe(400);
  });
});
