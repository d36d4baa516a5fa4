/**
 * The logger testkit hands to in-process servers when the caller gives none: silent, unless
 * SLUICE_TEST_LOG_LEVEL is set (e.g. `SLUICE_TEST_LOG_LEVEL=debug npx vitest run ...`), so a
 * failing test can be re-run with the servers' logs on stderr.
 */
import { pino, type Logger } from 'pino'

export function defaultTestLogger(): Logger {
  const level = process.env.SLUICE_TEST_LOG_LEVEL
  if (level === undefined || level === '') return pino({ level: 'silent' })
  return pino({ level }, pino.destination(2))
}
