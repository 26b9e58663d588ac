# Source this file (". .ci/etcd-newer.sh"), then run `etcd_newer [suite]`, to get etcd 3.5 from one of
# Debian's newer suites without touching the machine's apt configuration: `apt-get download` with a
# private sources list and state folder, then `dpkg-deb -x` into a cache folder. Copied from the shared
# recipe (CI runs on a fresh clone). The default suite is trixie (etcd 3.5.16): a stable suite does not
# change under CI; ETCD_NEWER_SUITE=sid (3.5.30 when last seen) picks the newest. The binaries run on
# Debian 12. On success it exports ETCD35_BIN (the etcd binary, which vitest's `integration-3.5` project
# runs) and ETCD_BIN_DIR (the folder holding etcd, etcdctl and etcdutl), and prints the version.
etcd_newer() {
  local suite=${1:-${ETCD_NEWER_SUITE:-trixie}}
  local d="${ETCD_NEWER_HOME:-$HOME/.cache/etcd-$suite}"
  if [ ! -x "$d/x/usr/bin/etcd" ]; then
    mkdir -p "$d/lists/partial" "$d/state" "$d/cache/archives/partial" "$d/src" "$d/x"
    # The archive this machine already uses (its first URIs: line, or its sources.list's first deb line).
    local uri
    uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null)
    [ -n "$uri" ] || uri=$(awk '$1=="deb"{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" "$suite" > "$d/src/newer.sources"
    local A="-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=$d/src -o Dir::State=$d/state -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache"
    # shellcheck disable=SC2086 # $A is a list of options
    apt-get $A update >/dev/null 2>&1 && (cd "$d" && apt-get $A download etcd-server etcd-client >/dev/null 2>&1) \
      && for f in "$d"/etcd-*.deb; do dpkg-deb -x "$f" "$d/x"; done
  fi
  if [ -x "$d/x/usr/bin/etcd" ]; then
    export ETCD_BIN_DIR="$d/x/usr/bin" ETCD35_BIN="$d/x/usr/bin/etcd"
    # sed, not head: head exits after the first line, and etcd, still writing the next ones, dies of SIGPIPE,
    # which fails this function under `set -o pipefail` (as .ci/run sets it): 9 runs in 300 here.
    "$ETCD35_BIN" --version | sed -n 1p
  else
    echo "etcd_newer: could not fetch etcd-server from Debian's $suite suite into $d" >&2
    return 1
  fi
}
