#!/usr/bin/env node
/**
 * The broker process: `sluice-broker [--config file.json] [--broker-id 1 --data-dir d ...]`.
 * With --admin-port, prints `ADMIN_LISTENING <port>` as soon as the admin HTTP server listens.
 * Prints `KAFKA_LISTENING <port>` (the Kafka listener's bound port) and then `LISTENING <port>`
 * (the gRPC port), each on its own stdout line, once registered and serving (logs go to stderr
 * so those lines stay easy to find); SIGINT/SIGTERM stop it cleanly; a bad config lists
 * every problem and exits 1.
 */
import { pino } from 'pino'
import { formatConfigHelp, tuneV8ForServer } from '@sluice/server-kit'
import { brokerConfigSchema, loadBrokerConfig } from './config.js'
import { startBroker } from './broker.js'

async function main(): Promise<void> {
  tuneV8ForServer()
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(
      formatConfigHelp('usage: sluice broker [--config file.json] [--flag value ...]', brokerConfigSchema),
    )
    process.exit(0)
  }
  const loaded = loadBrokerConfig(process.argv.slice(2), process.env)
  if (!loaded.ok) {
    process.stderr.write(`sluice-broker: invalid configuration:\n${loaded.problems.map((p) => `  - ${p}\n`).join('')}`)
    process.exit(1)
  }
  const config = loaded.config
  const logger = pino({ level: config.logLevel, base: { service: 'broker' } }, pino.destination(2))
  const broker = await startBroker({
    brokerId: config.brokerId,
    host: config.host,
    port: config.port,
    dataDir: config.dataDir,
    dataDirs: config.dataDirs,
    metadataEndpoints: config.metadataEndpoints,
    advertisedHost: config.advertisedHost,
    kafkaPort: config.kafkaPort,
    kafkaHost: config.kafkaHost,
    advertisedKafkaHost: config.advertisedKafkaHost,
    advertisedKafkaPort: config.advertisedKafkaPort,
    kafkaConnectionsMaxIdleMs: config.kafkaConnectionsMaxIdleMs,
    rack: config.rack,
    sessionTimeoutMs: config.sessionTimeoutMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    replicaLagMaxMs: config.replicaLagMaxMs,
    replicaFetchWaitMaxMs: config.replicaFetchWaitMaxMs,
    replicaFetchMinBytes: config.replicaFetchMinBytes,
    replicaFetchMaxBytes: config.replicaFetchMaxBytes,
    replicaConnectOverrides: config.replicaConnectOverrides,
    replicaFetchTransport: config.replicaFetchTransport,
    highWatermarkCheckpointIntervalMs: config.highWatermarkCheckpointIntervalMs,
    logRetentionCheckIntervalMs: config.logRetentionCheckIntervalMs,
    fileDeleteDelayMs: config.fileDeleteDelayMs,
    logCleanerDedupeBufferBytes: config.logCleanerDedupeBufferBytes,
    maxOpenFiles: config.maxOpenFiles,
    adminPort: config.adminPort,
    adminHost: config.adminHost,
    // Printed as soon as it listens (before recovery and registration), so probes can be aimed early.
    onAdminListening: (port) => process.stdout.write(`ADMIN_LISTENING ${port}\n`),
    logger,
  })
  // Before LISTENING, which tells a spawner the process is ready: the Kafka port is known by then.
  if (broker.kafkaPort !== undefined) process.stdout.write(`KAFKA_LISTENING ${broker.kafkaPort}\n`)
  process.stdout.write(`LISTENING ${broker.port}\n`)
  let stopping = false
  const shutdown = (signal: string): void => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'stopping')
    broker.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean stop')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
}

main().catch((err: unknown) => {
  process.stderr.write(`sluice-broker: failed to start: ${(err as Error)?.stack ?? String(err)}\n`)
  process.exit(1)
})
