#!/usr/bin/env node
/**
 * `sluice-metadata`: the metadata service process. Reads its config (config.ts), logs JSON lines
 * with pino to stdout, prints `LISTENING <port>` on its own stdout line once it serves (and, with
 * --admin-port, `ADMIN_LISTENING <port>` as soon as the admin HTTP server listens), and stops
 * cleanly on SIGINT/SIGTERM (a second signal exits at once). With `--store zookeeper`, if the
 * ZooKeeper session of its store expires or it is deposed as controller, it stops and exits with code 3 so that a supervisor
 * (systemd, Kubernetes, `sluice dev` reporting it) restarts it on a fresh session: restarting
 * the process is the simplest way to never run on a half-valid view of the tree.
 */
import { pino } from 'pino'
import { formatConfigHelp, tuneV8ForServer } from '@sluice/server-kit'
import { metadataConfigSchema, parseMetadataConfig } from './config.js'
import { startMetadataServerInternal } from './server/metadata-server.js'

/** Exit code when this instance is fenced: its ZooKeeper session expired or another instance took over as controller (1 = bad config / crash). */
const STORE_LOST_EXIT_CODE = 3

async function main(): Promise<void> {
  tuneV8ForServer()
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(
      formatConfigHelp('usage: sluice metadata [--config file.json] [--flag value ...]', metadataConfigSchema),
    )
    process.exit(0)
  }
  const parsed = parseMetadataConfig(process.argv.slice(2), process.env)
  if (!parsed.ok) {
    for (const p of parsed.problems) process.stderr.write(`${p}\n`)
    process.exit(1)
  }
  const config = parsed.config
  const log = pino(
    { level: config.logLevel, base: { service: 'sluice-metadata', pid: process.pid } },
    pino.destination({ dest: 1, sync: true }),
  )
  process.on('uncaughtException', (e) => {
    log.fatal({ err: e }, 'uncaught exception')
    process.exit(1)
  })
  process.on('unhandledRejection', (e) => {
    log.fatal({ err: e }, 'unhandled rejection')
    process.exit(1)
  })
  let handle: Awaited<ReturnType<typeof startMetadataServerInternal>> | undefined
  const exitFenced = (why: string, err: Error): void => {
    log.fatal({ err }, `${why}; exiting so a supervisor restarts this service as a fresh standby`)
    const exit = (): never => process.exit(STORE_LOST_EXIT_CODE)
    if (handle === undefined) exit()
    else handle.stop().then(exit, exit)
  }
  try {
    handle = await startMetadataServerInternal({
      host: config.host,
      port: config.port,
      ...(config.dataDir !== undefined ? { dataDir: config.dataDir } : {}),
      store:
        config.store === 'zookeeper'
          ? {
              kind: 'zookeeper',
              connectString: config.zkConnect ?? '',
              chroot: config.zkChroot,
              sessionTimeoutMs: config.zkSessionTimeoutMs,
            }
          : { kind: 'embedded' },
      controllerId: config.controllerId,
      ...(config.advertisedHost !== undefined ? { advertisedHost: config.advertisedHost } : {}),
      adminPort: config.adminPort,
      adminHost: config.adminHost,
      // Printed as soon as it listens (before the store opens), so probes can be aimed early.
      onAdminListening: (port) => process.stdout.write(`ADMIN_LISTENING ${port}\n`),
      onStoreLost: (err) => {
        exitFenced('metadata store lost (ZooKeeper session expired)', err)
      },
      onDeposed: (err) => {
        exitFenced('fenced: another instance is the controller now', err)
      },
      defaultNumPartitions: config.defaultNumPartitions,
      defaultReplicationFactor: config.defaultReplicationFactor,
      brokerSessionTimeoutMs: config.brokerSessionTimeoutMs,
      maxPartitionsPerTopic: config.maxPartitionsPerTopic,
      groupCoordinator: {
        minSessionTimeoutMs: config.groupMinSessionTimeoutMs,
        maxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
        initialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
        offsetsTopicNumPartitions: config.offsetsTopicNumPartitions,
        offsetsTopicReplicationFactor: config.offsetsTopicReplicationFactor,
        offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      },
      logger: log,
    })
  } catch (e) {
    log.fatal({ err: e }, 'metadata service failed to start')
    process.stderr.write(`failed to start: ${(e as Error).message}\n`)
    process.exit(1)
  }
  process.stdout.write(`LISTENING ${handle.port}\n`)
  let stopping = false
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) process.exit(1)
    stopping = true
    log.info({ signal }, 'stopping')
    handle.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        log.error({ err: e }, 'unclean stop')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
}

await main()
