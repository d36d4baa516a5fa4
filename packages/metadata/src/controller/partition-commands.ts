/**
 * The partition-level RPCs of the Metadata service: AlterPartition (ISR changes from leaders),
 * ElectLeaders, InitProducerId and DescribeCluster. Each validates every field, runs its change
 * through the controller queue, and answers with error codes from the error table.
 */
import { SluiceError, errorId, toInt64String, type ErrorCodeName, type wire } from '@sluice/protocol'
import type { Controller } from './controller.js'
import { electPreferred, electUnclean, sameList } from './partition-election.js'
import type { PartitionStateRecord } from './layout.js'

const MAX_PRODUCER_EPOCH = 32767

function int64(text: string, field: string): bigint {
  if (!/^-?\d+$/.test(text)) throw new SluiceError('INVALID_REQUEST', `${field} "${text}" is not an integer`)
  return BigInt(text)
}

function failure(code: ErrorCodeName, message: string): wire.AlterPartitionResponse {
  return { error_code: errorId(code), error_message: message }
}

export async function alterPartition(
  ctl: Controller,
  req: wire.AlterPartitionRequest__Output,
): Promise<wire.AlterPartitionResponse> {
  const brokerEpoch = int64(req.broker_epoch, 'broker_epoch')
  if (!Number.isInteger(req.broker_id) || req.broker_id < 0)
    return failure('INVALID_REQUEST', `broker_id ${req.broker_id} must be >= 0`)
  if (!Number.isInteger(req.partition) || req.partition < 0)
    return failure('INVALID_REQUEST', `partition ${req.partition} must be >= 0`)
  if (req.new_isr.length === 0) return failure('INVALID_REQUEST', 'new_isr is empty')
  if (new Set(req.new_isr).size !== req.new_isr.length)
    return failure('INVALID_REQUEST', `new_isr ${JSON.stringify(req.new_isr)} has duplicates`)
  return await ctl.serial(async () => {
    if (!ctl.isCurrentBroker(req.broker_id, brokerEpoch)) {
      return failure(
        'STALE_BROKER_EPOCH',
        `broker ${req.broker_id} epoch ${brokerEpoch} is not its current session epoch`,
      )
    }
    const t = ctl.view.topics.get(req.topic)
    const s = t?.states[req.partition]
    if (t === undefined || s === undefined)
      return failure('UNKNOWN_TOPIC_OR_PARTITION', `unknown partition ${req.topic}-${req.partition}`)
    const replicas = t.assignment[req.partition]!
    if (req.leader_epoch !== s.leaderEpoch) {
      return failure(
        req.leader_epoch < s.leaderEpoch ? 'FENCED_LEADER_EPOCH' : 'UNKNOWN_LEADER_EPOCH',
        `leader epoch ${req.leader_epoch} is not the current ${s.leaderEpoch}`,
      )
    }
    if (req.broker_id !== s.leader)
      return failure(
        'INVALID_REQUEST',
        `broker ${req.broker_id} is not the leader (${s.leader}) of ${req.topic}-${req.partition}`,
      )
    if (req.partition_epoch !== s.partitionEpoch) {
      return failure(
        'FENCED_LEADER_EPOCH',
        `partition epoch ${req.partition_epoch} is not the current ${s.partitionEpoch}`,
      )
    }
    if (!req.new_isr.includes(s.leader))
      return failure(
        'INVALID_REQUEST',
        `new_isr ${JSON.stringify(req.new_isr)} does not contain the leader ${s.leader}`,
      )
    const stranger = req.new_isr.find((r) => !replicas.includes(r))
    if (stranger !== undefined)
      return failure('INVALID_REQUEST', `broker ${stranger} is not a replica of ${req.topic}-${req.partition}`)
    const deadJoiner = req.new_isr.find((r) => !s.isr.includes(r) && !ctl.view.isLive(r))
    if (deadJoiner !== undefined)
      return failure('INVALID_REQUEST', `broker ${deadJoiner} cannot join the ISR: it is not alive`)
    const leaving = req.new_isr.find((r) => !s.isr.includes(r) && !ctl.isEligible(r))
    if (leaving !== undefined)
      return failure('INELIGIBLE_REPLICA', `broker ${leaving} cannot join the ISR: it is shutting down`)
    if (!sameList(req.new_isr, s.isr)) {
      const next: PartitionStateRecord = {
        ...s,
        isr: [...req.new_isr],
        controllerEpoch: ctl.controllerEpoch,
        partitionEpoch: s.partitionEpoch + 1,
      }
      await ctl.commit(ctl.partitionChange((topic, p) => (topic === t && p === req.partition ? next : undefined)))
      ctl.log.info(
        { topic: req.topic, partition: req.partition, isr: next.isr, partitionEpoch: next.partitionEpoch },
        'ISR changed',
      )
      ctl.preferredLeaders.onIsrExpanded(
        replicas,
        next.leader,
        next.isr.filter((r) => !s.isr.includes(r)),
      )
    }
    return { error_code: 0, error_message: '', state: ctl.view.partitionToWire(t, req.partition) }
  })
}

