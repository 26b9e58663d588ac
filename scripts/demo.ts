// `npm run demo`: a local 3-member etcd cluster with TLS (the test fixture's) and etcd-probe against it.
// Needs `etcd` on PATH (apt-get install etcd-server). Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EtcdCluster } from '../test/fixtures/etcd-cluster.ts';
import { startFlags } from './start-flags.ts';

const listen = process.env.ETCD_PROBE_LISTEN ?? '127.0.0.1:8080';
const base = `http://${listen.replace(/^0\.0\.0\.0:|^:/, '127.0.0.1:')}`;

console.log('starting a 3-member etcd cluster with TLS...');
const cluster = await EtcdCluster.start({ size: 3 });
const pki = cluster.pki!;
const env = {
  ...process.env,
  ETCD_PROBE_ENDPOINTS: cluster.endpoints,
  ETCD_PROBE_CACERT: pki.caFile,
  ETCD_PROBE_CERT: pki.clientCertFile,
  ETCD_PROBE_KEY: pki.clientKeyFile,
  ETCD_PROBE_LISTEN: listen,
};
const service = spawn(process.execPath, [...startFlags(), fileURLToPath(new URL('../dist/main.js', import.meta.url))], { env, stdio: 'inherit' });

let stopping = false;
async function stop(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    service.kill('SIGTERM');
    await cluster.stop();
  }
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
service.once('exit', (code) => {
  if (!stopping) {
    console.error(`etcd-probe exited with code ${code}`);
    void stop(code ?? 1);
  }
});

const pids = cluster.members.map((m) => `${m.name}: pid ${m.process?.pid}, ${m.clientUrl}`).join('\n  ');
console.log(`
etcd cluster (data, certificates and logs in ${cluster.dir}):
  ${pids}

etcd-probe on ${base}, configured with:
  ETCD_PROBE_ENDPOINTS=${cluster.endpoints}
  ETCD_PROBE_CACERT=${pki.caFile}
  ETCD_PROBE_CERT=${pki.clientCertFile}
  ETCD_PROBE_KEY=${pki.clientKeyFile}

Try:
  open ${base}/ in a browser       # the status page
  node dist/main.js check --endpoints=${cluster.endpoints} --cacert=${pki.caFile} --cert=${pki.clientCertFile} --key=${pki.clientKeyFile}; echo "exit $?"
  curl -s ${base}/healthz/etcd | jq
  curl -s '${base}/healthz/etcd?verbose'
  curl -s ${base}/members | jq
  curl -s ${base}/alarms | jq
  curl -s ${base}/metrics | grep ^etcd_probe_
Then break a member and ask again (?fresh=true skips the 5 s cache):
  kill -STOP ${cluster.members[2]?.process?.pid}   # hang m3: degraded, answered within the 2 s deadline
  kill -CONT ${cluster.members[2]?.process?.pid}   # and back
  curl -s -o /dev/null -w '%{http_code}\\n' '${base}/healthz/etcd?policy=strict&fresh=true'

Ctrl-C stops etcd-probe and the cluster.`);
