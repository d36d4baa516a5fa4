/**
 * The connectors and tasks one worker runs, started and stopped as assignments say. A
 * connector here is the object that splits work into task configs; when they differ from the
 * committed ones it writes the new set to the config topic (the worker that runs a connector is
 * the one that writes its task configs). Tasks run in source or sink runners.
 */
import type { Logger, Producer, SluiceClient } from '@sluice/client'
import type { ConnectorConfig } from '../api/config-def.js'
import type { Connector } from '../api/connector.js'
import { isConnectError } from '../errors.js'
import type { PluginRegistry } from '../plugins.js'
import type { ConnectorState } from '../storage/config-state.js'
import type { OffsetMap } from '../storage/offset-store.js'
import type { ConnectState } from '../storage/status-state.js'
import { parseErrorHandlingConfig } from '../errors-handling/error-handling-config.js'
import { RetryWithToleranceOperator } from '../errors-handling/retry-with-tolerance.js'
import { clientOverrides } from './client-overrides.js'
import type { RecordPipeline } from './record-pipeline.js'
import { SinkTaskRunner } from './sink-task-runner.js'
import { SourceTaskRunner } from './source-task-runner.js'

export interface RunningWorkDeps {
  readonly client: SluiceClient
  readonly producer: Producer
  readonly plugins: PluginRegistry
  readonly logger: Logger
  readonly flushIntervalMs: number
  pipeline(config: ConnectorConfig): RecordPipeline
  offsetOf(connector: string, partition: OffsetMap): Promise<OffsetMap | undefined>
  storeOffsets(connector: string, offsets: ReadonlyArray<{ partition: OffsetMap; offset: OffsetMap }>): Promise<void>
  /** Writes the connector's task configs and their commit record (when they changed). */
  writeTaskConfigs(connector: string, tasks: ConnectorConfig[]): Promise<void>
  reportConnector(name: string, state: ConnectState, trace?: string): void
  reportTask(name: string, id: number, state: ConnectState, trace?: string): void
}

interface RunningConnector {
  readonly connector: Connector
  readonly config: ConnectorConfig
  state: ConnectState
}

/** What both runners offer the worker. */
interface TaskRunner {
  stop(): Promise<void>
  pause(): void
  resume(): void
}

interface RunningTask {
  readonly runner: TaskRunner
  readonly config: ConnectorConfig
  readonly ownProducer?: Producer
  state: ConnectState
}

export class RunningWork {
  /** Topics known to exist (source tasks create missing ones; see ensureTopic). */
  private readonly knownTopics = new Set<string>()
  private readonly connectors = new Map<string, RunningConnector>()
  private readonly tasks = new Map<string, RunningTask>()

  constructor(private readonly d: RunningWorkDeps) {}

  connectorNames(): string[] {
    return [...this.connectors.keys()]
  }

  taskIds(): Array<{ name: string; id: number }> {
    return [...this.tasks.keys()].map((k) => {
      const i = k.lastIndexOf('\u0000')
      return { name: k.slice(0, i), id: Number(k.slice(i + 1)) }
    })
  }

  connectorConfig(name: string): ConnectorConfig | undefined {
    return this.connectors.get(name)?.config
  }

  taskConfig(name: string, id: number): ConnectorConfig | undefined {
    return this.tasks.get(taskKey(name, id))?.config
  }

  taskState(name: string, id: number): ConnectState | undefined {
    return this.tasks.get(taskKey(name, id))?.state
  }

  connectorState(name: string): ConnectState | undefined {
    return this.connectors.get(name)?.state
  }

