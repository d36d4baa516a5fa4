/**
 * The bytes a streams instance and the group leader exchange through the consumer protocol's
 * userData fields (the SDK's custom assignor carries them; docs/streams.md, "Task assignment").
 *
 * Subscription userData (member -> leader), version 1, big-endian:
 *   uint8 version, string instanceId, string endpoint ('' = no interactive-query endpoint),
 *   uint32 n, n x {int32 subtopology, int32 partition}            tasks active in the last generation
 *   uint32 n, n x {int32 subtopology, int32 partition, float64 lag} other tasks with local state
 * Assignment userData (leader -> member), version 1:
 *   uint8 version,
 *   uint32 n, n x {int32 subtopology, int32 partition}             active tasks
 *   uint32 n, n x {int32 subtopology, int32 partition}             standby tasks
 *   uint32 n, n x {string endpoint, uint32 t, t x {string topic, uint32 p, p x int32 partition}}
 *                                                                  active partitions by endpoint
 * Version 2 appends to the assignment (the subscription is unchanged):
 *   uint32 n, n x {int32 subtopology, uint32 t, t x string topic}   every sub-topology's source topics
 *   (so a reader outside the application, `sluice streams describe`, can tell a partition's task).
 *   string = uint16 length + UTF-8.
 *
 * Later versions only append fields, so a reader reads a higher version as the highest it knows
 * and ignores the rest (members of two releases can share a group during a rolling upgrade).
 * Bad bytes (truncated, version 0, impossible counts, bad numbers) are a StreamsError 'RUNTIME'
 * naming the field, never a crash.
 */
import type { TopicPartition } from '@sluice/client'
import type { TaskId } from '../../api/task-id.js'
import { StreamsError } from '../../errors.js'

export const STREAMS_USER_DATA_VERSION = 2

/** A task with local state that was not active here in the last generation (a standby, or left over). */
export interface TaskLag {
  readonly task: TaskId
  /** Changelog records this copy is behind the changelog end, summed over the task's stores (0 = caught up). */
  readonly lag: number
}

export interface StreamsSubscriptionInfo {
  /** Stable across restarts (it names the state directory): no two of its members get copies of one task. */
  readonly instanceId: string
  /** `host:port` of the instance's interactive-query endpoint, '' without one. */
  readonly endpoint: string
  /** Tasks this member ran as active in the last generation (kept even after an eager revocation). */
  readonly activeTasks: readonly TaskId[]
  /** Other tasks whose state this member holds (standbys, or tasks it ran before), with their lag. */
  readonly standbyTasks: readonly TaskLag[]
}

export interface StreamsAssignmentInfo {
  readonly activeTasks: readonly TaskId[]
  readonly standbyTasks: readonly TaskId[]
  /** Endpoint -> the source partitions of the tasks active there; every instance routes key queries with it. */
  readonly partitionsByEndpoint: ReadonlyMap<string, readonly TopicPartition[]>
  /**
   * Version 2: sub-topology id -> its source topics, the same for every member (absent when
   * empty or from a version 1 leader). Task `s_p` reads partition p of each of them.
   */
  readonly subtopologySources?: ReadonlyMap<number, readonly string[]>
}

function bad(what: string, message: string): StreamsError {
  return new StreamsError('RUNTIME', `streams ${what} userData: ${message}`, { details: { what } })
}

class Writer {
  private readonly parts: Buffer[] = []
  constructor(private readonly what: string) {}

  private fixed(n: number, write: (b: Buffer) => void): this {
    const b = Buffer.alloc(n)
    write(b)
    this.parts.push(b)
    return this
  }
  uint8(v: number): this {
    return this.fixed(1, (b) => b.writeUInt8(v))
  }
  uint32(v: number): this {
    return this.fixed(4, (b) => b.writeUInt32BE(v))
  }
  int32(v: number, field: string): this {
    if (!Number.isInteger(v) || v < 0 || v > 0x7fffffff)
      throw bad(this.what, `${field} must be an int32 >= 0, got ${v}`)
    return this.fixed(4, (b) => b.writeInt32BE(v))
  }
  float64(v: number, field: string): this {
    if (!Number.isFinite(v) || v < 0) throw bad(this.what, `${field} must be a finite number >= 0, got ${v}`)
    return this.fixed(8, (b) => b.writeDoubleBE(v))
  }
  string(s: string, field: string): this {
    if (typeof s !== 'string') throw bad(this.what, `${field} must be a string`)
    const bytes = Buffer.from(s, 'utf8')
    if (bytes.length > 0xffff) throw bad(this.what, `${field} is ${bytes.length} bytes, above 65535`)
    this.fixed(2, (b) => b.writeUInt16BE(bytes.length))
    this.parts.push(bytes)
    return this
  }
  tasks(tasks: readonly TaskId[]): this {
    this.uint32(tasks.length)
    for (const t of tasks) this.int32(t.subtopology, 'subtopology').int32(t.partition, 'partition')
    return this
  }
  done(): Buffer {
    return Buffer.concat(this.parts)
  }
}

