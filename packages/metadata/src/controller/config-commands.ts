/**
 * AlterConfigs (incremental: each entry sets or deletes one override) and DescribeTopics.
 * Overrides are validated as a whole against the topic config table before anything is written;
 * brokers receive the topic's whole effective config as a delta.
 */
import { TOPIC_CONFIG_SPECS, errorId, isInternalTopic, validateTopicConfigOverrides, type wire } from '@sluice/protocol'
import type { Controller } from './controller.js'
import { configEntries, type TopicState } from './cluster-view.js'
import { electOffline } from './partition-election.js'
import { ItemError, checkName, configWrite, counts, itemResult } from './topic-commands.js'

function nextOverrides(topic: TopicState, entries: readonly wire.AlterableConfig__Output[]): Record<string, string> {
  const names = counts(entries.map((e) => e.name))
  const next: Record<string, string> = { ...topic.config }
  for (const e of entries) {
    if (e.name === '') throw new ItemError('INVALID_CONFIG', 'a config entry has an empty name')
    if ((names.get(e.name) ?? 0) > 1)
      throw new ItemError('INVALID_REQUEST', `config "${e.name}" appears more than once`)
    if (e.op === 'set') {
      next[e.name] = e.value
    } else if (e.op === 'delete') {
      if (!Object.hasOwn(TOPIC_CONFIG_SPECS, e.name))
        throw new ItemError('INVALID_CONFIG', `unknown config "${e.name}"`)
      delete next[e.name]
    } else {
      throw new ItemError('INVALID_REQUEST', `config "${e.name}" has op "${e.op}"; it must be "set" or "delete"`)
    }
  }
  return validateTopicConfigOverrides(next)
}

export async function alterConfigs(
  ctl: Controller,
  req: wire.AlterConfigsRequest__Output,
): Promise<wire.AlterConfigsResponse> {
  return await ctl.serial(async () => {
    const seen = counts(req.resources.map((r) => r.topic))
    const planned: Array<{ topic: TopicState; config: Record<string, string> }> = []
    const resources = req.resources.map((r): wire.TopicResult => {
      const res = itemResult(() => {
        checkName(r.topic, seen)
        const topic = ctl.view.topics.get(r.topic)
        if (topic === undefined) throw new ItemError('UNKNOWN_TOPIC_OR_PARTITION', `topic "${r.topic}" does not exist`)
        return { topic, config: nextOverrides(topic, r.configs) }
      })
      if (res instanceof ItemError) return { name: r.topic, error_code: errorId(res.code), error_message: res.message }
      planned.push(res)
      return { name: r.topic, error_code: 0, error_message: '' }
    })
    if (req.validate_only || planned.length === 0) return { resources }
    const ops = await Promise.all(
      planned.map(async ({ topic, config }) => await configWrite(ctl.options.store, topic.name, config)),
    )
    await ctl.commit({
      ops,
      apply: () => {
        for (const { topic, config } of planned) topic.config = config
      },
      configTopics: planned.map(({ topic }) => topic.name),
    })
    ctl.log.info({ topics: planned.map(({ topic }) => topic.name) }, 'topic configs altered')
    // Enabling unclean.leader.election.enable takes effect at once for offline partitions, as in Kafka.
    const names = new Set(planned.map(({ topic }) => topic.name))
    await ctl.commit(
      ctl.partitionChange((t, p) =>
        names.has(t.name) ? electOffline(t.assignment[p]!, t.states[p]!, ctl.electionContext(t.name)) : undefined,
      ),
    )
    return { resources }
  })
}

export function describeTopics(ctl: Controller, req: wire.DescribeTopicsRequest__Output): wire.DescribeTopicsResponse {
  const describe = (t: TopicState): wire.TopicDescription => ({
    name: t.name,
    error_code: 0,
    error_message: '',
    topic_id: t.topicId,
    is_internal: isInternalTopic(t.name),
    partitions: t.states.map((_, p) => ctl.view.partitionToWire(t, p)),
    configs: configEntries(t.config),
  })
  if (req.names.length === 0) {
    const all = [...ctl.view.topics.values()].filter((t) => req.include_internal || !isInternalTopic(t.name))
    return { topics: all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(describe) }
  }
  const topics = [...new Set(req.names)].map((name): wire.TopicDescription => {
    const res = itemResult(() => {
      checkName(name, new Map())
      const t = ctl.view.topics.get(name)
      if (t === undefined) throw new ItemError('UNKNOWN_TOPIC_OR_PARTITION', `topic "${name}" does not exist`)
      return t
    })
    if (res instanceof ItemError) {
      return {
        name,
        error_code: errorId(res.code),
        error_message: res.message,
        topic_id: '',
        is_internal: isInternalTopic(name),
        partitions: [],
        configs: [],
      }
    }
    return describe(res)
  })
  return { topics }
}
