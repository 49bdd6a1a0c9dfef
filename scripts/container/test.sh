#!/usr/bin/env bash
# npm run test:container: builds the Dockerfile with podman and checks the container as a person
# would use it (tests/container/). Runs as root. Every container and podman process it starts is
# removed on every path (the EXIT trap), and the end of the run proves it.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/container/common.sh

if [ "$(id -u)" -ne 0 ]; then
  echo "test:container runs podman as root (CI does); run it as root." >&2
  exit 1
fi
for program in podman runc debootstrap; do
  command -v "$program" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$program" >/dev/null 2>&1 || {
    echo "test:container needs podman, runc and debootstrap: apt-get install -y podman runc debootstrap (npm test's pretest installs them)." >&2
    exit 1
  }
done
mkdir -p "$CONTAINER_CACHE_DIR" "$PODMAN_RUNROOT"
# One run at a time on a machine: runs share the cached base image and this storage.
exec 9>"$CONTAINER_CACHE_DIR/run.lock"
flock 9

started=$SECONDS
since="$(date --iso-8601=seconds)"
# The process group of the step running now (build or vitest), ended by its id if the run is cut short.
step_group=""

remove_everything() {
  if [ -n "$step_group" ] && kill -0 -- "-$step_group" 2>/dev/null; then
    kill -TERM -- "-$step_group" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$step_group" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$step_group" 2>/dev/null || true
  fi
  step_group=""
  local ids
  ids="$("${PODMAN[@]}" ps --all --external --quiet 2>/dev/null || true)"
  # shellcheck disable=SC2086 # one id a word
  [ -z "$ids" ] || "${PODMAN[@]}" rm --force --time 0 $ids >/dev/null 2>&1 || true
  "${PODMAN[@]}" image unmount --all >/dev/null 2>&1 || true
  "${PODMAN[@]}" rmi --force "$APP_IMAGE" >/dev/null 2>&1 || true
  # The build's unnamed stages; the base image is tagged and stays.
  "${PODMAN[@]}" image prune --force >/dev/null 2>&1 || true
}

# Nothing is left in this storage, and no process of any container the run made (conmon,
# runc, the container's own processes: each names or runs in its container's id), of a build step
# (its root is in the storage) or of podman on it.
prove_nothing_left() {
  local left proc line id mounts
  local -a made stray=()
  left="$("${PODMAN[@]}" ps --all --external --quiet)"
  mapfile -t made < <("${PODMAN[@]}" events --stream=false --since "$since" --filter type=container --filter event=create --format '{{.ID}}')
  for proc in /proc/[0-9]*; do
    line="$(tr '\0' ' ' 2>/dev/null <"$proc/cmdline"; cat "$proc/cgroup" 2>/dev/null; readlink "$proc/root" 2>/dev/null)" || continue
    case "$line" in *"$PODMAN_ROOT"* | *"$PODMAN_RUNROOT"*) stray+=("${proc#/proc/}") ; continue ;; esac
    for id in "${made[@]}"; do
      case "$line" in *"$id"*) stray+=("${proc#/proc/}"); break ;; esac
    done
  done
  mounts="$(grep -c -F "$PODMAN_ROOT" /proc/self/mountinfo || true)"
  if [ -n "$left" ] || [ ${#stray[@]} -gt 0 ] || [ "$mounts" != 0 ]; then
    echo "test:container left behind: containers [$left], processes [${stray[*]}], mounts under the storage: $mounts" >&2
    return 1
  fi
  echo "No container, podman or conmon process and no mount left (containers made and removed: ${#made[@]})."
}

on_exit() {
  local status=$?
  trap - EXIT
  remove_everything
  prove_nothing_left || status=1
  exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs one step in its own process group (so it can be ended whole, by that id) and waits for it.
run_step() {
  setsid "$@" &
  step_group=$!
  local status=0
  wait "$step_group" || status=$?
  step_group=""
  return "$status"
}

base="$(bash scripts/container/base-image.sh)"

echo "Building the Dockerfile with podman (NODE_IMAGE=$base)…"
build_started=$SECONDS
run_step nice -n 10 "${PODMAN[@]}" build --isolation chroot --build-arg "NODE_IMAGE=$base" -t "$APP_IMAGE" . \
  >"$CONTAINER_CACHE_DIR/last-build.log" 2>&1 || { tail -40 "$CONTAINER_CACHE_DIR/last-build.log"; exit 1; }
bytes="$("${PODMAN[@]}" image inspect --format '{{.Size}}' "$APP_IMAGE")"
echo "Image built in $((SECONDS - build_started)) s: $APP_IMAGE, $((bytes / 1000000)) MB ($bytes bytes); its layers:"
"${PODMAN[@]}" history --format '{{.Size}}\t{{.CreatedBy}}' "$APP_IMAGE" | cut -c1-160 | sed 's/^/  /'

vitest_status=0
CONTAINER_TEST_IMAGE="$APP_IMAGE" run_step npx vitest run --project container || vitest_status=$?
echo "test:container took $((SECONDS - started)) s."
exit "$vitest_status"  # the EXIT trap removes everything and proves it