class Reader {
  private at = 0
  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private need(n: number, field: string): void {
    if (this.at + n > this.buf.length)
      throw bad(this.what, `truncated at ${field} (needed ${n} byte(s) at ${this.at} of ${this.buf.length})`)
  }
  uint8(field: string): number {
    this.need(1, field)
    return this.buf.readUInt8(this.at++)
  }
  /** A count of elements of at least `minBytes` each: a larger one cannot fit and is corrupt. */
  count(field: string, minBytes: number): number {
    this.need(4, field)
    const n = this.buf.readUInt32BE(this.at)
    this.at += 4
    if (n * minBytes > this.buf.length - this.at)
      throw bad(this.what, `${field} count ${n} does not fit the bytes left`)
    return n
  }
  int32(field: string): number {
    this.need(4, field)
    const v = this.buf.readInt32BE(this.at)
    this.at += 4
    if (v < 0) throw bad(this.what, `negative ${field} ${v}`)
    return v
  }
  float64(field: string): number {
    this.need(8, field)
    const v = this.buf.readDoubleBE(this.at)
    this.at += 8
    if (!Number.isFinite(v) || v < 0) throw bad(this.what, `bad ${field} ${v}`)
    return v
  }
  string(field: string): string {
    this.need(2, field)
    const n = this.buf.readUInt16BE(this.at)
    this.at += 2
    this.need(n, field)
    const s = this.buf.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }
  tasks(field: string): TaskId[] {
    const out: TaskId[] = []
    for (let n = this.count(field, 8); n > 0; n--)
      out.push({ subtopology: this.int32(`${field} subtopology`), partition: this.int32(`${field} partition`) })
    return out
  }
  version(): number {
    const v = this.uint8('version')
    if (v < 1) throw bad(this.what, `unknown version ${v}`)
    return v
  }
}

function asBuffer(buf: unknown, what: string): Buffer {
  if (!Buffer.isBuffer(buf)) throw bad(what, 'missing (the member sent no streams userData)')
  return buf
}

export function encodeSubscriptionInfo(info: StreamsSubscriptionInfo): Buffer {
  const w = new Writer('subscription')
    .uint8(STREAMS_USER_DATA_VERSION)
    .string(info.instanceId, 'instanceId')
    .string(info.endpoint, 'endpoint')
    .tasks(info.activeTasks)
    .uint32(info.standbyTasks.length)
  for (const s of info.standbyTasks)
    w.int32(s.task.subtopology, 'subtopology').int32(s.task.partition, 'partition').float64(s.lag, 'lag')
  return w.done()
}

export function decodeSubscriptionInfo(buf: Buffer | null): StreamsSubscriptionInfo {
  const r = new Reader(asBuffer(buf, 'subscription'), 'subscription')
  r.version()
  const instanceId = r.string('instanceId')
  const endpoint = r.string('endpoint')
  const activeTasks = r.tasks('active task')
  const standbyTasks: TaskLag[] = []
  for (let n = r.count('standby task', 16); n > 0; n--) {
    const task = { subtopology: r.int32('standby subtopology'), partition: r.int32('standby partition') }
    standbyTasks.push({ task, lag: r.float64('standby lag') })
  }
  return { instanceId, endpoint, activeTasks, standbyTasks }
}

export function encodeAssignmentInfo(info: StreamsAssignmentInfo): Buffer {
  const w = new Writer('assignment')
    .uint8(STREAMS_USER_DATA_VERSION)
    .tasks(info.activeTasks)
    .tasks(info.standbyTasks)
    .uint32(info.partitionsByEndpoint.size)
  for (const [endpoint, tps] of info.partitionsByEndpoint) {
    const byTopic = new Map<string, number[]>()
    for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition])
    w.string(endpoint, 'endpoint').uint32(byTopic.size)
    for (const [topic, partitions] of byTopic) {
      w.string(topic, 'topic').uint32(partitions.length)
      for (const p of partitions) w.int32(p, 'partition')
    }
  }
  const sources = info.subtopologySources ?? new Map<number, readonly string[]>()
  w.uint32(sources.size)
  for (const [id, topics] of sources) {
    w.int32(id, 'subtopology').uint32(topics.length)
    for (const topic of topics) w.string(topic, 'source topic')
  }
  return w.done()
}

export function decodeAssignmentInfo(buf: Buffer | null): StreamsAssignmentInfo {
  const r = new Reader(asBuffer(buf, 'assignment'), 'assignment')
  const version = r.version()
  const activeTasks = r.tasks('active task')
  const standbyTasks = r.tasks('standby task')
  const partitionsByEndpoint = new Map<string, TopicPartition[]>()
  for (let n = r.count('endpoint', 6); n > 0; n--) {
    const endpoint = r.string('endpoint')
    const tps = partitionsByEndpoint.get(endpoint) ?? []
    for (let t = r.count('topic', 6); t > 0; t--) {
      const topic = r.string('topic')
      for (let p = r.count('partition', 4); p > 0; p--) tps.push({ topic, partition: r.int32('partition') })
    }
    partitionsByEndpoint.set(endpoint, tps)
  }
  if (version < 2) return { activeTasks, standbyTasks, partitionsByEndpoint }
  const subtopologySources = new Map<number, string[]>()
  for (let n = r.count('subtopology', 8); n > 0; n--) {
    const id = r.int32('subtopology')
    const topics: string[] = []
    for (let t = r.count('source topic', 2); t > 0; t--) topics.push(r.string('source topic'))
    subtopologySources.set(id, topics)
  }
  return {
    activeTasks,
    standbyTasks,
    partitionsByEndpoint,
    ...(subtopologySources.size > 0 ? { subtopologySources } : {}),
  }
}
