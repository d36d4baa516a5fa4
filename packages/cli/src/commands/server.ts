/**
 * `sluice broker [flags]` and `sluice metadata [flags]`: run a server role in this process, so one
 * executable (and one container image, entrypoint `sluice`) serves every role. The flags, the
 * SLUICE_* environment and --config file are the server's own (packages/broker|metadata/src/
 * config.ts); this only hands them over and loads the server's main module, which from then on
 * owns signals (SIGTERM stops it cleanly), stdout's `LISTENING <port>` line and the exit code.
 */
import { pathToFileURL } from 'node:url'
import { serverMainPath, type ServerPackage } from '@sluice/testkit'

export type ServerRole = ServerPackage

const SIGNAL_EXIT_CODES = { SIGTERM: 143, SIGINT: 130 } as const

/**
 * In a container this process is PID 1, and the kernel drops signals PID 1 has no handler for: a
 * SIGTERM during start-up (before the server installs its own handler, e.g. while a broker waits
 * for an unreachable metadata service) would be ignored until the runtime's SIGKILL. Until the
 * server has a handler of its own, exit as an ordinary process would.
 */
function exitOnEarlySignals(): void {
  for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) process.exit(code)
    })
  }
}

/** Never resolves: the server's main module exits the process when it stops. */
export async function runServerRole(role: ServerRole, flags: readonly string[]): Promise<never> {
  const main = serverMainPath(role)
  exitOnEarlySignals()
  // A server's main reads its flags from process.argv.slice(2), as if started as `node main.js ...`.
  process.argv = [process.argv[0]!, main, ...flags]
  await import(pathToFileURL(main).href)
  return await new Promise<never>(() => {})
}
