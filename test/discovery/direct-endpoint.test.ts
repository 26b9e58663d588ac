import { describe, expect, it } from 'vitest';
import { directEndpoint } from '../../src/discovery/direct-endpoint.ts';

// Which URL direct mode dials for a node's etcd pod, from an annotation others can write.

const node = { name: 'cp-1', internalIP: '10.0.0.5' };
const addresses = ['10.0.0.5', '203.0.113.7', 'fd00::5'];
const pod = (url: string | null) => ({ name: 'etcd-cp-1', namespace: 'kube-system', advertiseClientUrl: url });
const PREFIX = 'not dialled: the advertise-client-urls annotation of pod kube-system/etcd-cp-1';

describe('directEndpoint', () => {
  it.each([
    ['https://10.0.0.5:2379', 'https://10.0.0.5:2379'],
    ['https://203.0.113.7:32379/', 'https://203.0.113.7:32379'],
    ['https://[fd00:0::5]:2379', 'https://[fd00::5]:2379'],
    ['HTTPS://10.0.0.5:2379', 'https://10.0.0.5:2379'],
  ])('dials %s (as %s): https on one of the node own addresses', (annotation, endpoint) => {
    expect(directEndpoint(node, addresses, pod(annotation), 2379)).toEqual({ endpoint, refused: null });
  });

  it.each([
    ['http://10.0.0.5:2379', 'http://10.0.0.5:2379', 'is http, not https (the client certificate is offered over TLS only)'],
    ['https://10.9.9.9:2379', 'https://10.9.9.9:2379', 'names host 10.9.9.9, which is not an address of node cp-1 (10.0.0.5, 203.0.113.7, fd00::5)'],
    ['https://etcd.example:2379', 'https://etcd.example:2379', 'names host etcd.example, which is not an address of node cp-1 (10.0.0.5, 203.0.113.7, fd00::5)'],
    ['https://127.0.0.1:2379', 'https://127.0.0.1:2379', 'names host 127.0.0.1, which is not an address of node cp-1 (10.0.0.5, 203.0.113.7, fd00::5)'],
    ['https://user:pw@10.0.0.5:2379', 'https://10.0.0.5:2379', 'carries credentials'],
    ['unix:///var/run/etcd.sock', 'unix://', 'is unix, not https (the client certificate is offered over TLS only)'],
    ['10.0.0.5:2379 <script>', 'annotation://kube-system/etcd-cp-1', 'is not a URL'],
  ])('refuses %s, shown as %s, and falls back to nothing', (annotation, endpoint, why) => {
    const result = directEndpoint(node, addresses, pod(annotation), 2379);
    expect(result).toEqual({ endpoint, refused: { code: 'ENDPOINT_REFUSED', layer: 'kube-api', message: `${PREFIX} ${why}` } });
    expect(result?.refused?.message).not.toContain('pw@');
    expect(result?.refused?.message).not.toContain('<script>');
  });

  it("dials the node's InternalIP on etcd's client port, over https, only when there is no annotation", () => {
    expect(directEndpoint(node, addresses, pod(null), 2379)).toEqual({ endpoint: 'https://10.0.0.5:2379', refused: null });
    expect(directEndpoint(node, addresses, null, 2379)).toEqual({ endpoint: 'https://10.0.0.5:2379', refused: null });
    expect(directEndpoint({ name: 'v6', internalIP: 'fd00::9' }, ['fd00::9'], null, 2379)).toEqual({ endpoint: 'https://[fd00::9]:2379', refused: null });
    expect(directEndpoint({ name: 'none', internalIP: null }, [], null, 2379)).toBeNull();
  });
});