  /** Starts the connector (or reports why it cannot run) and writes its task configs. */
  async startConnector(c: ConnectorState): Promise<void> {
    const { logger } = this.d
    let connector: Connector | undefined
    try {
      connector = this.d.plugins.resolve(c.config['connector.class']).create()
      await connector.start(c.config, {
        name: c.name,
        logger: logger.child({ connector: c.name }),
        requestTaskReconfiguration: () => {
          void this.reconfigure(c.name)
        },
      })
      const running: RunningConnector = { connector, config: c.config, state: 'RUNNING' }
      this.connectors.set(c.name, running)
      if (c.targetState === 'PAUSED') running.state = 'PAUSED'
      this.d.reportConnector(c.name, running.state)
      if (c.targetState !== 'STOPPED') await this.reconfigure(c.name)
    } catch (err) {
      logger.error({ err, connector: c.name }, 'the connector failed to start')
      this.connectors.set(c.name, { connector: connector ?? nullConnector, config: c.config, state: 'FAILED' })
      this.d.reportConnector(c.name, 'FAILED', traceOf(err))
    }
  }

  async stopConnector(name: string): Promise<void> {
    const c = this.connectors.get(name)
    if (c === undefined) return
    this.connectors.delete(name)
    await Promise.resolve(c.connector.stop()).catch((err: unknown) => {
      this.d.logger.warn({ err, connector: name }, 'stopping the connector failed')
    })
  }

  /** Asks the connector for its task configs and writes them when they differ. */
  private async reconfigure(name: string): Promise<void> {
    const c = this.connectors.get(name)
    if (c === undefined || c.state === 'FAILED') return
    const max = Number(c.config['tasks.max'] ?? '1')
    const configs = c.connector.taskConfigs(Number.isSafeInteger(max) && max > 0 ? max : 1)
    await this.d.writeTaskConfigs(
      name,
      configs.map((t) => ({ ...c.config, ...t })),
    )
  }

  async startTask(c: ConnectorState, id: number): Promise<void> {
    const config = c.tasks[id]
    if (config === undefined) return
    const key = taskKey(c.name, id)
    const logger = this.d.logger.child({ connector: c.name, task: id })
    const report = (state: 'RUNNING' | 'PAUSED' | 'FAILED', trace?: string): void => {
      const t = this.tasks.get(key)
      if (t !== undefined) t.state = state
      this.d.reportTask(c.name, id, state, trace)
    }
    try {
      const plugin = this.d.plugins.resolve(config['connector.class'])
      const pipeline = this.d.pipeline(config)
      const overrides = clientOverrides(config)
      const connector = plugin.create()
      const sinkTopics = connector.kind === 'sink' ? listOf(config.topics) : []
      const errors = new RetryWithToleranceOperator(parseErrorHandlingConfig(config, connector.kind, sinkTopics), {
        connector: c.name,
        taskId: id,
        logger,
        deadLetter: async (record) => {
          await this.ensureTopic(record.topic, config, deadLetterReplication(config))
          await this.d.producer.send({
            topic: record.topic,
            records: [
              {
                key: record.key,
                value: record.value,
                headers: [...record.headers],
                ...(record.timestamp !== undefined ? { timestamp: record.timestamp } : {}),
              },
            ],
          })
        },
      })
      let entry: RunningTask
      if (connector.kind === 'source') {
        const own =
          Object.keys(overrides.producer).length > 0
            ? this.d.client.producer({ acks: 'all', idempotent: true, ...overrides.producer })
            : undefined
        const runner = new SourceTaskRunner({
          connector: c.name,
          taskId: id,
          task: connector.createTask(),
          config,
          producer: own ?? this.d.producer,
          pipeline,
          logger,
          errors,
          offsetOf: (p) => this.d.offsetOf(c.name, p),
          ensureTopic: (topic) => this.ensureTopic(topic, config),
          storeOffsets: (o) => this.d.storeOffsets(c.name, o),
          onState: report,
        })
        entry = { runner, config, state: 'UNASSIGNED', ...(own !== undefined ? { ownProducer: own } : {}) }
        this.tasks.set(key, entry)
        runner.start()
      } else {
        const runner = new SinkTaskRunner({
          connector: c.name,
          taskId: id,
          task: connector.createTask(),
          config,
          client: this.d.client,
          topics: sinkTopics,
          pipeline,
          logger,
          errors,
          flushIntervalMs: this.d.flushIntervalMs,
          onState: report,
        })
        entry = { runner, config, state: 'UNASSIGNED' }
        this.tasks.set(key, entry)
        await runner.start()
      }
      if (c.targetState === 'PAUSED') entry.runner.pause()
    } catch (err) {
      logger.error({ err }, 'the task failed to start')
      this.tasks.set(key, { runner: failedRunner, config, state: 'FAILED' })
      this.d.reportTask(c.name, id, 'FAILED', traceOf(err))
      if (!isConnectError(err)) return
    }
  }

