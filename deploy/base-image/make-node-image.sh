#!/usr/bin/env bash
# Builds the `node:20-bookworm-slim` base image locally, from Debian packages and the host's own
# Node.js 20, for machines that reach Debian's apt mirror but no container registry. The result
# has the same shape as the official image where deploy/Dockerfile relies on it: Debian bookworm
# with /bin/sh, node/npm/npx in /usr/local/bin, a `node` user (1000:1000), docker-entrypoint.sh,
# ENTRYPOINT docker-entrypoint.sh, CMD node. Skips when the tag exists (FORCE=1 rebuilds).
#
#   deploy/base-image/make-node-image.sh [TAG] [WORKDIR]
#
# Needs root, debootstrap (apt-get install debootstrap), a Node.js 20 at $(command -v node) built
# against glibc (Debian's or NodeSource's), and a Docker daemon (DOCKER_HOST is honoured).
# Takes about 45 s; the image is about 190 MB.
set -euo pipefail
TAG="${1:-node:20-bookworm-slim}"
WORK="${2:-$(mktemp -d /tmp/sluice-node-image.XXXXXX)}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

if [ "${FORCE:-0}" != 1 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "$TAG already exists; skipping (FORCE=1 rebuilds it)"
  exit 0
fi
NODE_BIN="$(readlink -f "$(command -v node)")"
NODE_VERSION="$("$NODE_BIN" -p 'process.versions.node')"
case "$NODE_VERSION" in 20.*) ;; *) echo "need Node.js 20 on the host, found $NODE_VERSION" >&2; exit 1 ;; esac
NODE_MODULES_DIR="$(dirname "$(dirname "$NODE_BIN")")/lib/node_modules"
command -v debootstrap >/dev/null || { echo "debootstrap missing (apt-get install -y debootstrap)" >&2; exit 1; }

ROOT="$WORK/rootfs"
cleanup () { rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$ROOT"

echo "== debootstrap bookworm (minbase) into $ROOT"
debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
  || { tail -30 "$WORK/debootstrap.log" >&2; exit 1; }

echo "== node $NODE_VERSION from $NODE_BIN"
install -m 0755 "$NODE_BIN" "$ROOT/usr/local/bin/node"
mkdir -p "$ROOT/usr/local/lib/node_modules"
for m in npm corepack; do
  if [ -d "$NODE_MODULES_DIR/$m" ]; then cp -a "$NODE_MODULES_DIR/$m" "$ROOT/usr/local/lib/node_modules/"; fi
done
[ -d "$ROOT/usr/local/lib/node_modules/npm" ] && {
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
}
[ -d "$ROOT/usr/local/lib/node_modules/corepack" ] && \
  ln -sf ../lib/node_modules/corepack/dist/corepack.js "$ROOT/usr/local/bin/corepack"

# The official image's user and entrypoint (first argument a flag or not a command: run node).
chroot "$ROOT" groupadd --gid 1000 node
chroot "$ROOT" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
cat >"$ROOT/usr/local/bin/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
ENTRY
chmod 0755 "$ROOT/usr/local/bin/docker-entrypoint.sh"
chroot "$ROOT" /usr/bin/env -i /usr/local/bin/node -e 'process.exit(0)' || { echo "node does not run inside the rootfs" >&2; exit 1; }

echo "== trimming"
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT"/usr/share/doc/* \
  "$ROOT"/usr/share/man/* "$ROOT"/usr/share/info/* "$ROOT"/var/log/* "$ROOT"/tmp/*
find "$ROOT/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} + 2>/dev/null || true
# debootstrap leaves the build host's resolver; the container runtime supplies its own.
: >"$ROOT/etc/resolv.conf"
cat >"$ROOT/etc/apt/sources.list" <<SRC
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC

echo "== docker import $TAG"
tar -C "$ROOT" --numeric-owner -c . | docker import \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["node"]' \
  - "$TAG" >/dev/null
docker run --rm --network none "$TAG" node -e 'console.log("built '"$TAG"': node " + process.version)'
