#!/usr/bin/env bash
# Starts a Docker daemon that creates no network of its own (no docker0 bridge, no iptables
# rules), on its own socket and data root, for CI machines and sandboxes that forbid bridge
# networks. Containers then run with `--network host` (or `none`). Idempotent: if the daemon
# answers on the socket already, it does nothing.
#
#   deploy/ci/start-dockerd.sh [DIR]         DIR defaults to /tmp/sluice-dockerd
#   export DOCKER_HOST=unix://DIR/docker.sock
#
# Stop it with deploy/ci/stop-dockerd.sh DIR. Needs root (dockerd does).
set -euo pipefail
DIR="${1:-/tmp/sluice-dockerd}"
SOCK="$DIR/docker.sock"
export DOCKER_HOST="unix://$SOCK"
command -v dockerd >/dev/null || { echo "dockerd not installed (Debian: apt-get install -y docker.io)" >&2; exit 1; }

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  echo "dockerd already running on $SOCK"
  exit 0
fi
mkdir -p "$DIR"
nohup dockerd --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
  -H "unix://$SOCK" --data-root "$DIR/data" --exec-root "$DIR/exec" \
  --pidfile "$DIR/docker.pid" >"$DIR/dockerd.log" 2>&1 &

deadline=$((SECONDS + 30))
until docker version --format '{{.Server.Version}}' >/dev/null 2>&1; do
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "dockerd did not answer on $SOCK within 30 s; last log lines:" >&2
    tail -20 "$DIR/dockerd.log" >&2
    exit 1
  fi
  sleep 0.2
done
echo "dockerd $(docker version --format '{{.Server.Version}}') running on $SOCK (no bridge network)"
