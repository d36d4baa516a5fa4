#!/usr/bin/env bash
# Builds the Sluice container image from this checkout, without any registry inside the build:
#
#   deploy/build-image.sh [TAG]        TAG defaults to sluice:dev (env SLUICE_IMAGE also works)
#
# 1. installs (fresh clone only), compiles the packages (`tsc -b`) and builds the console's front
#    end (vite; SKIP_BUILD=1 skips all three when dist/ is known to be fresh),
# 2. stages the CLI with its production dependencies only (`pnpm deploy --prod`: the CLI depends
#    on the broker and metadata packages through testkit) plus proto/ in a temporary context,
# 3. makes sure node:20-bookworm-slim exists: pulled when a registry answers, otherwise built
#    from Debian packages by deploy/base-image/make-node-image.sh,
# 4. runs `docker build --network none -f deploy/Dockerfile` on that context (legacy builder;
#    nothing in the build reaches a network).
# Honours DOCKER_HOST (e.g. the bridge-less daemon of deploy/ci/start-dockerd.sh).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
TAG="${1:-${SLUICE_IMAGE:-sluice:dev}}"
BASE="${NODE_IMAGE:-node:20-bookworm-slim}"
PNPM="${PNPM:-npx -y pnpm@10.34.9}"
cd "$REPO"

t0=$SECONDS
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  if [ ! -d node_modules ]; then
    echo "== pnpm install --frozen-lockfile (fresh clone)"
    $PNPM install --frozen-lockfile
  fi
  echo "== tsc -b packages/cli (and what it references)"
  npx tsc -b packages/cli
  echo "== vite build of the console's front end (served by sluice console from its dist/web)"
  npx vite build --logLevel warn --config packages/console/web/vite.config.ts
fi
test -f packages/cli/dist/bin.js || { echo "packages/cli/dist/bin.js missing: build first (npx tsc -b)" >&2; exit 1; }
test -f packages/console/dist/web/index.html \
  || { echo "packages/console/dist/web missing: build first (pnpm run build)" >&2; exit 1; }

CTX="$(mktemp -d "${TMPDIR:-/tmp}/sluice-image.XXXXXX")"
trap 'rm -rf "$CTX"' EXIT
echo "== staging production dependencies in $CTX/app"
# --legacy: copy workspace packages into the target (the lockfile is shared by the workspace).
$PNPM --filter @sluice/cli deploy --prod --legacy "$CTX/app" >"$CTX/deploy.log" 2>&1 \
  || { cat "$CTX/deploy.log" >&2; exit 1; }
# Trim what never runs (sources, maps, declarations, benchmarks) before the context is sent:
# half the files, a faster build. The Dockerfile's first stage trims again for other contexts.
(
  cd "$CTX/app"
  find . -depth \( -name '*.ts' -o -name '*.map' -o -name 'tsconfig.json' -o -name '*.tsbuildinfo' \) -type f -delete
  find . -depth -type d \( -name src -o -name bench -o -name examples -o -name __fixtures__ \) -path '*/@sluice/*' -prune -exec rm -rf {} +
  rm -rf src
)
# The protocol package loads proto/ at run time from beside its dist/ when not in a checkout.
PROTOCOL_DIR="$(readlink -f "$CTX/app/node_modules/@sluice/protocol")"
rm -rf "$PROTOCOL_DIR/proto" && cp -r proto "$PROTOCOL_DIR/proto"
cp deploy/healthcheck.mjs "$CTX/healthcheck.mjs"

if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  echo "== $BASE not present: pulling, or building it from Debian packages"
  timeout 60 docker pull "$BASE" >/dev/null 2>&1 || deploy/base-image/make-node-image.sh "$BASE"
fi

echo "== docker build $TAG"
version="$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo dev)"
docker build --network none --build-arg "NODE_IMAGE=$BASE" --build-arg "SLUICE_VERSION=$version" \
  -f deploy/Dockerfile -t "$TAG" "$CTX" 2> >(grep -v -e 'DEPRECATED' -e 'legacy builder' -e 'BuildKit' -e 'buildx' -e '^ *$' >&2) >"$CTX/build.log" \
  || { cat "$CTX/build.log" >&2; exit 1; }
docker image prune -f --filter label=org.sluice.stage=build >/dev/null 2>&1 || true
echo "== built $TAG in $((SECONDS - t0)) s ($(docker image inspect -f '{{.Size}}' "$TAG" | awk '{printf "%d MB", $1/1e6}'))"
