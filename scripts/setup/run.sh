# The npm scripts that must work on a fresh machine go through here: package.json's
#   "test": "exec sh scripts/setup/run.sh test"   (and demo, bench, start)
# First whatever is missing is brought (scripts/setup/bootstrap.sh), then the command itself runs with
# Node 24 on PATH. The `exec`s matter: npm forwards SIGINT and SIGTERM only to its own child, and dash does
# not exec a `sh -c` command by itself, so without them the signal would stop at a shell.
set -u
cd "$(dirname "$0")/../.." || exit 1
command=${1:-}
[ $# -gt 0 ] && shift
# The summary line of `npm test` counts from here (test/helpers/summary-reporter.ts).
TEST_RUN_STARTED_AT=${TEST_RUN_STARTED_AT:-$(date +%s)}
export TEST_RUN_STARTED_AT

. scripts/setup/bootstrap.sh

case $command in
  test)
    setup test || exit 1
    node_modules/.bin/tsc -p tsconfig.json || exit 1
    # Reporters given on the command line (CI's --reporter=json) replace the configured ones: keep the summary.
    case " $* " in *" --reporter"*) set -- "$@" --reporter=./test/helpers/summary-reporter.ts ;; esac
    exec node_modules/.bin/vitest run "$@"
    ;;
  demo | bench)
    setup demo || exit 1
    node_modules/.bin/tsc -p tsconfig.build.json || exit 1
    exec node --experimental-strip-types --no-warnings=ExperimentalWarning "scripts/$command/main.ts" "$@"
    ;;
  start)
    # The service against your own cluster: Node and node_modules only (no system packages), built, then
    # exec'd so that signals reach it. These flags are the service's everywhere (lab/service/start-flags.ts
    # reads them from the next line: the demo, the bench and the image run it with the same).
    { setup_node && setup_node_modules; } || exit 1
    node_modules/.bin/tsc -p tsconfig.build.json || exit 1
    exec node --max-semi-space-size=4 --max-old-space-size=128 dist/main.js "$@"
    ;;
  *)
    echo "usage: sh scripts/setup/run.sh test|demo|bench|start [arguments]" >&2
    exit 64
    ;;
esac
