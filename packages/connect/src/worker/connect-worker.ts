/**
 * One Connect worker: the three state topics read into memory, membership in the worker group
 * (worker-group.ts), the connectors and tasks assigned to it (running-work.ts), and the
 * operations the REST API offers. Every change goes through the config topic (a create, a
 * pause, a restart request), and every worker acts on what it reads there: the worker that runs
 * a connector applies its changes, and any change to the set of work asks the group for a new
 * generation. So a request may be sent to any worker (docs/connect.md, "Distributed mode").
 */
import { randomUUID } from 'node:crypto'
import { connect, type Logger, type Producer, type SluiceClient } from '@sluice/client'
import { parseConfig, type ConnectorConfig } from '../api/config-def.js'
import type { ExclusiveResource } from '../api/connector.js'
import { ConnectError, configError } from '../errors.js'
import { PluginRegistry } from '../plugins.js'
import { ConfigState, configKeys, type ConnectorState, type TargetState } from '../storage/config-state.js'
import { canonicalJson, OffsetState, type OffsetMap } from '../storage/offset-store.js'
import { StatusState, statusKeys, type ConnectState } from '../storage/status-state.js'
import { TopicLog } from '../storage/topic-log.js'
import type { RecordPipeline } from './record-pipeline.js'
import { RunningWork } from './running-work.js'
import { WorkerGroup, type WorkAssignment } from './worker-group.js'
import { connectorWorkId, parseWorkId, taskWorkId } from './work-assignment.js'
import { resolveWorkerConfig, type ResolvedWorkerConfig, type WorkerConfig } from './worker-config.js'
import { SerialLane } from './serial-lane.js'
import { clientOverrides } from './client-overrides.js'

export type PipelineFactory = (
  config: ConnectorConfig,
  workerDefaults: Readonly<Record<string, string>>,
) => RecordPipeline

export class ConnectWorker {
  readonly config: ResolvedWorkerConfig
  readonly plugins: PluginRegistry
  private readonly log: Logger
  private client: SluiceClient | undefined
  private producer: Producer | undefined
  readonly configs = new ConfigState()
  readonly offsets = new OffsetState()
  readonly statuses = new StatusState()
  private configLog: TopicLog | undefined
  private offsetLog: TopicLog | undefined
  private statusLog: TopicLog | undefined
  private group: WorkerGroup | undefined
  private work: RunningWork | undefined
  private generation = -1
  private assignment: WorkAssignment | undefined
  private readonly lane = new SerialLane()
  private lastWorkSet = ''
  private workerId = ''
  private resolveStopped: (err: unknown) => void = () => {}
  private readonly stoppedPromise = new Promise<unknown>((resolve) => {
    this.resolveStopped = resolve
  })

  constructor(
    config: WorkerConfig,
    private readonly pipelineFactory: PipelineFactory,
  ) {
    this.config = resolveWorkerConfig(config)
    this.plugins = new PluginRegistry(this.config.plugins)
    this.log = this.config.logger.child({ component: 'connect', groupId: this.config.groupId })
  }

  get id(): string {
    return this.workerId
  }

