/**
 * The routes of Kafka Connect's REST API that Sluice covers (docs/connect.md, "REST API"), each
 * answering as Kafka Connect does, so scripts and tools written for it work unchanged.
 */
import { validateConfig, type ConnectorConfig } from '../api/config-def.js'
import { ConnectError, configError } from '../errors.js'
import type { ConnectorState } from '../storage/config-state.js'
import type { OffsetMap } from '../storage/offset-store.js'
import { sinkGroupId } from '../worker/sink-task-runner.js'
import type { ConnectWorker } from '../worker/connect-worker.js'
import { HttpError } from './http-io.js'

export interface RouteResult {
  readonly status: number
  readonly body?: unknown
}

type Handler = (
  w: ConnectWorker,
  p: Record<string, string>,
  body: unknown,
  query: URLSearchParams,
) => Promise<RouteResult>

interface Route {
  readonly method: string
  readonly pattern: RegExp
  readonly names: readonly string[]
  readonly handler: Handler
}

const routes: Route[] = []

function route(method: string, path: string, handler: Handler): void {
  const names: string[] = []
  const pattern = new RegExp(
    `^${path.replace(/\{(\w+)\}/g, (_m, n: string) => {
      names.push(n)
      return '([^/]+)'
    })}/?$`,
  )
  routes.push({ method, pattern, names, handler })
}

/** The handler for a method and path, or an HttpError (404 unknown path, 405 wrong method). */
export function findRoute(method: string, path: string): { handler: Handler; params: Record<string, string> } {
  let pathKnown = false
  for (const r of routes) {
    const m = r.pattern.exec(path)
    if (m === null) continue
    pathKnown = true
    if (r.method !== method) continue
    const params: Record<string, string> = {}
    r.names.forEach((n, i) => {
      params[n] = decodeURIComponent(m[i + 1]!)
    })
    return { handler: r.handler, params }
  }
  throw pathKnown
    ? new HttpError(405, `${method} is not allowed on ${path}`)
    : new HttpError(404, `no such resource: ${path}`)
}

function configOf(body: unknown, field = 'config'): ConnectorConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw configError(field, 'must be a JSON object of strings')
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === null || typeof v === 'object') throw configError(k, 'config values must be strings')
    out[k] = String(v)
  }
  return out
}

function info(w: ConnectWorker, c: ConnectorState): unknown {
  return {
    name: c.name,
    config: c.config,
    tasks: c.tasks.map((_t, task) => ({ connector: c.name, task })),
    type: w.connectorType(c),
  }
}

async function status(w: ConnectWorker, c: ConnectorState): Promise<unknown> {
  await w.syncStatuses()
  const s = w.statuses.connector(c.name)
  return {
    name: c.name,
    connector: {
      state: c.targetState === 'STOPPED' ? 'STOPPED' : (s?.state ?? 'UNASSIGNED'),
      worker_id: s?.worker_id ?? '',
      ...(s?.trace !== undefined && s.state === 'FAILED' ? { trace: s.trace } : {}),
    },
    tasks: c.tasks.map((_t, id) => taskStatus(w, c.name, id)),
    type: w.connectorType(c),
  }
}

function taskStatus(w: ConnectWorker, name: string, id: number): unknown {
  const s = w.statuses.task(name, id)
  return {
    id,
    state: s?.state ?? 'UNASSIGNED',
    worker_id: s?.worker_id ?? '',
    ...(s?.trace !== undefined && s.state === 'FAILED' ? { trace: s.trace } : {}),
  }
}

async function existing(w: ConnectWorker, name: string): Promise<ConnectorState> {
  await w.syncConfigs()
  return w.mustExist(name)
}

function taskIdOf(p: Record<string, string>): number {
  const id = Number(p.task)
  if (!/^\d+$/.test(p.task ?? '')) throw new ConnectError('NOT_FOUND', `Task ${p.name}-${p.task} not found`)
  return id
}

route('GET', '/', async () => ({
  status: 200,
  body: { version: '0.1.0-sluice', commit: 'sluice', kafka_cluster_id: 'sluice' },
}))
route('GET', '/health', async () => ({
  status: 200,
  body: { status: 'healthy', message: 'Worker has completed startup and is ready to handle requests.' },
}))

