import { describe, expect, it } from 'vitest';
import { PROBE_ERROR_CODES } from '../src/probe/outcome.ts';
import { REASONS } from '../src/probe/reason-catalogue.ts';
import { openapi } from './helpers/openapi.ts';

// openapi.yaml lists the codes a client can meet; it must list exactly the codes the service can give.

describe('openapi.yaml names every code the service gives', () => {
  it('reason codes are the catalogue', () => {
    expect([...openapi.components.schemas.Reason.properties.code.enum].sort()).toEqual(Object.keys(REASONS).sort());
  });

  it('member error codes are the probe error codes', () => {
    expect([...openapi.components.schemas.ProbeError.properties.code.enum].sort()).toEqual([...PROBE_ERROR_CODES].sort());
  });
});
