#!/usr/bin/env bash
# Builds sluice-zookeeper:3.8 (Debian's zookeeper package on the bookworm base):
#   deploy/zookeeper/build-image.sh [TAG]
# apt inside the build needs the Debian mirror: the build uses the host's network
# (`--network host`, no bridge). The base image is made offline first if missing.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TAG="${1:-sluice-zookeeper:3.8}"
BASE="${NODE_IMAGE:-node:20-bookworm-slim}"
if [ "${FORCE:-0}" != 1 ] && docker image inspect "$TAG" >/dev/null 2>&1; then
  echo "$TAG already exists; skipping (FORCE=1 rebuilds it)"
  exit 0
fi
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  timeout 60 docker pull "$BASE" >/dev/null 2>&1 || "$HERE/../base-image/make-node-image.sh" "$BASE"
fi
t0=$SECONDS
docker build --network host --build-arg "BASE_IMAGE=$BASE" -t "$TAG" "$HERE" >/tmp/sluice-zookeeper-build.log 2>&1 \
  || { tail -30 /tmp/sluice-zookeeper-build.log >&2; exit 1; }
echo "== built $TAG in $((SECONDS - t0)) s"
