#!/usr/bin/env node
/**
 * The `sluice` executable. Exits with runCli's code; flushes stdout first so piped output is
 * never cut short, and treats a closed pipe (`sluice consume t | head`) as a normal end.
 */
import { handlers } from './handlers.js'
import { processIo } from './output.js'
import { runCli } from './program.js'

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

const code = await runCli(process.argv.slice(2), processIo(), handlers)
// gRPC channels and timers may keep the loop alive; the command is done once runCli returns.
process.stdout.write('', () => process.exit(code))
