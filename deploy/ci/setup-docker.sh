#!/usr/bin/env bash
# CI preparation for the container tests (.ci/run calls it; needs root):
#   1. Debian's docker.io, docker-compose (v1) and debootstrap, when missing (about 25 s),
#   2. a Docker daemon without bridge networks on its own socket (start-dockerd.sh, < 1 s),
#   3. the node:20-bookworm-slim base image: pulled when a registry answers, otherwise built from
#      Debian packages by make-node-image.sh (about 45-60 s). Skipped when it exists.
# Afterwards: export DOCKER_HOST=unix:///tmp/sluice-dockerd/docker.sock
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BASE="${NODE_IMAGE:-node:20-bookworm-slim}"

t0=$SECONDS
missing=()
command -v dockerd >/dev/null || missing+=(docker.io)
command -v docker-compose >/dev/null || missing+=(docker-compose)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]} (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
t1=$SECONDS
"$HERE/start-dockerd.sh"
export DOCKER_HOST=unix:///tmp/sluice-dockerd/docker.sock
t2=$SECONDS
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  timeout 30 docker pull "$BASE" >/dev/null 2>&1 || "$HERE/../base-image/make-node-image.sh" "$BASE"
fi
t3=$SECONDS
echo "== docker ready: install $((t1 - t0)) s, daemon $((t2 - t1)) s, base image $((t3 - t2)) s"