route('GET', '/connectors', async (w, _p, _b, q) => {
  await w.syncConfigs()
  const names = w.configs.names()
  const expand = q.getAll('expand')
  if (expand.length === 0) return { status: 200, body: names }
  const out: Record<string, Record<string, unknown>> = {}
  for (const n of names) {
    const c = w.configs.get(n)!
    out[n] = {}
    if (expand.includes('info')) out[n].info = info(w, c)
    if (expand.includes('status')) out[n].status = await status(w, c)
  }
  return { status: 200, body: out }
})

route('POST', '/connectors', async (w, _p, body) => {
  const b = body as { name?: unknown; config?: unknown } | undefined
  if (typeof b?.name !== 'string' || b.name === '') throw configError('name', 'the request needs a connector name')
  const config = configOf(b.config ?? {})
  if (config.name !== undefined && config.name !== b.name)
    throw configError('name', `the name in the config (${config.name}) differs from the connector name (${b.name})`)
  if (!(await w.createConnector(b.name, config)))
    throw new ConnectError('CONFLICT', `Connector ${b.name} already exists`)
  return { status: 201, body: info(w, w.mustExist(b.name)) }
})

route('GET', '/connectors/{name}', async (w, p) => ({ status: 200, body: info(w, await existing(w, p.name!)) }))
route('GET', '/connectors/{name}/config', async (w, p) => ({ status: 200, body: (await existing(w, p.name!)).config }))

route('PUT', '/connectors/{name}/config', async (w, p, body) => {
  const config = configOf(body)
  if (config.name !== undefined && config.name !== p.name)
    throw configError('name', `the name in the config (${config.name}) differs from the connector name (${p.name})`)
  const { created } = await w.putConnector(p.name!, config)
  return { status: created ? 201 : 200, body: info(w, w.mustExist(p.name!)) }
})

route('PATCH', '/connectors/{name}/config', async (w, p, body) => {
  const c = await existing(w, p.name!)
  if (typeof body !== 'object' || body === null) throw configError('config', 'must be a JSON object')
  const merged: Record<string, string> = { ...c.config }
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (v === null) delete merged[k]
    else merged[k] = String(v)
  }
  await w.putConnector(p.name!, merged)
  return { status: 200, body: info(w, w.mustExist(p.name!)) }
})

route('DELETE', '/connectors/{name}', async (w, p) => {
  await existing(w, p.name!)
  await w.deleteConnector(p.name!)
  return { status: 204 }
})

route('GET', '/connectors/{name}/status', async (w, p) => ({
  status: 200,
  body: await status(w, await existing(w, p.name!)),
}))

route('GET', '/connectors/{name}/tasks', async (w, p) => {
  const c = await existing(w, p.name!)
  return { status: 200, body: c.tasks.map((config, task) => ({ id: { connector: c.name, task }, config })) }
})

route('GET', '/connectors/{name}/tasks/{task}/status', async (w, p) => {
  const c = await existing(w, p.name!)
  const id = taskIdOf(p)
  if (c.tasks[id] === undefined) throw new ConnectError('NOT_FOUND', `Task ${c.name}-${id} not found`)
  await w.syncStatuses()
  return { status: 200, body: taskStatus(w, c.name, id) }
})

route('POST', '/connectors/{name}/restart', async (w, p, _b, q) => {
  const c = await existing(w, p.name!)
  const includeTasks = q.get('includeTasks') === 'true'
  const onlyFailed = q.get('onlyFailed') === 'true'
  await w.requestRestart(c.name, { includeTasks, onlyFailed })
  // Kafka answers 204 to a plain restart and 202 with the status when tasks are included.
  if (!includeTasks && !onlyFailed) return { status: 204 }
  return { status: 202, body: await status(w, c) }
})

route('POST', '/connectors/{name}/tasks/{task}/restart', async (w, p) => {
  const c = await existing(w, p.name!)
  await w.requestRestart(c.name, { includeTasks: false, onlyFailed: false, task: taskIdOf(p) })
  return { status: 204 }
})

route('PUT', '/connectors/{name}/pause', async (w, p) => {
  await existing(w, p.name!)
  await w.setTargetState(p.name!, 'PAUSED')
  return { status: 202 }
})

route('PUT', '/connectors/{name}/resume', async (w, p) => {
  await existing(w, p.name!)
  await w.setTargetState(p.name!, 'STARTED')
  return { status: 202 }
})

route('PUT', '/connectors/{name}/stop', async (w, p) => {
  await existing(w, p.name!)
  await w.setTargetState(p.name!, 'STOPPED')
  return { status: 204 }
})

