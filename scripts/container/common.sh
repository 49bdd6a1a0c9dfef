# Sourced by the container test's scripts: podman as they run it, as root, in storage of its own so
# that its cleanup and its proof that nothing is left never touch other containers on the machine.
#   overlay storage (vfs works too, but copies every layer: 14 GB and 25 s a container, measured);
#   cgroupfs and runc, which work on cgroup v1 hosts where podman's defaults (systemd, crun) do not.
CONTAINER_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/login-with-chatgpt/podman"
PODMAN_ROOT="$CONTAINER_CACHE_DIR/storage"
PODMAN_RUNROOT="/run/login-with-chatgpt-podman"
# The image the test builds from the Dockerfile (removed after each run; the base image is kept).
APP_IMAGE="localhost/lwc-container-test/app:latest"
export CONTAINERS_CONF
CONTAINERS_CONF="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/containers.conf"

PODMAN=(podman --root "$PODMAN_ROOT" --runroot "$PODMAN_RUNROOT" --tmpdir "$PODMAN_RUNROOT/tmp"
  --storage-driver overlay --cgroup-manager cgroupfs --runtime runc)
