/**
 * How the CLI talks back: JSON for machines (`--json`, bigints as decimal strings, Buffers as
 * UTF-8 text), and `error: <CODE>: <message>` lines for failures. Operating errors (SluiceError)
 * never print a stack trace: the code and message are what the user can act on. Anything else
 * is a bug or an environment problem; its stack is shown only with SLUICE_DEBUG=1.
 */
import { SluiceError } from '@sluice/protocol'

export interface CliIo {
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
  readonly stdin: NodeJS.ReadableStream & AsyncIterable<Buffer | string>
  readonly env: NodeJS.ProcessEnv
  /** Whether stdout is a terminal (colours, progress). */
  readonly isTTY: boolean
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    isTTY: process.stdout.isTTY === true,
  }
}

/** JSON.stringify replacer: bigint → decimal string, Buffer → UTF-8 string. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString()
  if (
    value !== null &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'Buffer' &&
    Array.isArray((value as { data?: unknown }).data)
  ) {
    // Buffer.prototype.toJSON ran before the replacer saw it.
    return Buffer.from((value as { data: number[] }).data).toString('utf8')
  }
  return value
}

export function toJson(value: unknown, options: { pretty?: boolean } = {}): string {
  return JSON.stringify(value, jsonReplacer, options.pretty === true ? 2 : undefined)
}

/** Duck-typed as well, in case two copies of @sluice/protocol are loaded. */
export function isSluiceError(err: unknown): err is SluiceError {
  if (err instanceof SluiceError) return true
  const e = err as { name?: unknown; code?: unknown } | null
  return e !== null && typeof e === 'object' && e.name === 'SluiceError' && typeof e.code === 'string'
}

/** Errors that mean "check your input", thrown by commands and printed without a stack. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** The lines to print for an error that ends a command. */
export function formatError(err: unknown, options: { debug?: boolean } = {}): string {
  if (isSluiceError(err)) {
    let text = `error: ${err.code}: ${err.message}`
    if (err.code === 'NETWORK_EXCEPTION' || err.code === 'BROKER_NOT_AVAILABLE' || err.code === 'REQUEST_TIMED_OUT') {
      text += '\nhint: is the cluster running? Start one with `sluice dev`, or pass --bootstrap host:port'
    }
    return `${text}\n`
  }
  if (err instanceof UsageError) return `error: ${err.message}\n`
  const e = err as Error
  const message = e?.message ?? String(err)
  if (options.debug === true && typeof e?.stack === 'string') return `error: ${e.stack}\n`
  return `error: ${message}\n`
}

/** Writes and resolves once the stream accepted the data (honours back-pressure). */
export async function write(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (stream.write(text)) return
  await new Promise<void>((resolve, reject) => {
    const onDrain = (): void => {
      cleanup()
      resolve()
    }
    const onError = (err: Error): void => {
      cleanup()
      reject(err)
    }
    const cleanup = (): void => {
      stream.off('drain', onDrain)
      stream.off('error', onError)
    }
    stream.on('drain', onDrain)
    stream.on('error', onError)
  })
}
