/**
 * An in-memory CliIo for tests: captured stdout/stderr and a stdin fed from strings.
 * @internal visible for testing
 */
import { PassThrough, Readable } from 'node:stream'
import type { CliIo } from './output.js'

export interface TestIo extends CliIo {
  out(): string
  err(): string
}

export function testIo(options: { stdin?: string[]; env?: NodeJS.ProcessEnv } = {}): TestIo {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const outChunks: Buffer[] = []
  const errChunks: Buffer[] = []
  stdout.on('data', (c: Buffer) => outChunks.push(c))
  stderr.on('data', (c: Buffer) => errChunks.push(c))
  return {
    stdout,
    stderr,
    stdin: Readable.from((options.stdin ?? []).map((s) => Buffer.from(s))),
    env: options.env ?? {},
    isTTY: false,
    out: () => Buffer.concat(outChunks).toString('utf8'),
    err: () => Buffer.concat(errChunks).toString('utf8'),
  }
}
