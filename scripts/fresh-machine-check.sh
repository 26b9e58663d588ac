#!/usr/bin/env bash
# The proof of issue 13: from `git clone` on a Debian 12 machine where only Debian's base packages and Node
# are present, `npm run demo` answers healthy on /healthz/etcd and `npm test` passes, with no other command.
#
# Makes a Debian 12 (bookworm) minbase root with debootstrap (once; kept as a tarball), unpacks a new copy,
# puts Node in it, clones the repository into /root/etcd-probe and, in a chroot, runs as root with an empty
# HOME: `npm run demo` (until /healthz/etcd says healthy, then SIGINT to npm, then a check that no process
# and no temp folder is left) and `npm test`, timing both. Run it as root:
#
#   scripts/fresh-machine-check.sh [--node=host|debian] [--demo-only] [--keep] [--branch=NAME] [REPOSITORY]
#
#   --node=host     (default) this machine's Node (/usr/bin/node and /usr/lib/node_modules: here Node 20 and
#                   its npm, from NodeSource's nodejs package), copied in as the package installed it
#   --node=debian   Debian 12's own nodejs (18) and npm (9) packages, installed with apt-get
#   --demo-only     leave out `npm test`
#   --keep          keep the root afterwards (FRESH_DIR/root) to look into
#   --branch=NAME   the branch to clone (default: the one checked out in REPOSITORY)
#   REPOSITORY      what to clone (default: the repository this script is in); only committed work counts
#
# What the chroot gets from this machine, besides the clone and Node: the Debian mirror and suites apt uses
# here (/etc/apt/sources.list.d), /etc/resolv.conf, and the CA bundle that npm needs to reach the registry
# through this network's TLS-intercepting egress (as NODE_EXTRA_CA_CERTS; a machine on an ordinary network
# would not need it). /usr/sbin/policy-rc.d forbids starting services, as in every Debian chroot or container,
# so that installing etcd-server does not start a system etcd. The chroot has its own PID and mount
# namespaces (nothing started inside outlives it) and shares this machine's network.
set -euo pipefail

node_from=host
demo_only=0
keep=0
branch=''
repo=''
for arg in "$@"; do
  case $arg in
    --node=host | --node=debian) node_from=${arg#--node=} ;;
    --demo-only) demo_only=1 ;;
    --keep) keep=1 ;;
    --branch=*) branch=${arg#--branch=} ;;
    -*) echo "unknown option $arg (see the top of $0)" >&2; exit 64 ;;
    *) repo=$arg ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "run it as root: it uses debootstrap, chroot and mount namespaces" >&2; exit 1; }
for tool in debootstrap unshare chroot git; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install debootstrap util-linux git)" >&2; exit 1; }
done

here=$(cd "$(dirname "$0")/.." && pwd)
repo=${repo:-$here}
branch=${branch:-$(git -C "$repo" rev-parse --abbrev-ref HEAD)}
work=${FRESH_DIR:-/var/tmp/etcd-probe-fresh}
root=$work/root
mkdir -p "$work"

# Removes the root, never through a mount into it (the chroot's mounts live in its own namespace, but a
# bind mount of /dev left here by anything else must not be emptied).
remove_root() {
  if grep -q " $root/" /proc/self/mounts; then
    echo "something is mounted under $root; not removing it" >&2
    return 1
  fi
  rm -rf --one-file-system "$root"
}

# The mirror apt uses here (as scripts/image/base-image.ts finds it), for debootstrap.
mirror=${DEBIAN_MIRROR:-$(sed -n 's|^URIs: *\(\S*/debian\)/\?$|\1|p; s|^deb \(\[[^]]*\] \)\?\(\S*/debian\)/\? .*|\2|p' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n 1 || true)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ ! -f "$work/bookworm-minbase.tar" ]; then
  echo "debootstrap --variant=minbase bookworm from $mirror (once; kept as $work/bookworm-minbase.tar)"
  rm -rf "$work/bootstrap.partial"
  debootstrap --variant=minbase bookworm "$work/bootstrap.partial" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -n 20 "$work/debootstrap.log"; exit 1; }
  tar -C "$work/bootstrap.partial" -cf "$work/bookworm-minbase.tar.partial" .
  mv "$work/bookworm-minbase.tar.partial" "$work/bookworm-minbase.tar"
  rm -rf "$work/bootstrap.partial"
fi

remove_root
mkdir -p "$root"
tar -C "$root" -xf "$work/bookworm-minbase.tar"
if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
  rm -f "$root/etc/apt/sources.list"
  cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\n# A chroot: never start services (invoke-rc.d and deb-systemd-invoke ask this).\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
mkdir -p "$root/run/host"
[ -f "$ca" ] && cp "$ca" "$root/run/host/ca.pem"

