#!/usr/bin/env bash
# Installs the pinned `codex` executable (agent voice, real-binary tests) into a cache folder
# when it is missing, and prints its path. It is ~400 MB, so it is not an npm dependency:
# `npm ci` never downloads it. Override the folder with LWC_CODEX_CACHE_DIR. The version is the app's
# client version (lib/upstream/client-version.json), so the codex it runs and the version it sends agree.
set -euo pipefail

version_file="$(dirname "$0")/../lib/upstream/client-version.json"
version="$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).clientVersion' "$version_file")"
dir="${LWC_CODEX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/login-with-chatgpt/codex-$version}"
bin="$dir/node_modules/.bin/codex"

installed_version() {
  "$bin" --version 2>/dev/null | awk '{print $2}'
}

if [ ! -x "$bin" ] || [ "$(installed_version)" != "$version" ]; then
  echo "Installing @openai/codex@$version into $dir…" >&2
  mkdir -p "$dir"
  npm install --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    --prefix "$dir" "@openai/codex@$version" >&2
  if [ "$(installed_version)" != "$version" ]; then
    echo "ensure-codex: $bin did not report version $version after installing" >&2
    exit 1
  fi
fi

echo "$bin"
