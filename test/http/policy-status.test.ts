import { describe, expect, it } from 'vitest';
import { httpStatusFor } from '../../src/http/policy-status.ts';

describe('httpStatusFor: the two policies', () => {
  it.each([
    ['healthy', 'quorum', 200],
    ['healthy', 'strict', 200],
    ['degraded', 'quorum', 200],
    ['degraded', 'strict', 503],
    ['unhealthy', 'quorum', 503],
    ['unhealthy', 'strict', 503],
  ] as const)('%s under %s → %i', (status, policy, code) => {
    expect(httpStatusFor(status, policy)).toBe(code);
  });
});