  async start(advertisedUrl?: string): Promise<void> {
    const c = this.config
    const url = advertisedUrl ?? c.advertisedUrl
    this.workerId = url === '' ? `worker-${process.pid}` : new URL(url).host
    this.client = c.client ?? (await connect({ bootstrap: [...c.bootstrap!], logger: c.logger }))
    this.producer = this.client.producer({ acks: 'all', idempotent: true, lingerMs: 0 })
    const rf = c.storageReplicationFactor !== undefined ? { replicationFactor: c.storageReplicationFactor } : {}
    this.configLog = new TopicLog(this.client, this.producer, {
      topic: c.configStorageTopic,
      partitions: 1,
      ...rf,
      logger: this.log,
      apply: (k, v) => this.onConfigRecord(k, v),
    })
    this.offsetLog = new TopicLog(this.client, this.producer, {
      topic: c.offsetStorageTopic,
      partitions: c.offsetStoragePartitions,
      ...rf,
      logger: this.log,
      apply: (k, v) => this.offsets.apply(k, v),
    })
    this.statusLog = new TopicLog(this.client, this.producer, {
      topic: c.statusStorageTopic,
      partitions: c.statusStoragePartitions,
      ...rf,
      logger: this.log,
      apply: (k, v) => this.statuses.apply(k, v),
    })
    await Promise.all([this.configLog.start(), this.offsetLog.start(), this.statusLog.start()])
    this.work = new RunningWork({
      client: this.client,
      producer: this.producer,
      plugins: this.plugins,
      logger: this.log,
      flushIntervalMs: c.offsetFlushIntervalMs,
      pipeline: (cfg) => this.pipelineFactory(cfg, c.converterConfig),
      offsetOf: async (connector, partition) => {
        await this.offsetLog!.readToEnd()
        return this.offsets.get(connector, partition)
      },
      storeOffsets: async (connector, list) => {
        await Promise.all(
          list.map((o) => this.offsetLog!.send(canonicalJson([connector, o.partition]), canonicalJson(o.offset))),
        )
      },
      writeTaskConfigs: (connector, tasks) => this.writeTaskConfigs(connector, tasks),
      reportConnector: (name, state, trace) => this.report(statusKeys.connector(name), state, trace),
      reportTask: (name, id, state, trace) => this.report(statusKeys.task(name, id), state, trace),
    })
    this.lastWorkSet = this.workSet().join(',')
    this.group = new WorkerGroup({
      client: this.client,
      groupId: c.groupId,
      topic: c.configStorageTopic,
      url,
      sessionTimeoutMs: c.sessionTimeoutMs,
      heartbeatIntervalMs: c.heartbeatIntervalMs,
      logger: this.log,
      work: () => this.workSet(),
      running: () => this.runningSet(),
      onAssignment: (a) => this.lane.run(() => this.apply(a)),
      onFatal: (err) => {
        // Running work without a group would run it twice once others take it: stop everything.
        void this.stop().then(() => this.resolveStopped(err))
      },
    })
    this.group.start()
    this.log.info({ url, groupId: c.groupId }, 'connect worker started')
  }

  /** Resolves when the worker stops: undefined after stop(), the error that stopped it otherwise. */
  stopped(): Promise<unknown> {
    return this.stoppedPromise
  }

  async stop(): Promise<void> {
    this.stopping ??= this.doStop()
    await this.stopping
    this.resolveStopped(undefined)
  }

  private stopping: Promise<void> | undefined

  private async doStop(): Promise<void> {
    await this.group?.stop()
    await this.lane.run(async () => {
      await this.work?.stopAll()
    })
    await Promise.all([this.configLog?.stop(), this.offsetLog?.stop(), this.statusLog?.stop()])
    await this.producer?.close().catch(() => {})
    if (this.config.client === undefined) await this.client?.close().catch(() => {})
  }

  /** The generation this worker last applied, and its members' URLs. */
  groupView(): { generation: number; urls: Readonly<Record<string, string>> } {
    return { generation: this.generation, urls: this.assignment?.urls ?? {} }
  }

  // ---- operations (the REST API's) ----

  /** Waits until this worker has read every config change made so far. */
  async syncConfigs(): Promise<void> {
    await this.configLog!.readToEnd()
  }

  /**
   * PUT /connectors/{name}/config: creates or replaces. A create goes through the same claim as
   * POST, so of two PUTs creating one name at once exactly one answers `created` (201) and the
   * other is an update (200), as Kafka Connect's leader-routed PUTs are; both configs are written,
   * and the later one in the config topic is the connector's.
   */
  async putConnector(name: string, config: ConnectorConfig): Promise<{ created: boolean }> {
    await this.syncConfigs()
    this.validateConnector(name, config)
    const created = this.configs.get(name) === undefined && (await this.claimName(name))
    await this.writeConnector(name, config)
    return { created }
  }

  /**
   * POST /connectors: creates the connector unless the name is taken, also by a create running
   * at the same time on another worker (the first claim in the config topic wins; config-state.ts).
   * False when the name was taken.
   */
  async createConnector(name: string, config: ConnectorConfig): Promise<boolean> {
    await this.syncConfigs()
    this.validateConnector(name, config)
    if (this.configs.get(name) !== undefined) return false
    if (!(await this.claimName(name))) return false
    await this.writeConnector(name, config)
    return true
  }

