import { describe, expect, it } from 'vitest';
import { expandReferences, podEnv } from './pod-env.ts';

// The chart's fleet tests trust this stand-in for the kubelet: it must expand as the kubelet does.

describe('podEnv, as the kubelet builds a container environment', () => {
  it('expands $(NAME) of an entry above, and leaves a name not defined yet as written', () => {
    expect(
      podEnv(
        [
          { name: 'LATER', value: '$(INDEX)' },
          { name: 'INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.labels['apps.kubernetes.io/pod-index']" } } },
          { name: 'SHARD', value: '$(INDEX)/3' },
        ],
        { 'apps.kubernetes.io/pod-index': '2' },
      ),
    ).toEqual({ LATER: '$(INDEX)', INDEX: '2', SHARD: '2/3' });
  });

  it('gives a missing label as the empty string', () => {
    expect(podEnv([{ name: 'INDEX', valueFrom: { fieldRef: { fieldPath: "metadata.labels['absent']" } } }], {})).toEqual({ INDEX: '' });
  });

  it('reads $$ as a literal $, so $$(NAME) stays a reference in the text', () => {
    expect(expandReferences('$$(A) $(A) $A $(', new Map([['A', 'x']]))).toBe('$(A) x $A $(');
  });

  it('refuses a source it does not model rather than guess', () => {
    expect(() => podEnv([{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }], {})).toThrow('N: valueFrom');
  });
});
