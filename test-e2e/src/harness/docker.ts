/**
 * Docker for the container tests: whether a daemon answers (DOCKER_HOST, or the bridge-less
 * daemon of deploy/ci/start-dockerd.sh at its default socket), building the Sluice image with
 * deploy/build-image.sh, and finding a compose command. The tests run every container on the host
 * network with distinct loopback ports: no bridge network, no port mapping, so they also run
 * where bridge networks are forbidden. testcontainers is told not to start its Ryuk reaper (an
 * image from a registry) and to reach containers at 127.0.0.1; these variables are set before
 * it is imported.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const CI_DOCKER_SOCKET = '/tmp/sluice-dockerd/docker.sock'

export interface DockerStatus {
  readonly usable: boolean
  /** Why Docker cannot be used (for the skip message). */
  readonly reason?: string
}

/** Points DOCKER_HOST at the CI daemon when none is set and the default socket is absent. */
function defaultDockerHost(): void {
  if (process.env.DOCKER_HOST !== undefined && process.env.DOCKER_HOST !== '') return
  if (!existsSync('/var/run/docker.sock') && existsSync(CI_DOCKER_SOCKET))
    process.env.DOCKER_HOST = `unix://${CI_DOCKER_SOCKET}`
}

/** Synchronous so that it can decide `describe.skipIf` while the file is collected. */
export function dockerStatus(): DockerStatus {
  defaultDockerHost()
  const r = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 15_000 })
  if (r.error !== undefined) return { usable: false, reason: `the docker CLI cannot run (${r.error.message})` }
  if (r.status !== 0)
    return { usable: false, reason: `no Docker daemon answers (${(r.stderr ?? '').trim().split('\n')[0]})` }
  return { usable: true }
}

/** Environment testcontainers needs here; call before importing it. */
export function configureTestcontainers(): void {
  defaultDockerHost()
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true'
  process.env.TESTCONTAINERS_HOST_OVERRIDE = '127.0.0.1'
}

/**
 * Builds `tag` from the already compiled dist/ (the e2e suite runs after `tsc -b`), building
 * the node:20-bookworm-slim base from Debian packages first when it is missing and no registry
 * answers. Returns the seconds it took. SLUICE_E2E_REUSE_IMAGE=1 keeps an existing `tag` (for
 * iterating on the tests; CI always builds).
 */
export function buildSluiceImage(tag: string): number {
  const started = Date.now()
  if (process.env.SLUICE_E2E_REUSE_IMAGE === '1' && spawnSync('docker', ['image', 'inspect', tag]).status === 0)
    return 0
  execFileSync(path.join(REPO_ROOT, 'deploy/build-image.sh'), [tag], {
    cwd: REPO_ROOT,
    env: { ...process.env, SKIP_BUILD: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 600_000,
  })
  return (Date.now() - started) / 1000
}

/** `docker-compose` (v1) or `docker compose` (v2), whichever answers; undefined if neither. */
export function composeCommand(): string[] | undefined {
  for (const cmd of [['docker-compose'], ['docker', 'compose']]) {
    const r = spawnSync(cmd[0]!, [...cmd.slice(1), 'version'], { encoding: 'utf8', timeout: 15_000 })
    if (r.error === undefined && r.status === 0) return cmd
  }
  return undefined
}

/** When set (CI does), a missing Docker fails the container tests instead of skipping them. */
export const DOCKER_REQUIRED = process.env.SLUICE_E2E_REQUIRE_DOCKER === '1'
