/**
 * `sluice console`: the web console (@sluice/console, docs/console.md) in this process until
 * SIGINT/SIGTERM, then it closes its server and its client and exits 0. It listens on
 * 127.0.0.1 unless `--host` says otherwise; the token comes from `--token` or
 * SLUICE_CONSOLE_TOKEN (an environment variable keeps it out of `ps`). Containers set the rest
 * by environment too: SLUICE_CONSOLE_CONNECT_URL and SLUICE_CONSOLE_READ_ONLY=1 (flags win).
 * Listening beyond the loopback without a token is allowed (a trusted network, a proxy in
 * front) but said loudly.
 */
import { startConsoleServer, type ConsoleServer } from '@sluice/console'
import type { CommandContext, ConsoleArgs } from '../command-types.js'
import { UsageError } from '../output.js'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1'])

/** The console's options from the flags and the environment (the token: flag, then env). */
export function consoleOptionsOf(args: ConsoleArgs, env: NodeJS.ProcessEnv) {
  const fromEnv = (name: string): string | undefined => (env[name] === '' ? undefined : env[name])
  const token = args.token ?? fromEnv('SLUICE_CONSOLE_TOKEN')
  if (token !== undefined && token.trim() === '') throw new UsageError('--token must not be blank')
  const readOnlyEnv = fromEnv('SLUICE_CONSOLE_READ_ONLY')
  if (readOnlyEnv !== undefined && !['0', '1', 'true', 'false'].includes(readOnlyEnv))
    throw new UsageError(`SLUICE_CONSOLE_READ_ONLY must be 1 or 0, got "${readOnlyEnv}"`)
  const connectUrl = args.connectUrl ?? fromEnv('SLUICE_CONSOLE_CONNECT_URL')
  return {
    port: args.port,
    host: args.host ?? '127.0.0.1',
    readOnly: args.readOnly || readOnlyEnv === '1' || readOnlyEnv === 'true',
    ...(token !== undefined ? { token } : {}),
    ...(connectUrl !== undefined ? { connectUrl } : {}),
  }
}

/** The lines printed once the console listens (also used by `sluice dev`). */
export function consoleBanner(server: ConsoleServer, o: ReturnType<typeof consoleOptionsOf>): string[] {
  const notes = [
    o.readOnly ? 'read-only' : undefined,
    o.token !== undefined ? 'token required' : undefined,
    o.connectUrl !== undefined ? `connectors via ${o.connectUrl}` : undefined,
  ].filter((x) => x !== undefined)
  const lines = [`console at ${server.url}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`]
  if (!LOOPBACK.has(o.host) && o.token === undefined)
    lines.push(`warning: the console listens on ${o.host} without a token: anyone who can reach it can use it`)
  return lines
}

export async function runConsole(ctx: CommandContext, args: ConsoleArgs): Promise<number> {
  const options = consoleOptionsOf(args, ctx.io.env)
  let server: ConsoleServer
  try {
    server = await startConsoleServer({ bootstrap: ctx.bootstrap, ...options })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`port ${args.port} on ${options.host} is in use; choose another with --port`)
    if (err instanceof TypeError) throw new UsageError(err.message)
    throw err
  }
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify({ url: server.url })}\n`)
  else for (const line of consoleBanner(server, options)) ctx.io.stdout.write(`${line}\n`)
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig))
  })
  ctx.io.stderr.write(`${signal}: stopping the console\n`)
  await server.close()
  return 0
}
