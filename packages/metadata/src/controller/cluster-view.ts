/**
 * The controller's in-memory view of the cluster, rebuilt from the store at start and changed
 * only after the store accepted the change (so the view never runs ahead of what is durable),
 * plus its conversion to wire messages. Live brokers are not loaded: the embedded store's
 * ephemeral /brokers/ids nodes do not survive a restart, and brokers register again.
 */
import type { Logger } from 'pino'
import {
  TOPIC_CONFIG_NAMES,
  effectiveTopicConfig,
  toInt64String,
  validateTopicConfigOverrides,
  type wire,
} from '@sluice/protocol'
import type { MetadataStore } from '../store/metadata-store.js'
import {
  PATHS,
  decodeState,
  decodeTopic,
  decodeTopicConfig,
  partitionsPath,
  statePath,
  topicConfigPath,
  topicPath,
  type BrokerRecord,
  type PartitionStateRecord,
} from './layout.js'

export interface TopicState {
  readonly name: string
  readonly topicId: string
  /** Index = partition id. */
  assignment: number[][]
  states: PartitionStateRecord[]
  /** Validated overrides only. */
  config: Record<string, string>
}

export class ClusterView {
  readonly topics = new Map<string, TopicState>()
  readonly brokers = new Map<number, BrokerRecord>()

  liveBrokerIds(): number[] {
    return [...this.brokers.keys()].sort((a, b) => a - b)
  }

  isLive = (id: number): boolean => this.brokers.has(id)

  uncleanAllowed(topic: string): boolean {
    return this.topics.get(topic)?.config['unclean.leader.election.enable'] === 'true'
  }

  /** Loads every topic, its partition states and config overrides from the store. */
  async load(store: MetadataStore, log: Logger): Promise<void> {
    for (const name of await store.children(PATHS.topics)) {
      const topic = decodeTopic(name, (await store.get(topicPath(name))).data)
      const states: PartitionStateRecord[] = []
      const havePartitions = (await store.exists(partitionsPath(name))) !== undefined
      for (let p = 0; p < topic.assignment.length; p++) {
        const path = statePath(name, p)
        const node = havePartitions && (await store.exists(path)) !== undefined ? await store.get(path) : undefined
        // A missing state node (a topic written by hand) starts offline; the first ISR member to register leads.
        states.push(
          node !== undefined
            ? decodeState(path, node.data)
            : { leader: -1, leaderEpoch: 0, isr: [...topic.assignment[p]!], controllerEpoch: 0, partitionEpoch: 0 },
        )
      }
      this.topics.set(name, {
        name,
        topicId: topic.topicId,
        assignment: topic.assignment.map((r) => [...r]),
        states,
        config: await loadConfig(store, name, log),
      })
    }
  }

  brokersToWire(): wire.BrokerInfo[] {
    return this.liveBrokerIds().map((id) => brokerToWire(this.brokers.get(id)!))
  }

  partitionToWire(topic: TopicState, p: number): wire.PartitionState {
    const s = topic.states[p]!
    return {
      topic: topic.name,
      partition: p,
      leader: s.leader,
      leader_epoch: s.leaderEpoch,
      replicas: [...topic.assignment[p]!],
      isr: [...s.isr],
      controller_epoch: s.controllerEpoch,
      partition_epoch: s.partitionEpoch,
      topic_id: topic.topicId,
    }
  }

  allPartitionsToWire(): wire.PartitionState[] {
    const out: wire.PartitionState[] = []
    for (const t of this.topics.values()) for (let p = 0; p < t.states.length; p++) out.push(this.partitionToWire(t, p))
    return out
  }

  topicConfigToWire(topic: TopicState): wire.TopicConfig {
    return { topic: topic.name, topic_id: topic.topicId, entries: configEntries(topic.config) }
  }
}

export function brokerToWire(b: BrokerRecord): wire.BrokerInfo {
  return {
    broker_id: b.id,
    host: b.host,
    port: b.port,
    rack: b.rack,
    broker_epoch: toInt64String(b.brokerEpoch),
    admin_port: b.adminPort,
    kafka_host: b.kafkaHost,
    kafka_port: b.kafkaPort,
  }
}

/** Every topic config with its effective value and where it comes from. */
export function configEntries(overrides: Readonly<Record<string, string>>): wire.TopicConfigEntry[] {
  const effective = effectiveTopicConfig(overrides) as unknown as Record<string, unknown>
  return TOPIC_CONFIG_NAMES.map((name) => ({
    name,
    value: String(effective[name]),
    source: Object.hasOwn(overrides, name) ? 'topic' : 'default',
  }))
}

async function loadConfig(store: MetadataStore, topic: string, log: Logger): Promise<Record<string, string>> {
  const path = topicConfigPath(topic)
  if ((await store.exists(path)) === undefined) return {}
  const raw = decodeTopicConfig(path, (await store.get(path)).data)
  const out: Record<string, string> = {}
  // Keep each override that still validates on its own; a config dropped from the table (or a
  // value a newer version no longer accepts) must not stop the controller from starting.
  for (const [name, value] of Object.entries(raw)) {
    try {
      Object.assign(out, validateTopicConfigOverrides({ [name]: value }))
    } catch (e) {
      log.warn({ topic, name, value, err: e }, 'ignoring an invalid stored topic config override')
    }
  }
  return out
}
