/**
 * Starts and stops a real PostgreSQL (Debian package `postgresql`, version 15) for tests: a
 * fresh cluster made by `initdb` in a temp dir, started with `pg_ctl`, with logical replication
 * on (`wal_level=logical`, replication slots and WAL senders) so change capture can be tested.
 *
 * - Listens on 127.0.0.1 only, on a free port; its unix socket goes into the temp dir, so two
 *   servers (or the machine's own) never clash on /var/run/postgresql.
 * - Trust authentication, superuser `postgres`, no password: tests only.
 * - initdb and the server refuse to run as root: as root, the data dir is given to the `postgres`
 *   user Debian's package creates and every command runs through `runuser -u postgres`.
 * - Durability is off (fsync, synchronous_commit, full_page_writes): a test cluster is thrown away.
 * - Registered with the testkit tracker: `stopAll()` stops it, a dying test process SIGKILLs the
 *   postmaster. `stop()` stops it (fast shutdown) and removes the temp dir.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePorts } from './ports.js'
import { track, trackChild } from './tracker.js'

const run = promisify(execFile)

/** Debian's binaries; SLUICE_POSTGRES_BIN points elsewhere (another version's bin/). */
export const POSTGRES_BIN = process.env.SLUICE_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin'
export const POSTGRES_INSTALL_HINT =
  'install it with: apt-get install -y --no-install-recommends postgresql (Debian package, version 15)'

export function postgresInstalled(): boolean {
  return existsSync(join(POSTGRES_BIN, 'initdb')) && existsSync(join(POSTGRES_BIN, 'pg_ctl'))
}

export interface StartPostgresOptions {
  /** Default 60 s for the server to accept connections. */
  readonly readyTimeoutMs?: number
  /** Extra `postgresql.conf` lines (`name = value`). */
  readonly settings?: Readonly<Record<string, string | number>>
}

export interface PostgresHandle {
  readonly host: '127.0.0.1'
  readonly port: number
  /** The superuser (trust authentication, no password). */
  readonly user: 'postgres'
  readonly dataDir: string
  /** `postgres://postgres@127.0.0.1:<port>/<database>` (default database `postgres`). */
  url(database?: string): string
  /** Runs SQL with the server's own `psql` (for setup without a client library). */
  psql(sql: string, database?: string): Promise<string>
  stop(): Promise<void>
}

interface RunAs {
  readonly prefix: readonly string[]
  readonly uid?: number
  readonly gid?: number
}

async function runAs(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return { prefix: [] }
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim())
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim())
  return { prefix: ['runuser', '-u', 'postgres', '--'], uid, gid }
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresHandle> {
  if (!postgresInstalled())
    throw new Error(`PostgreSQL is not installed (${POSTGRES_BIN}/initdb is missing); ${POSTGRES_INSTALL_HINT}`)
  const as = await runAs()
  const base = await mkdtemp(join(tmpdir(), 'sluice-pg-'))
  const dataDir = join(base, 'data')
  const logFile = join(base, 'postgres.log')
  if (as.uid !== undefined) await chown(base, as.uid, as.gid!)
  const exec = async (bin: string, args: readonly string[]): Promise<string> => {
    const [cmd, ...rest] = [...as.prefix, join(POSTGRES_BIN, bin), ...args]
    const out = await run(cmd!, rest, { cwd: base, timeout: options.readyTimeoutMs ?? 60_000 })
    return out.stdout
  }
  const [port] = await freePorts(1)
  let postmasterPid: number | undefined
  let untrack: (() => void) | undefined
  let untrackChild: (() => void) | undefined
  let stopped = false

  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    untrack?.()
    try {
      if (existsSync(join(dataDir, 'postmaster.pid'))) await exec('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w'])
    } catch {
      if (postmasterPid !== undefined) {
        try {
          process.kill(postmasterPid, 'SIGKILL')
        } catch {
          /* already gone */
        }
      }
    }
    untrackChild?.()
    await rm(base, { recursive: true, force: true })
  }

  try {
    await exec('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '-N'])
    const settings: Record<string, string | number> = {
      listen_addresses: "'127.0.0.1'",
      port: port!,
      unix_socket_directories: `'${base}'`,
      wal_level: 'logical',
      max_replication_slots: 20,
      max_wal_senders: 20,
      max_connections: 100,
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
      ...options.settings,
    }
    await appendFile(
      join(dataDir, 'postgresql.conf'),
      `\n# sluice testkit\n${Object.entries(settings)
        .map(([k, v]) => `${k} = ${v}`)
        .join('\n')}\n`,
    )
    const waitSec = String(Math.ceil((options.readyTimeoutMs ?? 60_000) / 1000))
    await exec('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', waitSec])
    postmasterPid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    untrackChild = trackChild({ kill: (signal) => process.kill(postmasterPid!, signal) })
    untrack = track({ description: `postgres (pid ${postmasterPid}, port ${port})`, stop })
  } catch (err) {
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '(no log)'
    await stop()
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\nlog tail:\n${tail}`, { cause: err })
  }

  return {
    host: '127.0.0.1',
    port: port!,
    user: 'postgres',
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    psql: async (sql, database = 'postgres') =>
      await exec('psql', [
        '-X',
        '-q',
        '-A',
        '-t',
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        database,
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        sql,
      ]),
    stop,
  }
}
