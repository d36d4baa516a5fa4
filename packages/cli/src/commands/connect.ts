/**
 * `sluice connect`: runs a Connect worker in this process until SIGINT/SIGTERM (@sluice/connect,
 * docs/connect.md). Distributed mode by default: workers started with the same `--group-id`
 * share the connectors, which are created and managed over the REST API (`--rest-port`, 8083).
 * `--standalone <file>...` runs the connectors those files describe (Kafka's
 * connect-standalone), in a group of its own unless `--group-id` says otherwise.
 * `--worker-config <file>` reads Kafka Connect's worker properties (bootstrap.servers, group.id,
 * rest.port, *.storage.topic, key.converter, ...); flags win over the file.
 */
import { readFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { startConnectWorker, type WorkerConfig } from '@sluice/connect'
import pino from 'pino'
import type { CommandContext, ConnectArgs } from '../command-types.js'
import { UsageError } from '../output.js'
import { parseProperties } from './properties-file.js'

/** A `.properties` file (Java's syntax and escapes; properties-file.ts) or a JSON object. */
export function parseConfigFile(text: string, file: string): Record<string, string> {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(trimmed)
    } catch (err) {
      throw new UsageError(`${file}: not valid JSON: ${(err as Error).message}`)
    }
    // Kafka's REST body shape {name, config} is accepted too.
    const o = parsed as { name?: unknown; config?: unknown }
    const flat = typeof o.config === 'object' && o.config !== null ? { ...(o.config as object), name: o.name } : parsed
    return Object.fromEntries(
      Object.entries(flat as Record<string, unknown>)
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => [k, String(v)]),
    )
  }
  return parseProperties(text, file)
}

function intOf(v: string | undefined, field: string): number | undefined {
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new UsageError(`${field} must be a non-negative integer, got "${v}"`)
  return Number(v)
}

/** The worker config from the properties file and the flags (flags win). */
export function workerConfigOf(
  props: Record<string, string>,
  args: ConnectArgs,
  bootstrap: string[],
): { config: Omit<WorkerConfig, 'logger'>; restHost: string; restPort: number } {
  const groupId =
    args.groupId ?? props['group.id'] ?? (args.standalone.length > 0 ? `sluice-standalone-${hostname()}` : undefined)
  if (groupId === undefined)
    throw new UsageError('name the Connect cluster with --group-id (or group.id in --worker-config)')
  const fromFile = props['bootstrap.servers']
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const rf =
    args.replicationFactor ?? intOf(props['config.storage.replication.factor'], 'config.storage.replication.factor')
  const converters = Object.fromEntries(
    Object.entries(props).filter(([k]) => k.startsWith('key.converter') || k.startsWith('value.converter')),
  )
  return {
    config: {
      bootstrap: args.bootstrapGiven || fromFile === undefined ? bootstrap : fromFile,
      groupId,
      ...((args.configTopic ?? props['config.storage.topic'])
        ? { configStorageTopic: args.configTopic ?? props['config.storage.topic'] }
        : {}),
      ...((args.offsetsTopic ?? props['offset.storage.topic'])
        ? { offsetStorageTopic: args.offsetsTopic ?? props['offset.storage.topic'] }
        : {}),
      ...((args.statusTopic ?? props['status.storage.topic'])
        ? { statusStorageTopic: args.statusTopic ?? props['status.storage.topic'] }
        : {}),
      ...(rf !== undefined ? { storageReplicationFactor: rf } : {}),
      ...(props['offset.flush.interval.ms'] !== undefined
        ? { offsetFlushIntervalMs: intOf(props['offset.flush.interval.ms'], 'offset.flush.interval.ms')! }
        : {}),
      ...(props['session.timeout.ms'] !== undefined
        ? { sessionTimeoutMs: intOf(props['session.timeout.ms'], 'session.timeout.ms')! }
        : {}),
      ...(props['rest.advertised.host.name'] !== undefined
        ? {
            advertisedUrl: `http://${props['rest.advertised.host.name']}:${props['rest.advertised.port'] ?? args.restPort ?? props['rest.port'] ?? 8083}`,
          }
        : {}),
      converterConfig: converters,
    },
    restHost: args.restHost ?? props['rest.host.name'] ?? '127.0.0.1',
    restPort: args.restPort ?? intOf(props['rest.port'], 'rest.port') ?? 8083,
  }
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function connectWorker(ctx: CommandContext, args: ConnectArgs): Promise<number> {
  const props =
    args.workerConfig === undefined ? {} : parseConfigFile(await readFile(args.workerConfig, 'utf8'), args.workerConfig)
  const connectors = await Promise.all(
    args.standalone.map(async (f) => ({ file: f, config: parseConfigFile(await readFile(f, 'utf8'), f) })),
  )
  for (const c of connectors)
    if (c.config.name === undefined) throw new UsageError(`${c.file}: a connector config needs a name`)
  const { config, restHost, restPort } = workerConfigOf(props, args, ctx.bootstrap)
  const logger = pino({ level: args.logLevel ?? 'info' }, pino.destination(2))
  const running = await startConnectWorker({ ...config, logger }, { host: restHost, port: restPort })
  for (const c of connectors) {
    const { name, ...rest } = c.config
    await running.worker.putConnector(name!, rest)
  }
  ctx.io.stdout.write(
    ctx.json
      ? `${JSON.stringify({ url: running.url, groupId: config.groupId, connectors: connectors.map((c) => c.config.name) })}\n`
      : `connect worker of ${config.groupId}: REST API at ${running.url}${connectors.length > 0 ? `, running ${connectors.map((c) => c.config.name).join(', ')}` : ''}\n`,
  )
  const ended = await Promise.race([
    new Promise<{ signal: NodeJS.Signals }>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve({ signal: sig }))
    }),
    running.worker.stopped().then((err) => ({ err })),
  ])
  if ('err' in ended) {
    ctx.io.stderr.write(
      `error: the connect worker stopped: ${ended.err instanceof Error ? ended.err.message : String(ended.err)}\n`,
    )
    await running.stop()
    return 1
  }
  ctx.io.stderr.write(`${ended.signal}: stopping the connect worker\n`)
  await running.stop()
  return 0
}
