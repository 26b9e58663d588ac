import { afterEach, describe, expect, it } from 'vitest';
import { etcdVersion } from '#lab/etcd/binary.ts';

// The integration tests must fail clearly, not obscurely, when etcd is missing.

const saved = process.env.ETCD_BIN;
afterEach(() => {
  if (saved === undefined) delete process.env.ETCD_BIN;
  else process.env.ETCD_BIN = saved;
});

describe('the etcd cluster fixture', () => {
  it('says how to install etcd when the binary is missing', () => {
    process.env.ETCD_BIN = '/nonexistent/etcd';
    expect(() => etcdVersion()).toThrow(/cannot run '\/nonexistent\/etcd'.*etcd 3\.4 or later on PATH \(apt-get install etcd-server\)/);
  });
});
