// What both streams examples share: their command-line flags, creating their topics, and
// closing the app on Ctrl-C. Plain JavaScript over the built workspace packages, so `node`
// runs an example directly (after `pnpm run build`), with no build step of its own.
import { parseArgs } from 'node:util'
import { connect, isSluiceError } from '@sluice/client'
import { StreamsApp } from '@sluice/streams'

/** `sluice dev`'s first broker (packages/cli/src/commands/dev.ts), also the CLI's default. */
export const DEV_BOOTSTRAP = '127.0.0.1:9192'

/** Parses `--bootstrap`, `--input`, `--output`, `--application-id`, `--state-dir`, `--partitions`. */
export function parseFlags(defaults) {
  const { values } = parseArgs({
    options: {
      bootstrap: { type: 'string', default: process.env.SLUICE_BOOTSTRAP ?? DEV_BOOTSTRAP },
      input: { type: 'string', default: defaults.input },
      output: { type: 'string', default: defaults.output },
      'application-id': { type: 'string', default: defaults.applicationId },
      'state-dir': { type: 'string' },
      partitions: { type: 'string', default: '3' },
    },
  })
  return {
    bootstrap: values.bootstrap.split(','),
    input: values.input,
    output: values.output,
    applicationId: values['application-id'],
    stateDir: values['state-dir'],
    partitions: Number(values.partitions),
  }
}

/**
 * Creates the input and output topics unless they exist. The app creates only its internal
 * topics (repartition, changelog); the topics it reads and writes are the user's, as in Kafka
 * Streams, so the example makes them itself to be runnable on an empty `sluice dev`.
 */
export async function ensureTopics(bootstrap, names, partitions) {
  const client = await connect({ bootstrap, retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 } })
  try {
    const admin = client.admin()
    const existing = new Set(await admin.listTopics())
    const missing = names.filter((n) => !existing.has(n))
    if (missing.length === 0) return
    try {
      await admin.createTopics(missing.map((name) => ({ name, numPartitions: partitions })))
    } catch (err) {
      // Another process may have created one between the listing and here.
      if (!(isSluiceError(err) && err.code === 'TOPIC_ALREADY_EXISTS')) throw err
    }
  } finally {
    await client.close()
  }
}

/**
 * Runs the topology as an app of the flags' application id, prints one `started` line, and
 * closes it cleanly on SIGINT/SIGTERM. Counts reach the output when the cache is flushed at a
 * commit: every second here, not Kafka's 30 s, so a demo shows them at once.
 */
export async function runApp(topology, flags, description) {
  const app = new StreamsApp(topology, {
    applicationId: flags.applicationId,
    bootstrap: flags.bootstrap,
    stateDir: flags.stateDir,
    commitIntervalMs: 1000,
  })
  await app.start()
  process.stdout.write(`started: ${description} ${flags.input} -> ${flags.output} on ${flags.bootstrap.join(',')}\n`)
  app.stopped().then((err) => {
    if (err !== undefined) {
      process.stderr.write(`stopped on an error: ${err.message}\n`)
      process.exit(1)
    }
  })
  const close = () => {
    void app.close().then(() => process.exit(0))
  }
  process.once('SIGINT', close)
  process.once('SIGTERM', close)
}
