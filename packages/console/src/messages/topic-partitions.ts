/**
 * A topic's partitions for the routes that read records (browse, tail): all of them in order,
 * or the one asked for; a missing topic or partition is a 404 before any consumer starts.
 */
import type { SluiceClient, TopicDescription } from '@sluice/client'
import { ConsoleError } from '../errors.js'

export async function partitionsOf(
  client: SluiceClient,
  topic: string,
  wanted: number | undefined,
): Promise<{ description: TopicDescription; partitions: number[] }> {
  const [t] = await client.admin().describeTopics([topic], { includeInternal: true })
  if (t === undefined) throw new ConsoleError('NOT_FOUND', `topic ${topic} does not exist`)
  const all = t.partitions.map((p) => p.partition).sort((a, b) => a - b)
  if (wanted === undefined) return { description: t, partitions: all }
  if (!all.includes(wanted)) throw new ConsoleError('NOT_FOUND', `topic ${topic} has no partition ${wanted}`)
  return { description: t, partitions: [wanted] }
}