route('GET', '/connectors/{name}/offsets', async (w, p) => {
  const c = await existing(w, p.name!)
  if (w.connectorType(c) === 'sink') {
    const offsets = await w.admin().fetchOffsets(sinkGroupId(c.name))
    return {
      status: 200,
      body: {
        offsets: offsets.map((o) => ({
          partition: { kafka_topic: o.topic, kafka_partition: o.partition },
          offset: { kafka_offset: Number(o.offset) },
        })),
      },
    }
  }
  await w.syncOffsets()
  return { status: 200, body: { offsets: w.offsets.of(c.name) } }
})

async function alterOffsets(
  w: ConnectWorker,
  c: ConnectorState,
  entries: Array<{ partition: OffsetMap; offset: OffsetMap | null }>,
): Promise<void> {
  if (c.targetState !== 'STOPPED')
    throw new HttpError(
      400,
      `Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/${c.name}/stop' endpoint`,
    )
  if (w.connectorType(c) === 'sink') {
    for (const e of entries) {
      const topic = e.partition.kafka_topic
      const partition = e.partition.kafka_partition
      if (typeof topic !== 'string' || typeof partition !== 'number')
        throw configError('offsets', 'a sink offset names kafka_topic and kafka_partition')
      const to = e.offset === null ? ('earliest' as const) : { offset: BigInt(Number(e.offset.kafka_offset)) }
      await w.admin().resetOffsets(sinkGroupId(c.name), { topic, partitions: [partition], to })
    }
    return
  }
  await w.writeSourceOffsets(c.name, entries)
}

route('PATCH', '/connectors/{name}/offsets', async (w, p, body) => {
  const c = await existing(w, p.name!)
  const list = (body as { offsets?: unknown } | undefined)?.offsets
  if (!Array.isArray(list)) throw configError('offsets', 'the body needs an "offsets" array')
  const entries = list.map((e: { partition?: unknown; offset?: unknown }) => {
    if (typeof e?.partition !== 'object' || e.partition === null)
      throw configError('offsets', 'each entry needs a partition object')
    return { partition: e.partition as OffsetMap, offset: (e.offset ?? null) as OffsetMap | null }
  })
  await alterOffsets(w, c, entries)
  return { status: 200, body: { message: 'The offsets for this connector have been altered successfully' } }
})

route('DELETE', '/connectors/{name}/offsets', async (w, p) => {
  const c = await existing(w, p.name!)
  if (w.connectorType(c) === 'sink') {
    if (c.targetState !== 'STOPPED') await alterOffsets(w, c, [])
    await w
      .admin()
      .deleteGroups([sinkGroupId(c.name)])
      .catch((err: { code?: string }) => {
        if (err.code !== 'GROUP_ID_NOT_FOUND') throw err
      })
  } else {
    await w.syncOffsets()
    await alterOffsets(
      w,
      c,
      w.offsets.of(c.name).map((o) => ({ partition: o.partition, offset: null })),
    )
  }
  return { status: 200, body: { message: 'The offsets for this connector have been reset successfully' } }
})

route('GET', '/connector-plugins', async (w) => ({
  status: 200,
  body: w.plugins.list().map((p) => ({ class: p.className, type: p.type, version: p.create().version })),
}))

route('PUT', '/connector-plugins/{plugin}/config/validate', async (w, p, body) => {
  const plugin = w.plugins.find(p.plugin!)
  if (plugin === undefined) throw new ConnectError('NOT_FOUND', `Plugin ${p.plugin} not found`)
  const config = configOf(body)
  const defs = plugin.create().configDef
  const results = validateConfig(defs, config)
  const configs = results.map((r, i) => {
    const d = defs[i]!
    return {
      definition: {
        name: d.name,
        type: d.type.toUpperCase(),
        required: d.default === undefined,
        default_value: d.default ?? null,
        importance: d.default === undefined ? 'HIGH' : 'MEDIUM',
        documentation: d.doc,
        group: d.group ?? 'Common',
        order: i,
        width: 'NONE',
        display_name: d.name,
        dependents: [],
      },
      value: { name: r.name, value: r.value, recommended_values: d.oneOf ?? [], errors: r.errors, visible: true },
    }
  })
  return {
    status: 200,
    body: {
      name: plugin.className,
      error_count: configs.reduce((n, c) => n + c.value.errors.length, 0),
      groups: [...new Set(configs.map((c) => c.definition.group))],
      configs,
    },
  }
})