export async function electLeaders(
  ctl: Controller,
  req: wire.ElectLeadersRequest__Output,
): Promise<wire.ElectLeadersResponse> {
  if (req.election_type !== 0 && req.election_type !== 1) {
    throw new SluiceError('INVALID_REQUEST', `election_type ${req.election_type} must be 0 (preferred) or 1 (unclean)`)
  }
  return await ctl.serial(async () => {
    const results: wire.ElectLeadersResult[] = []
    const wanted: Array<[string, number]> = []
    const seen = new Set<string>()
    const add = (topic: string, p: number): void => {
      const key = `${topic}\u0000${p}`
      if (!seen.has(key)) {
        seen.add(key)
        wanted.push([topic, p])
      }
    }
    if (req.partitions.length === 0) {
      for (const t of ctl.view.topics.values()) for (let p = 0; p < t.states.length; p++) add(t.name, p)
    } else {
      for (const tp of req.partitions) {
        const t = ctl.view.topics.get(tp.topic)
        if (tp.partitions.length === 0 && t !== undefined) for (let p = 0; p < t.states.length; p++) add(tp.topic, p)
        for (const p of tp.partitions) add(tp.topic, p)
      }
    }
    const changes = new Map<string, PartitionStateRecord>()
    for (const [topic, p] of wanted) {
      const t = ctl.view.topics.get(topic)
      const s = t?.states[p]
      if (t === undefined || s === undefined || !Number.isInteger(p) || p < 0) {
        results.push({
          topic,
          partition: p,
          error_code: errorId('UNKNOWN_TOPIC_OR_PARTITION'),
          error_message: `unknown partition ${topic}-${p}`,
          leader: -1,
        })
        continue
      }
      const elect = req.election_type === 0 ? electPreferred : electUnclean
      const outcome = elect(t.assignment[p]!, s, ctl.electionContext(topic))
      if (outcome.ok) {
        changes.set(`${topic}\u0000${p}`, outcome.state)
        results.push({ topic, partition: p, error_code: 0, error_message: '', leader: outcome.state.leader })
      } else {
        results.push({
          topic,
          partition: p,
          error_code: errorId(outcome.error),
          error_message: outcome.message,
          leader: s.leader,
        })
      }
    }
    if (changes.size > 0) {
      await ctl.commit(ctl.partitionChange((t, p) => changes.get(`${t.name}\u0000${p}`)))
      ctl.log.info({ elected: changes.size, type: req.election_type }, 'leaders elected on request')
    }
    return { results }
  })
}

export async function initProducerId(
  ctl: Controller,
  req: wire.InitProducerIdRequest__Output,
): Promise<wire.InitProducerIdResponse> {
  const producerId = int64(req.producer_id, 'producer_id')
  const fail = (code: ErrorCodeName, message: string): wire.InitProducerIdResponse => ({
    error_code: errorId(code),
    error_message: message,
    producer_id: '-1',
    producer_epoch: -1,
  })
  if (req.transaction_timeout_ms < 0)
    return fail('INVALID_REQUEST', `transaction_timeout_ms ${req.transaction_timeout_ms} must be >= 0`)
  if (producerId < -1n) return fail('INVALID_REQUEST', `producer_id ${producerId} must be -1 or >= 0`)
  if (producerId >= 0n && (req.producer_epoch < 0 || req.producer_epoch > MAX_PRODUCER_EPOCH)) {
    return fail('INVALID_REQUEST', `producer_epoch ${req.producer_epoch} must be in 0..${MAX_PRODUCER_EPOCH}`)
  }
  return await ctl.serial(async () => {
    if (producerId >= 0n) {
      if (!ctl.producerIds.mayHaveIssued(producerId))
        return fail('UNKNOWN_PRODUCER_ID', `producer id ${producerId} was never issued`)
      // Bump the epoch, fencing the older incarnation; an exhausted epoch gets a fresh id, as Kafka does.
      if (req.producer_epoch + 1 < MAX_PRODUCER_EPOCH) {
        return {
          error_code: 0,
          error_message: '',
          producer_id: toInt64String(producerId),
          producer_epoch: req.producer_epoch + 1,
        }
      }
    }
    const id = await ctl.producerIds.allocate()
    return { error_code: 0, error_message: '', producer_id: toInt64String(id), producer_epoch: 0 }
  })
}

export function describeCluster(ctl: Controller): wire.DescribeClusterResponse {
  return {
    cluster_id: ctl.clusterId,
    controller_id: ctl.options.controllerId,
    controller_epoch: ctl.controllerEpoch,
    brokers: ctl.view.brokersToWire(),
    metadata_endpoints: ctl.options.metadataEndpoints(),
  }
}