echo "cloning $repo (branch $branch) into $root/root/etcd-probe"
git clone --quiet --branch "$branch" "$repo" "$root/root/etcd-probe"
git -C "$root/root/etcd-probe" log --oneline -1

# Runs a command as root in the chroot, with a clean environment and an empty HOME. The root is bound onto
# itself first, so that / in the chroot is a mount point: `ip netns exec` (the partition tests) makes / a
# slave mount and fails with "Invalid argument" on a plain directory.
in_chroot() {
  unshare --pid --fork --mount --propagation private --mount-proc="$root/proc" \
    sh -c 'mount --rbind "$0" "$0" && mount --rbind /dev "$0/dev" && mount --bind /sys "$0/sys" && exec chroot "$0" "$@"' "$root" \
    /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    ${NODE_EXTRA_CA_CERTS_IN:+NODE_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS_IN} "$@"
}
[ -f "$root/run/host/ca.pem" ] && NODE_EXTRA_CA_CERTS_IN=/run/host/ca.pem

case $node_from in
  host)
    # As the nodejs package put it here: the node binary, npm and corepack, and their /usr/bin links.
    tar -C / -cf - usr/bin/node usr/lib/node_modules/npm usr/bin/npm usr/bin/npx \
      $(cd / && ls -d usr/lib/node_modules/corepack usr/bin/corepack 2>/dev/null) | tar -C "$root" -xf -
    ;;
  debian)
    echo "apt-get install nodejs npm (Debian 12's Node 18 and npm 9)"
    in_chroot sh -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null' \
      || { echo "could not install Debian's nodejs and npm"; exit 1; }
    ;;
esac
echo "in the chroot: node $(in_chroot node --version), npm $(in_chroot npm --version), nothing else installed"

port=$(cd / && "$root/usr/bin/node" -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })' 2>/dev/null \
  || echo 18089)
cat > "$root/root/fresh-check.sh" <<EOF
# Runs inside the chroot: the two commands, timed, and what the demo leaves behind.
cd /root/etcd-probe || exit 1
started=\$(date +%s)
ETCD_PROBE_LISTEN=127.0.0.1:$port npm run demo < /dev/null > /root/demo.log 2>&1 &
npm_pid=\$!
verdict=''
# Installing etcd and Node 24 and npm ci come first: minutes on a slow mirror.
deadline=\$((started + 1800))
while kill -0 \$npm_pid 2>/dev/null && [ \$(date +%s) -lt \$deadline ]; do
  verdict=\$(node -e 'fetch("http://127.0.0.1:$port/healthz/etcd").then((r) => r.json()).then((b) => console.log(b.status), () => {})' 2>/dev/null)
  [ "\$verdict" = healthy ] && break
  sleep 1
done
demo_seconds=\$((\$(date +%s) - started))
tail -n 4 /root/demo.log
if [ "\$verdict" != healthy ]; then
  echo "FAIL: npm run demo never answered healthy (after \${demo_seconds}s); its output:"
  cat /root/demo.log
  exit 1
fi
echo "npm run demo: /healthz/etcd healthy \${demo_seconds}s after the command started (from a fresh clone)"
kill -INT \$npm_pid
wait \$npm_pid
echo "npm run demo: exit \$? after SIGINT to npm"
left=''
for p in /proc/[0-9]*; do
  case "\$(tr '\\0' ' ' < \$p/cmdline 2>/dev/null)" in *etcd\ --name=* | *dist/main.js*) left="\$left \${p#/proc/}" ;; esac
done
leftdirs=\$(ls -d /tmp/etcd-probe-* 2>/dev/null)
if [ -n "\$left\$leftdirs" ]; then echo "FAIL: the demo left processes:\$left and folders: \$leftdirs"; exit 1; fi
echo "npm run demo: no etcd or etcd-probe process and no /tmp/etcd-probe-* folder left"
[ "$demo_only" = 1 ] && exit 0
started=\$(date +%s)
npm test > /root/test.log 2>&1
status=\$?
echo "npm test: exit \$status after \$((\$(date +%s) - started))s (from a fresh clone, after npm run demo)"
grep -E '^(setup:|ran )' /root/test.log
[ \$status = 0 ] || { echo "FAIL: npm test; the end of its output:"; tail -n 60 /root/test.log; }
exit \$status
EOF

set +e
in_chroot sh /root/fresh-check.sh
status=$?
set -e
echo "logs: $root/root/demo.log, $root/root/test.log"
if [ "$keep" = 1 ]; then
  echo "kept $root"
else
  cp "$root/root/demo.log" "$work/demo.log" 2>/dev/null || true
  cp "$root/root/test.log" "$work/test.log" 2>/dev/null || true
  remove_root
  echo "removed the root; the logs are in $work"
fi
exit $status
