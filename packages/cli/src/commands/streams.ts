/**
 * `sluice streams describe <application>`: a streams application's tasks, the instance running
 * each (active and standby) and every task's input partitions with their lag (committed offset
 * vs log end), as `groups describe` shows a consumer group. The application is the consumer
 * group of the same id; what only the streams assignor knows (task ids, standbys, instance ids,
 * and which sub-topology reads which topic) is in the userData of each member's subscription and
 * assignment, which the SDK's describeGroups hands over as bytes and the streams package's own
 * codec reads (docs/decisions.md, "sluice streams describe").
 *
 * While no instance runs (an Empty group) nothing says which task a partition belongs to: the
 * committed partitions are shown without tasks. Rendering is pure (render*), tested without a
 * cluster.
 */
import type { GroupDescription, SluiceClient } from '@sluice/client'
import {
  isStreamsGroup,
  streamsDescribeView as describeStreamsGroup,
  streamsSourceTopics,
  type StreamsDescribeView,
  type StreamsInstanceView,
  type StreamsPartitionView,
} from '@sluice/console/internal'
import type { CommandContext } from '../command-types.js'
import { UsageError } from '../output.js'
import { renderTable } from '../table.js'
import { print, withClient } from './client.js'
import { loadGroup, logEndOffsets, type LoadedGroup } from './groups.js'

/** Refuses a group that is not a streams application (another assignor, or not the consumer protocol). */
export function assertStreamsGroup(d: GroupDescription): void {
  if (!isStreamsGroup(d)) {
    throw new UsageError(
      `group ${d.groupId} is not a streams application (protocol ${d.protocolType}/${d.protocol || '-'}); try \`sluice groups describe ${d.groupId}\``,
    )
  }
}

/** The console's view (one implementation for both), refusing a group that is not a streams application. */
export function streamsDescribeView(g: LoadedGroup): StreamsDescribeView {
  assertStreamsGroup(g.description)
  return describeStreamsGroup(g)
}

// ---- rendering ----

/** Instance ids are UUIDs: the first 8 characters tell instances apart in a table (JSON has them whole). */
function shortIds(view: StreamsDescribeView): (id: string | null) => string | null {
  const ids = view.instances.map((i) => i.instanceId).filter((id): id is string => id !== null)
  const short = new Set(ids.map((id) => id.slice(0, 8)))
  const unique = short.size === new Set(ids).size
  return (id) => (id === null ? null : unique && ids.includes(id) ? id.slice(0, 8) : id)
}

const list = (xs: readonly string[]): string => (xs.length === 0 ? '-' : xs.join(','))

export function renderStreamsDescription(v: StreamsDescribeView): string {
  const short = shortIds(v)
  const head = `${[
    `application  ${v.applicationId}`,
    `state        ${v.state}`,
    `generation   ${v.generationId}`,
    `instances    ${v.instances.length}`,
    `tasks        ${v.tasks.length}`,
    '',
  ].join('\n')}\n`
  const instances =
    v.instances.length === 0
      ? 'no instance is running: partitions are shown without their tasks\n\n'
      : `${renderTable<StreamsInstanceView>(
          [
            { header: 'INSTANCE', value: (i) => short(i.instanceId) ?? '(unreadable)' },
            { header: 'MEMBER', value: (i) => i.memberId },
            { header: 'HOST', value: (i) => (i.clientHost === '' ? undefined : i.clientHost) },
            { header: 'ENDPOINT', value: (i) => i.endpoint },
            { header: 'ACTIVE', value: (i) => list(i.activeTasks) },
            { header: 'STANDBY', value: (i) => list(i.standbyTasks) },
          ],
          v.instances,
        )}\n`
  type Row = StreamsPartitionView & { task: string; active: string | null; standbys: string }
  const rows: Row[] = [
    ...v.tasks.flatMap((t) => {
      const task = { task: t.taskId, active: short(t.active), standbys: list(t.standbys.map((s) => short(s) ?? s)) }
      return t.partitions.length === 0
        ? [{ ...task, topic: '-', partition: -1, committed: null, logEnd: null, lag: null }]
        : t.partitions.map((p) => ({ ...task, ...p }))
    }),
    ...v.otherPartitions.map((p) => ({ ...p, task: '-', active: null, standbys: '-' })),
  ]
  const table = renderTable<Row>(
    [
      { header: 'TASK', value: (r) => r.task },
      { header: 'ACTIVE', value: (r) => r.active },
      { header: 'STANDBY', value: (r) => r.standbys },
      { header: 'TOPIC', value: (r) => r.topic },
      { header: 'PARTITION', value: (r) => (r.partition < 0 ? undefined : r.partition), align: 'right' },
      { header: 'COMMITTED', value: (r) => r.committed, align: 'right' },
      { header: 'LOG END', value: (r) => r.logEnd, align: 'right' },
      { header: 'LAG', value: (r) => r.lag, align: 'right' },
    ],
    rows,
  )
  return `${head + instances + table}\ntotal lag    ${v.totalLag}\n`
}

// ---- command ----

export async function streamsDescribe(ctx: CommandContext, application: string): Promise<number> {
  return await withClient(ctx, async (client: SluiceClient) => {
    const g = await loadGroup(client, application)
    assertStreamsGroup(g.description)
    // Source topics of tasks nobody runs right now are in no assignment: their ends are read too.
    const logEnds = new Map([...g.logEnds, ...(await sourceEnds(client, g))])
    const view = streamsDescribeView({ ...g, logEnds })
    print(ctx, view, () => renderStreamsDescription(view))
    return 0
  })
}

/** Log ends of the source topics the group's assignments name but `g.logEnds` lacks. */
async function sourceEnds(client: SluiceClient, g: LoadedGroup): Promise<Array<[string, bigint]>> {
  const known = new Set([...g.logEnds.keys()].map((k) => k.slice(0, k.indexOf('\u0000'))))
  const topics = streamsSourceTopics(g.description).filter((t) => !known.has(t))
  if (topics.length === 0) return []
  const ends = await logEndOffsets(
    client,
    topics.map((topic) => ({ topic, partition: 0 })),
  )
  return [...ends]
}
