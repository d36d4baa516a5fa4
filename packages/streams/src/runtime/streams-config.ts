/**
 * The options of a streams application (StreamsApp), their defaults and their validation. Every
 * problem is reported at once, as one StreamsError with code 'CONFIG', before anything connects.
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger, SluiceClient } from '@sluice/client'
import { StreamsError } from '../errors.js'

/** What happens to a record a source serde cannot read (a StreamsError with code 'SERDE'). */
export type DeserializationErrorPolicy = 'fail' | 'log-and-continue'

export interface StreamsConfig {
  /** The application's id: the consumer group id and the prefix of its internal topics. */
  applicationId: string
  /** host:port of brokers to connect to; or give `client` (then the app never closes it). */
  bootstrap?: string[]
  client?: SluiceClient
  /**
   * This instance's state directory; each task keeps its stores and checkpoint under
   * `<stateDir>/<taskId>`. Default `<os.tmpdir()>/sluice-streams/<applicationId>`. Two instances
   * on one machine need two directories.
   */
  stateDir?: string
  /** How often the commit path runs (flush, acks, checkpoint, offsets). Default 30000 ms, as Kafka. */
  commitIntervalMs?: number
  /** Standby copies of each task's stores on other instances. Accepted; used once the streams assignor lands. Default 0. */
  numStandbyReplicas?: number
  /** Only 'at-least-once' for now; exactly-once needs transactions (a later issue). */
  processingGuarantee?: 'at-least-once'
  /** Default 'fail': the application stops with the error and commits nothing past the record. */
  deserializationErrors?: DeserializationErrorPolicy
  /** Replication factor of the internal topics it creates. Default: the cluster default. */
  replicationFactor?: number
  /** A pino-compatible logger (the SDK's Logger). Default: silent. */
  logger?: Logger
  /** How often committed records are deleted from the repartition topics. Default 30000 ms (Kafka's). */
  repartitionPurgeIntervalMs?: number
  /** Group consumer session timeout. Default 45000 ms (the SDK's). */
  sessionTimeoutMs?: number
  /** Group consumer heartbeat interval. Default 3000 ms (the SDK's). */
  heartbeatIntervalMs?: number
  /**
   * `host:port` where this instance answers interactive queries (Kafka's application.server),
   * announced to the group so every instance can tell which one hosts a key. Default: none.
   */
  applicationServer?: string
}

export interface ResolvedStreamsConfig {
  readonly applicationId: string
  readonly bootstrap: string[] | undefined
  readonly client: SluiceClient | undefined
  readonly stateDir: string
  readonly commitIntervalMs: number
  readonly numStandbyReplicas: number
  readonly processingGuarantee: 'at-least-once'
  readonly deserializationErrors: DeserializationErrorPolicy
  readonly replicationFactor: number | undefined
  readonly logger: Logger
  readonly repartitionPurgeIntervalMs: number
  readonly sessionTimeoutMs: number | undefined
  readonly heartbeatIntervalMs: number | undefined
  readonly applicationServer: string
}

const noop = (): void => {}
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => silentLogger }

/** Kafka's rule for an application id: it names topics, so only topic-name characters. */
const APPLICATION_ID = /^[a-zA-Z0-9._-]{1,200}$/

export function defaultStateDir(applicationId: string): string {
  return join(tmpdir(), 'sluice-streams', applicationId)
}

export function resolveStreamsConfig(c: StreamsConfig): ResolvedStreamsConfig {
  const problems: string[] = []
  if (c === null || typeof c !== 'object') {
    throw new StreamsError('CONFIG', 'StreamsApp needs a config object with at least applicationId')
  }
  if (typeof c.applicationId !== 'string' || !APPLICATION_ID.test(c.applicationId)) {
    problems.push(`applicationId must be 1-200 characters of [a-zA-Z0-9._-], got ${JSON.stringify(c.applicationId)}`)
  }
  const hasBootstrap = c.bootstrap !== undefined
  if (hasBootstrap === (c.client !== undefined)) problems.push('give exactly one of bootstrap and client')
  if (
    hasBootstrap &&
    (!Array.isArray(c.bootstrap) || c.bootstrap.length === 0 || !c.bootstrap.every((b) => typeof b === 'string'))
  ) {
    problems.push('bootstrap must be a non-empty list of host:port strings')
  }
  if (c.stateDir !== undefined && (typeof c.stateDir !== 'string' || c.stateDir === '')) {
    problems.push('stateDir must be a non-empty path')
  }
  const int = (name: string, v: unknown, min: number): void => {
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min)) {
      problems.push(`${name} must be an integer >= ${min}, got ${String(v)}`)
    }
  }
  int('commitIntervalMs', c.commitIntervalMs, 1)
  int('numStandbyReplicas', c.numStandbyReplicas, 0)
  int('replicationFactor', c.replicationFactor, 1)
  int('repartitionPurgeIntervalMs', c.repartitionPurgeIntervalMs, 0)
  int('sessionTimeoutMs', c.sessionTimeoutMs, 1)
  int('heartbeatIntervalMs', c.heartbeatIntervalMs, 1)
  if (c.processingGuarantee !== undefined && c.processingGuarantee !== 'at-least-once') {
    problems.push(
      `processingGuarantee must be 'at-least-once' (exactly-once needs transactions), got ${String(c.processingGuarantee)}`,
    )
  }
  if (c.deserializationErrors !== undefined && !['fail', 'log-and-continue'].includes(c.deserializationErrors)) {
    problems.push(`deserializationErrors must be 'fail' or 'log-and-continue', got ${String(c.deserializationErrors)}`)
  }
  if (
    c.applicationServer !== undefined &&
    (typeof c.applicationServer !== 'string' || !/^[^\s:]+:\d{1,5}$/.test(c.applicationServer))
  ) {
    problems.push(`applicationServer must be host:port, got ${JSON.stringify(c.applicationServer)}`)
  }
  if (problems.length > 0) {
    throw new StreamsError('CONFIG', `invalid streams config: ${problems.join('; ')}`, { details: { problems } })
  }
  return {
    applicationId: c.applicationId,
    bootstrap: c.bootstrap,
    client: c.client,
    stateDir: c.stateDir ?? defaultStateDir(c.applicationId),
    commitIntervalMs: c.commitIntervalMs ?? 30_000,
    numStandbyReplicas: c.numStandbyReplicas ?? 0,
    processingGuarantee: 'at-least-once',
    deserializationErrors: c.deserializationErrors ?? 'fail',
    replicationFactor: c.replicationFactor,
    logger: c.logger ?? silentLogger,
    repartitionPurgeIntervalMs: c.repartitionPurgeIntervalMs ?? 30_000,
    sessionTimeoutMs: c.sessionTimeoutMs,
    heartbeatIntervalMs: c.heartbeatIntervalMs,
    applicationServer: c.applicationServer ?? '',
  }
}
