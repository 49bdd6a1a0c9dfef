#!/usr/bin/env bash
# podman with the container test's storage and settings (common.sh); tests/container/ runs it.
set -euo pipefail
source "$(dirname "$0")/common.sh"
exec "${PODMAN[@]}" "$@"