  /**
   * A source's topic that does not exist is created before the first write, as Kafka's brokers
   * (auto.create.topics.enable) or Connect's topic.creation do: with the connector's
   * `topic.creation.default.partitions` / `.replication.factor` when given, else the cluster's
   * defaults. docs/decisions.md, "Connect creates a source's missing topics".
   */
  private async ensureTopic(topic: string, config: ConnectorConfig, replicationFactor?: number): Promise<void> {
    if (this.knownTopics.has(topic)) return
    const admin = this.d.client.admin()
    const existing = new Set(await admin.listTopics())
    if (!existing.has(topic)) {
      const partitions = Number(config['topic.creation.default.partitions'] ?? Number.NaN)
      const rf = replicationFactor ?? Number(config['topic.creation.default.replication.factor'] ?? Number.NaN)
      await admin
        .createTopics([
          {
            name: topic,
            ...(Number.isSafeInteger(partitions) && partitions > 0 ? { numPartitions: partitions } : {}),
            ...(Number.isSafeInteger(rf) && rf > 0 ? { replicationFactor: rf } : {}),
          },
        ])
        .catch((err: { code?: string }) => {
          if (err.code !== 'TOPIC_ALREADY_EXISTS') throw err
        })
      this.d.logger.info({ topic, connector: config.name }, 'created a topic a source connector writes to')
    }
    this.knownTopics.add(topic)
  }

  async stopTask(name: string, id: number): Promise<void> {
    const key = taskKey(name, id)
    const t = this.tasks.get(key)
    if (t === undefined) return
    this.tasks.delete(key)
    await t.runner.stop().catch((err: unknown) => {
      this.d.logger.warn({ err, connector: name, task: id }, 'stopping the task failed')
    })
    await t.ownProducer?.close().catch(() => {})
  }

  /** Applies a target state to what runs here. */
  applyTargetState(name: string, target: 'STARTED' | 'PAUSED' | 'STOPPED'): void {
    const c = this.connectors.get(name)
    if (c !== undefined && c.state !== 'FAILED') {
      c.state = target === 'PAUSED' ? 'PAUSED' : target === 'STOPPED' ? 'STOPPED' : 'RUNNING'
      this.d.reportConnector(name, c.state)
    }
    for (const { name: n, id } of this.taskIds()) {
      if (n !== name) continue
      const t = this.tasks.get(taskKey(n, id))!
      if (t.state === 'FAILED') continue
      if (target === 'PAUSED') t.runner.pause()
      else if (target === 'STARTED') t.runner.resume()
    }
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.taskIds().map((t) => this.stopTask(t.name, t.id)))
    await Promise.all(this.connectorNames().map((n) => this.stopConnector(n)))
  }
}

function listOf(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
}

/** errors.deadletterqueue.topic.replication.factor; -1 (and unset) is the cluster's default. */
function deadLetterReplication(config: ConnectorConfig): number | undefined {
  const rf = Number(config['errors.deadletterqueue.topic.replication.factor'] ?? '-1')
  return Number.isSafeInteger(rf) && rf > 0 ? rf : undefined
}

function taskKey(name: string, id: number): string {
  return `${name}\u0000${id}`
}

export function traceOf(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err)
}

const nullConnector: Connector = {
  kind: 'source',
  version: '0',
  configDef: [],
  start: () => {},
  taskConfigs: () => [],
  stop: () => {},
  createTask: () => {
    throw new Error('a connector that failed to start has no tasks')
  },
}

/** A task that failed to start: nothing to stop, pause or resume. */
const failedRunner: TaskRunner = { stop: async () => {}, pause: () => {}, resume: () => {} }
