/**
 * The workers of one Connect cluster (`group.id`) as one consumer group with a custom
 * assignor, `sluice-connect`: it assigns no partitions, only work (work-assignment.ts), in the
 * assignment's userData. Each worker's subscription userData says what it runs and its REST
 * URL, so the leader keeps work in place and every worker knows the others' URLs (a request
 * for a connector this worker does not run is answered from the shared topics, not forwarded).
 * The group consumer subscribes to the config topic only because a group needs a topic;
 * nothing is fetched, since nobody is assigned its partition.
 */
import type { CustomAssignor, GroupConsumer, Logger, RunHandle, SluiceClient } from '@sluice/client'
import { assignWork } from './work-assignment.js'

export const CONNECT_ASSIGNOR_NAME = 'sluice-connect'

interface Subscription {
  readonly v: 1
  readonly url: string
  readonly running: readonly string[]
}

export interface WorkAssignment {
  readonly generation: number
  readonly memberId: string
  readonly leaderId: string
  readonly work: readonly string[]
  /** Every member's REST URL, by member id. */
  readonly urls: Readonly<Record<string, string>>
}

export interface WorkerGroupOptions {
  readonly client: SluiceClient
  readonly groupId: string
  readonly topic: string
  readonly url: string
  readonly sessionTimeoutMs: number
  readonly heartbeatIntervalMs: number
  readonly logger: Logger
  /** Work ids that exist now (the leader reads it when it assigns). */
  readonly work: () => string[]
  /** Work ids this worker runs now (reported at every join). */
  readonly running: () => string[]
  /** A new generation's assignment, at a safe point of the group consumer. */
  readonly onAssignment: (a: WorkAssignment) => Promise<void>
  /** The membership ended for good (a config the coordinator refuses, the group gone). */
  readonly onFatal: (err: unknown) => void
}

export class WorkerGroup {
  private consumer: GroupConsumer | undefined
  private run: RunHandle | undefined
  private received: WorkAssignment | undefined

  constructor(private readonly o: WorkerGroupOptions) {}

  start(): void {
    const assignor: CustomAssignor = {
      name: CONNECT_ASSIGNOR_NAME,
      rebalanceProtocol: 'eager',
      subscriptionUserData: () =>
        Buffer.from(JSON.stringify({ v: 1, url: this.o.url, running: this.o.running() } satisfies Subscription)),
      assign: ({ members }) => {
        const reports = members.map((m) => ({ memberId: m.memberId, sub: parseSubscription(m.userData) }))
        const placed = assignWork(
          this.o.work(),
          reports.map((r) => ({ memberId: r.memberId, running: r.sub?.running ?? [] })),
        )
        const urls = Object.fromEntries(reports.map((r) => [r.memberId, r.sub?.url ?? '']))
        return new Map(
          [...placed].map(([memberId, work]) => [
            memberId,
            { partitions: [], userData: Buffer.from(JSON.stringify({ v: 1, work, urls })) },
          ]),
        )
      },
      onAssignment: (a) => {
        const body = parseAssignment(a.userData)
        const leaderId = this.consumer?.groupMetadata().memberId ?? ''
        this.received = {
          generation: a.generationId,
          memberId: a.memberId,
          leaderId,
          work: body?.work ?? [],
          urls: body?.urls ?? {},
        }
      },
    }
    this.consumer = this.o.client.consumer({
      groupId: this.o.groupId,
      autoCommit: false,
      assignors: [assignor],
      sessionTimeoutMs: this.o.sessionTimeoutMs,
      heartbeatIntervalMs: this.o.heartbeatIntervalMs,
      rebalanceListener: {
        // Called at every generation (with no partitions): the assignment is applied here.
        onPartitionsAssigned: async () => {
          const a = this.received
          if (a !== undefined) await this.o.onAssignment(a)
        },
      },
    })
    this.consumer.subscribe({ topics: [this.o.topic] })
    this.run = this.consumer.run({ eachBatch: () => {} })
    this.run.done.catch((err: unknown) => {
      this.o.logger.error({ err }, 'the Connect worker group stopped')
      this.o.onFatal(err)
    })
  }

  /** Asks the group for a new generation (work was added, removed or given up). */
  rebalance(reason: string): void {
    this.consumer?.enforceRebalance(reason)
  }

  get memberId(): string {
    return this.consumer?.groupMetadata().memberId ?? ''
  }

  async stop(): Promise<void> {
    await this.run?.stop().catch(() => {})
    await this.consumer?.close().catch(() => {})
  }
}

function parseSubscription(b: Buffer | null): Subscription | undefined {
  if (b === null) return undefined
  try {
    const s = JSON.parse(b.toString('utf8')) as Subscription
    return Array.isArray(s.running) ? s : undefined
  } catch {
    return undefined
  }
}

function parseAssignment(b: Buffer | null): { work: string[]; urls: Record<string, string> } | undefined {
  if (b === null) return undefined
  try {
    const a = JSON.parse(b.toString('utf8')) as { work?: unknown; urls?: unknown }
    if (!Array.isArray(a.work)) return undefined
    return { work: a.work.map(String), urls: (a.urls ?? {}) as Record<string, string> }
  } catch {
    return undefined
  }
}