  /** Claims an absent name for its creation; true when this claim holds it (config-state.ts). */
  private async claimName(name: string): Promise<boolean> {
    const token = randomUUID()
    await this.configLog!.send(configKeys.createClaim(name), JSON.stringify({ token, at: Date.now() }))
    await this.syncConfigs()
    return this.configs.get(name) === undefined && this.configs.claimOf(name) === token
  }

  /** Checks a config before it is written, so a bad one is a 400 naming the field. */
  private validateConnector(name: string, config: ConnectorConfig): void {
    validateName(name)
    const plugin = this.plugins.resolve(config['connector.class'])
    const connector = plugin.create()
    parseConfig(connector.configDef, config)
    // Converters, transforms and client overrides are checked now, so a bad one is a 400 naming it.
    this.pipelineFactory(config, this.config.converterConfig)
    clientOverrides(config)
    const max = config['tasks.max']
    if (max !== undefined && !/^[1-9]\d*$/.test(max))
      throw configError('tasks.max', `must be a positive integer, got "${max}"`)
    this.refuseHeldResources(name, connector.exclusiveResources?.(config) ?? [])
  }

  /**
   * A 400 when another connector already holds one of `wanted` (a replication slot). Checked
   * against the configs this worker has read. Two creates racing on different names can both
   * pass; the source itself then refuses the second reader (PostgreSQL allows one per slot).
   */
  private refuseHeldResources(name: string, wanted: readonly ExclusiveResource[]): void {
    if (wanted.length === 0) return
    for (const other of this.configs.names()) {
      if (other === name) continue
      const config = this.configs.get(other)!.config
      let held: ExclusiveResource[]
      try {
        held = this.plugins.resolve(config['connector.class']).create().exclusiveResources?.(config) ?? []
      } catch {
        continue // a connector whose own config no longer parses holds nothing we can name
      }
      for (const w of wanted)
        if (held.some((h) => h.id === w.id))
          throw configError(
            w.field,
            `${w.description} is already used by connector ${other}: give this connector its own ${w.field}`,
          )
    }
  }

  private async writeConnector(name: string, config: ConnectorConfig): Promise<void> {
    await this.configLog!.send(configKeys.connector(name), JSON.stringify({ properties: { ...config, name } }))
    await this.syncConfigs()
  }

  async deleteConnector(name: string): Promise<void> {
    this.mustExist(name)
    await this.configLog!.send(configKeys.connector(name), null)
    await this.configLog!.send(configKeys.targetState(name), null)
    await this.syncConfigs()
  }

  async setTargetState(name: string, state: TargetState): Promise<void> {
    this.mustExist(name)
    await this.configLog!.send(configKeys.targetState(name), JSON.stringify({ state }))
    await this.syncConfigs()
  }

  /** Kafka's restart request; the workers running the connector or its tasks act on it. */
  async requestRestart(
    name: string,
    opts: { includeTasks: boolean; onlyFailed: boolean; task?: number },
  ): Promise<void> {
    const c = this.mustExist(name)
    if (opts.task !== undefined && c.tasks[opts.task] === undefined) {
      throw new ConnectError('NOT_FOUND', `Task ${name}-${opts.task} not found`, {
        details: { connector: name, task: opts.task },
      })
    }
    const key = opts.task !== undefined ? `restart-task-${name}-${opts.task}` : `restart-connector-${name}`
    await this.configLog!.send(
      key,
      JSON.stringify({ 'include-tasks': opts.includeTasks, 'only-failed': opts.onlyFailed, at: Date.now() }),
    )
    await this.syncConfigs()
  }

  mustExist(name: string): ConnectorState {
    const c = this.configs.get(name)
    if (c === undefined)
      throw new ConnectError('NOT_FOUND', `Connector ${name} not found`, { details: { connector: name } })
    return c
  }

  connectorType(c: ConnectorState): 'source' | 'sink' | 'unknown' {
    return this.plugins.find(c.config['connector.class'] ?? '')?.type ?? 'unknown'
  }

