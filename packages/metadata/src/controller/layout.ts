/**
 * Where the controller keeps its state in the store: Kafka's ZooKeeper layout (docs/kafka-facts.md §7.1),
 * and the JSON codecs for each znode. Parsers validate shape strictly and throw
 * METADATA_UNAVAILABLE naming the node, so a damaged tree is reported, never half-loaded.
 *
 *   /cluster/id                               {"version":"1","id":"<22-char base64url>"}
 *   /controller                   ephemeral   {"version":1,"brokerid":N,"timestamp":"<ms>"}
 *   /controller_epoch                         "<int>"
 *   /brokers/ids/<id>             ephemeral   {"version":1,host,port,rack,admin_port,kafka_host,kafka_port,broker_epoch,timestamp}
 *   /brokers/epoch                            "<int>": the last broker epoch handed out (only grows)
 *   /brokers/topics/<t>                       {"version":3,"topic_id":"...","partitions":{"0":[1,2,3],...}}
 *   /brokers/topics/<t>/partitions/<p>/state  {"version":1,leader,leader_epoch,isr,controller_epoch,partition_epoch}
 *   /config/topics/<t>                        {"version":1,"config":{name: "value", ...}}  (overrides only)
 *   /latest_producer_id_block                 {"version":1,"broker":N,"block_start":"0","block_end":"999"}
 */
import { randomBytes } from 'node:crypto'
import { SluiceError } from '@sluice/protocol'

export const PATHS = {
  clusterId: '/cluster/id',
  controller: '/controller',
  controllerEpoch: '/controller_epoch',
  brokerIds: '/brokers/ids',
  brokerEpoch: '/brokers/epoch',
  topics: '/brokers/topics',
  topicConfigs: '/config/topics',
  producerIdBlock: '/latest_producer_id_block',
  /** Sluice only: one ephemeral child per running metadata-service instance, with its endpoint. */
  metadataInstances: '/metadata_instances',
} as const

export const brokerPath = (id: number): string => `${PATHS.brokerIds}/${id}`
export const topicPath = (topic: string): string => `${PATHS.topics}/${topic}`
export const partitionsPath = (topic: string): string => `${PATHS.topics}/${topic}/partitions`
export const partitionPath = (topic: string, p: number): string => `${PATHS.topics}/${topic}/partitions/${p}`
export const statePath = (topic: string, p: number): string => `${PATHS.topics}/${topic}/partitions/${p}/state`
export const topicConfigPath = (topic: string): string => `${PATHS.topicConfigs}/${topic}`
export const instancePath = (controllerId: number): string => `${PATHS.metadataInstances}/${controllerId}`

/** Kafka's Uuid text form: 16 random bytes, base64url without padding (22 characters). */
export function newKafkaUuid(): string {
  return randomBytes(16).toString('base64url')
}

export interface BrokerRecord {
  readonly id: number
  readonly host: string
  readonly port: number
  readonly rack: string
  readonly adminPort: number
  /** The advertised Kafka listener; '' and 0 when the broker has none. */
  readonly kafkaHost: string
  readonly kafkaPort: number
  readonly brokerEpoch: bigint
  readonly timestampMs: number
}

export interface TopicRecord {
  readonly name: string
  readonly topicId: string
  /** Index = partition id; each list in preference order (first = preferred leader). */
  readonly assignment: readonly (readonly number[])[]
}

export interface PartitionStateRecord {
  readonly leader: number
  readonly leaderEpoch: number
  readonly isr: readonly number[]
  readonly controllerEpoch: number
  readonly partitionEpoch: number
}

export interface ProducerIdBlock {
  readonly start: bigint
  readonly end: bigint
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v), 'utf8')

