#!/usr/bin/env bash
# Installs the system programs the test suite runs for real: Redis (shared store tests), Postgres
# (chat history tests), Chromium (Playwright), bubblewrap (the sandbox every agent-voice codex process
# runs in), podman, runc and debootstrap (the container check) and the codex executable
# (scripts/ensure-codex.sh). Debian packages only; Playwright's own browser download does not work
# offline and is never used.
set -euo pipefail

# The pinned codex executable (agent voice, real-binary tests), into a cache folder, not via apt.
bash "$(dirname "$0")/ensure-codex.sh" >/dev/null

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# The real-binary tests trace codex's connect() calls to prove it stays on 127.0.0.1.
command -v strace >/dev/null 2>&1 || missing+=(strace)
# Agent voice runs each codex process inside bubblewrap (LWC_AGENT_SANDBOX=bwrap, the default).
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
# The chat history's tests run against a throwaway Postgres cluster as well as the embedded engine
# (test-support/postgres-server.ts: initdb and postgres from /usr/lib/postgresql/*/bin).
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
# npm run test:container builds the Dockerfile with podman (run by runc) on a base image made by debootstrap.
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
[ -x /usr/sbin/debootstrap ] || missing+=(debootstrap)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "The tests need: ${missing[*]}. Install them (Debian/Ubuntu): sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "Installing ${missing[*]} with apt-get…"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