  async syncStatuses(): Promise<void> {
    await this.statusLog!.readToEnd()
  }

  async syncOffsets(): Promise<void> {
    await this.offsetLog!.readToEnd()
  }

  /** Writes (or, with null, removes) source offsets of a stopped connector. */
  async writeSourceOffsets(
    name: string,
    entries: ReadonlyArray<{ partition: OffsetMap; offset: OffsetMap | null }>,
  ): Promise<void> {
    for (const e of entries)
      await this.offsetLog!.send(canonicalJson([name, e.partition]), e.offset === null ? null : canonicalJson(e.offset))
    await this.offsetLog!.readToEnd()
  }

  admin(): ReturnType<SluiceClient['admin']> {
    return this.client!.admin()
  }

  // ---- applying what the config topic says ----

  private onConfigRecord(k: Buffer | null, v: Buffer | null): void {
    const key = k?.toString('utf8') ?? ''
    if (key.startsWith('restart-')) {
      void this.lane.run(() => this.restart(key, v))
      return
    }
    if (key.startsWith('create-claim-')) {
      // Changes nothing that runs: it only decides concurrent creates (createConnector).
      this.configs.apply(k, v)
      return
    }
    const before = new Map(this.configs.names().map((n) => [n, this.configs.get(n)!]))
    this.configs.apply(k, v)
    const name = key.replace(/^(connector|target-state|commit|task)-/, '').replace(/-\d+$/, '')
    if (this.work === undefined) return
    void this.lane.run(() => this.onConnectorChanged(key, name, before.get(name)))
  }

  private async onConnectorChanged(key: string, name: string, before: ConnectorState | undefined): Promise<void> {
    const now = this.configs.get(name)
    const work = this.work!
    if (now === undefined) {
      // Deleted: stop what runs here and forget its statuses.
      for (const t of work.taskIds()) if (t.name === name) await work.stopTask(t.name, t.id)
      await work.stopConnector(name)
      this.statuses.forget(name)
    } else if (key.startsWith('target-state-')) {
      if (now.targetState === 'STOPPED') {
        for (const t of work.taskIds()) if (t.name === name) await work.stopTask(t.name, t.id)
      }
      work.applyTargetState(name, now.targetState)
      // Resumed from STOPPED: the connector writes its task configs again.
      if (
        before?.targetState === 'STOPPED' &&
        now.targetState !== 'STOPPED' &&
        work.connectorState(name) !== undefined
      ) {
        await work.stopConnector(name)
        await work.startConnector(now)
      }
    } else if (key.startsWith('connector-') && before !== undefined && work.connectorConfig(name) !== undefined) {
      // A new config for a connector that runs here: restart it, so it writes new task configs.
      await work.stopConnector(name)
      await work.startConnector(now)
    }
    // Task configs changed for tasks that run here: restart them with the new ones.
    if (key.startsWith('commit-') && now !== undefined) {
      for (const t of work.taskIds()) {
        if (t.name !== name) continue
        const fresh = now.tasks[t.id]
        if (fresh === undefined || canonicalJson(fresh) !== canonicalJson(work.taskConfig(t.name, t.id) ?? {})) {
          await work.stopTask(t.name, t.id)
          if (fresh !== undefined && this.assignment?.work.includes(taskWorkId(name, t.id)))
            await work.startTask(now, t.id)
        }
      }
    }
    const set = this.workSet().join(',')
    if (set !== this.lastWorkSet) {
      this.lastWorkSet = set
      this.group?.rebalance(`the work of connector ${name} changed`)
    }
  }

