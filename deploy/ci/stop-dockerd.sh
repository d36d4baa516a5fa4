#!/usr/bin/env bash
# Stops the daemon started by start-dockerd.sh (by its pid file) and unmounts what it left
# behind under DIR (a netns mount can outlive the daemon and block `rm -rf DIR`).
set -uo pipefail
DIR="${1:-/tmp/sluice-dockerd}"
if [ -f "$DIR/docker.pid" ]; then
  pid="$(cat "$DIR/docker.pid")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
fi
# Deepest mounts first.
grep -o " $DIR[^ ]*" /proc/self/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
echo "dockerd under $DIR stopped"
