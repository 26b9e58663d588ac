import { describe, expect, it } from 'vitest';
import { DENIED_CODE } from '../../src/kube/dial-guard.ts';
import { connectError, droppedError, kubeletError, refusalError } from '../../src/kube/port-forward-errors.ts';

const target = { server: 'https://10.0.0.1:6443', namespace: 'kube-system', pod: 'etcd-m1', node: 'm1', port: 2379 };
const status = (message: string, code: number) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message, code });

describe('refusalError', () => {
  it('names the missing right at layer kube-api when the API server refuses (401, 403)', () => {
    expect(refusalError(target, 403, status('pods "etcd-m1" is forbidden', 403))).toMatchObject({
      code: 'PORT_FORWARD_FAILED',
      layer: 'kube-api',
      message: 'the API server refused the port-forward to kube-system/etcd-m1 (HTTP 403: pods "etcd-m1" is forbidden); the credentials need "create" on pods/portforward in kube-system',
    });
  });

  it('points at the kubelet when the API server cannot open the forward', () => {
    const error = refusalError(target, 500, status('error dialing backend: dial tcp 10.0.0.7:10250: i/o timeout', 500));
    expect(error.code).toBe('PORT_FORWARD_FAILED');
    expect(error.layer).not.toBe('kube-api');
    expect(error.message).toBe("the API server could not open the port-forward to kube-system/etcd-m1 on node m1 (HTTP 500: error dialing backend: dial tcp 10.0.0.7:10250: i/o timeout); is the node's kubelet running and reachable from the API server?");
  });
});

describe('connectError', () => {
  it.each([
    ['a dial the guard denied', Object.assign(new Error('10.0.0.1 is in a denied range'), { code: DENIED_CODE }), 'KUBE_API_NOT_ALLOWED', 'the port-forward to the API server https://10.0.0.1:6443 was not opened: 10.0.0.1 is in a denied range'],
    ['a handshake timeout', new Error('Opening handshake has timed out'), 'KUBE_API_UNREACHABLE', 'no answer from the API server https://10.0.0.1:6443 to the port-forward within 1000ms'],
    ['a TLS failure', Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'KUBE_API_UNREACHABLE', 'TLS with the API server https://10.0.0.1:6443 failed: self-signed certificate'],
    ['a refused connection', new Error('connect ECONNREFUSED 10.0.0.1:6443'), 'KUBE_API_UNREACHABLE', 'cannot reach the API server https://10.0.0.1:6443 for the port-forward: connect ECONNREFUSED 10.0.0.1:6443'],
  ])('describes %s', (_what, error, code, message) => {
    expect(connectError(target, 1000, error)).toMatchObject({ code, message });
  });
});

describe('kubeletError', () => {
  it("says nothing listens on the pod's port when the kubelet's dial was refused", () => {
    expect(kubeletError(target, 'an error occurred forwarding 2379 -> 2379: dial tcp4 127.0.0.1:2379: connect: connection refused')).toMatchObject({
      code: 'CONNECTION_REFUSED',
      message: expect.stringMatching(/^through the port-forward, nothing listens on etcd-m1:2379 on node m1 \(is etcd running\?\): /),
    });
  });

  it("passes any other kubelet error on, sanitised", () => {
    expect(kubeletError(target, 'pod not found\u001b[31m')).toMatchObject({ code: 'PORT_FORWARD_FAILED', message: 'the kubelet on node m1 failed the port-forward to etcd-m1:2379: pod not found [31m' });
  });
});

describe('droppedError', () => {
  it('names the API server and the pod whose port-forward it carried', () => {
    expect(droppedError(target)).toMatchObject({
      code: 'KUBE_API_UNREACHABLE',
      message: 'the connection to the API server https://10.0.0.1:6443 carrying the port-forward to kube-system/etcd-m1 dropped',
    });
  });
});