  private async restart(key: string, v: Buffer | null): Promise<void> {
    if (this.work === undefined || v === null) return
    let req: { 'include-tasks'?: boolean; 'only-failed'?: boolean }
    try {
      req = JSON.parse(v.toString('utf8')) as typeof req
    } catch {
      return
    }
    const work = this.work
    const onlyFailed = req['only-failed'] === true
    const task = /^restart-task-(.+)-(\d+)$/.exec(key)
    const name = task !== null ? task[1]! : key.slice('restart-connector-'.length)
    const c = this.configs.get(name)
    if (c === undefined) return
    const restartTask = async (id: number): Promise<void> => {
      if (work.taskConfig(name, id) === undefined) return
      if (onlyFailed && work.taskState(name, id) !== 'FAILED') return
      this.report(statusKeys.task(name, id), 'RESTARTING')
      await work.stopTask(name, id)
      await work.startTask(c, id)
    }
    if (task !== null) {
      await restartTask(Number(task[2]))
      return
    }
    if (work.connectorState(name) !== undefined && (!onlyFailed || work.connectorState(name) === 'FAILED')) {
      this.report(statusKeys.connector(name), 'RESTARTING')
      await work.stopConnector(name)
      await work.startConnector(c)
    }
    if (req['include-tasks'] === true) for (const t of work.taskIds()) if (t.name === name) await restartTask(t.id)
  }

  /** A new generation: stop what is no longer ours, start what is new (after reading the configs). */
  private async apply(a: WorkAssignment): Promise<void> {
    await this.syncConfigs().catch((err: unknown) => {
      this.log.warn({ err }, 'the config topic could not be read to its end before applying an assignment')
    })
    this.generation = a.generation
    this.assignment = a
    const work = this.work!
    const wanted = new Set(a.work)
    let gaveUp = false
    for (const t of work.taskIds())
      if (!wanted.has(taskWorkId(t.name, t.id))) {
        await work.stopTask(t.name, t.id)
        gaveUp = true
      }
    for (const n of work.connectorNames())
      if (!wanted.has(connectorWorkId(n))) {
        await work.stopConnector(n)
        gaveUp = true
      }
    const running = new Set(this.runningSet())
    for (const id of a.work) {
      if (running.has(id)) continue
      const w = parseWorkId(id)
      const c = w === undefined ? undefined : this.configs.get(w.name)
      if (w === undefined || c === undefined) continue
      if (w.kind === 'connector') await work.startConnector(c)
      else if (c.targetState !== 'STOPPED') await work.startTask(c, w.task)
    }
    this.log.info({ generation: a.generation, work: a.work }, 'assignment applied')
    // Work given up may be waiting for a worker (work-assignment.ts): place it now.
    if (gaveUp) this.group?.rebalance('gave up work for another worker')
  }

  private workSet(): string[] {
    const out: string[] = []
    for (const name of this.configs.names()) {
      const c = this.configs.get(name)!
      out.push(connectorWorkId(name))
      if (c.targetState !== 'STOPPED') for (let i = 0; i < c.tasks.length; i++) out.push(taskWorkId(name, i))
    }
    return out
  }

  private runningSet(): string[] {
    if (this.work === undefined) return []
    return [
      ...this.work.connectorNames().map(connectorWorkId),
      ...this.work.taskIds().map((t) => taskWorkId(t.name, t.id)),
    ]
  }

  private async writeTaskConfigs(name: string, tasks: ConnectorConfig[]): Promise<void> {
    const current = this.configs.get(name)
    if (current !== undefined && canonicalJson(current.tasks) === canonicalJson(tasks)) return
    for (let i = 0; i < tasks.length; i++)
      await this.configLog!.send(configKeys.task(name, i), JSON.stringify({ properties: tasks[i] }))
    await this.configLog!.send(configKeys.commit(name), JSON.stringify({ tasks: tasks.length }))
  }

  private report(key: string, state: ConnectState, trace?: string): void {
    const value = JSON.stringify({
      state,
      ...(trace !== undefined ? { trace } : {}),
      worker_id: this.workerId,
      generation: this.generation,
    })
    this.statusLog?.send(key, value).catch((err: unknown) => {
      this.log.warn({ err, key, state }, 'writing a status failed')
    })
  }
}

function validateName(name: string): void {
  // Names go into URLs and record keys: no slashes, no control characters, no outer spaces.
  const usable =
    name.length > 0 &&
    name.length <= 249 &&
    name.trim() === name &&
    ![...name].some((ch) => ch === '/' || ch === '\\' || ch.charCodeAt(0) < 0x20)
  if (!usable) throw configError('name', `not a usable connector name: "${name}"`)
}