function parse(path: string, data: Buffer): Record<string, unknown> {
  let v: unknown
  try {
    v = JSON.parse(data.toString('utf8'))
  } catch {
    throw damaged(path, 'is not JSON')
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw damaged(path, 'is not a JSON object')
  return v as Record<string, unknown>
}

function damaged(path: string, why: string): SluiceError {
  return new SluiceError('METADATA_UNAVAILABLE', `metadata node ${path} ${why}`, { path })
}

function int(path: string, v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw damaged(path, `has a bad "${field}"`)
  return v
}

function intList(path: string, v: unknown, field: string): number[] {
  if (!Array.isArray(v)) throw damaged(path, `has a bad "${field}"`)
  return v.map((x) => int(path, x, field))
}

export const encodeClusterId = (id: string): Buffer => json({ version: '1', id })
export function decodeClusterId(data: Buffer): string {
  const o = parse(PATHS.clusterId, data)
  if (typeof o.id !== 'string' || o.id === '') throw damaged(PATHS.clusterId, 'has no id')
  return o.id
}

export const encodeInt = (n: number | bigint): Buffer => Buffer.from(String(n), 'utf8')
export function decodeInt(path: string, data: Buffer): number {
  const t = data.toString('utf8').trim()
  if (!/^\d+$/.test(t)) throw damaged(path, 'is not an integer')
  return Number(t)
}
export function decodeBigInt(path: string, data: Buffer): bigint {
  const t = data.toString('utf8').trim()
  if (!/^\d+$/.test(t)) throw damaged(path, 'is not an integer')
  return BigInt(t)
}

/** Kafka's /controller JSON (brokerid = the controller id), plus the epoch and where to reach it. */
export const encodeController = (id: number, epoch: number, endpoint: string): Buffer =>
  json({ version: 1, brokerid: id, timestamp: String(Date.now()), controller_epoch: epoch, endpoint })
export function decodeControllerNode(path: string, data: Buffer): { id: number; epoch?: number; endpoint?: string } {
  const o = parse(path, data)
  return {
    id: int(path, o.brokerid, 'brokerid'),
    ...(typeof o.controller_epoch === 'number' ? { epoch: o.controller_epoch } : {}),
    ...(typeof o.endpoint === 'string' ? { endpoint: o.endpoint } : {}),
  }
}

export const encodeInstance = (id: number, endpoint: string): Buffer => json({ version: 1, id, endpoint })
export function decodeInstance(path: string, data: Buffer): { id: number; endpoint: string } {
  const o = parse(path, data)
  if (typeof o.endpoint !== 'string' || o.endpoint === '') throw damaged(path, 'has no endpoint')
  return { id: int(path, o.id, 'id'), endpoint: o.endpoint }
}

export function encodeBroker(b: BrokerRecord): Buffer {
  return json({
    version: 1,
    host: b.host,
    port: b.port,
    rack: b.rack,
    admin_port: b.adminPort,
    kafka_host: b.kafkaHost,
    kafka_port: b.kafkaPort,
    broker_epoch: b.brokerEpoch.toString(),
    timestamp: String(b.timestampMs),
  })
}

export function encodeTopic(t: TopicRecord): Buffer {
  const partitions: Record<string, readonly number[]> = {}
  t.assignment.forEach((replicas, p) => {
    partitions[String(p)] = replicas
  })
  return json({ version: 3, topic_id: t.topicId, partitions })
}

export function decodeTopic(name: string, data: Buffer): TopicRecord {
  const path = topicPath(name)
  const o = parse(path, data)
  if (typeof o.topic_id !== 'string' || o.topic_id === '') throw damaged(path, 'has no topic_id')
  const parts = o.partitions
  if (parts === null || typeof parts !== 'object' || Array.isArray(parts)) throw damaged(path, 'has no partitions map')
  const entries = Object.entries(parts as Record<string, unknown>)
  const assignment: number[][] = new Array<number[]>(entries.length)
  for (const [key, replicas] of entries) {
    const p = Number(key)
    if (!Number.isInteger(p) || p < 0 || p >= entries.length) throw damaged(path, `has partition "${key}" out of range`)
    assignment[p] = intList(path, replicas, `partitions.${key}`)
  }
  return { name, topicId: o.topic_id, assignment }
}

export function encodeState(s: PartitionStateRecord): Buffer {
  return json({
    version: 1,
    leader: s.leader,
    leader_epoch: s.leaderEpoch,
    isr: s.isr,
    controller_epoch: s.controllerEpoch,
    partition_epoch: s.partitionEpoch,
  })
}

export function decodeState(path: string, data: Buffer): PartitionStateRecord {
  const o = parse(path, data)
  return {
    leader: int(path, o.leader, 'leader'),
    leaderEpoch: int(path, o.leader_epoch, 'leader_epoch'),
    isr: intList(path, o.isr, 'isr'),
    controllerEpoch: int(path, o.controller_epoch, 'controller_epoch'),
    partitionEpoch: o.partition_epoch === undefined ? 0 : int(path, o.partition_epoch, 'partition_epoch'),
  }
}

export const encodeTopicConfig = (config: Readonly<Record<string, string>>): Buffer => json({ version: 1, config })

export function decodeTopicConfig(path: string, data: Buffer): Record<string, string> {
  const o = parse(path, data)
  const c = o.config
  if (c === null || typeof c !== 'object' || Array.isArray(c)) throw damaged(path, 'has no config map')
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(c as Record<string, unknown>)) {
    if (typeof v !== 'string') throw damaged(path, `has a non-string value for "${k}"`)
    out[k] = v
  }
  return out
}

export function encodeProducerIdBlock(controllerId: number, b: ProducerIdBlock): Buffer {
  return json({ version: 1, broker: controllerId, block_start: b.start.toString(), block_end: b.end.toString() })
}

export function decodeProducerIdBlock(data: Buffer): ProducerIdBlock {
  const o = parse(PATHS.producerIdBlock, data)
  if (
    typeof o.block_start !== 'string' ||
    typeof o.block_end !== 'string' ||
    !/^\d+$/.test(o.block_start) ||
    !/^\d+$/.test(o.block_end)
  )
    throw damaged(PATHS.producerIdBlock, 'has a bad block')
  return { start: BigInt(o.block_start), end: BigInt(o.block_end) }
}
