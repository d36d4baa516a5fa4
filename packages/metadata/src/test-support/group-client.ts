/**
 * Test support: a raw grpc-js GroupCoordinator client with promise calls, a member that joins
 * the MEMBER_ID_REQUIRED way, and a heartbeat loop that records every answer.
 */
import * as grpc from '@grpc/grpc-js'
import { onTestFinished } from 'vitest'
import { GRPC_CHANNEL_OPTIONS, errorNameFromId, loadSluiceProto, type wire } from '@sluice/protocol'

export type GroupClient = wire.GroupCoordinatorClient

export function groupClient(endpoint: string): GroupClient {
  const Ctor = loadSluiceProto().sluice.v1.GroupCoordinator
  const c = new Ctor(endpoint, grpc.credentials.createInsecure(), GRPC_CHANNEL_OPTIONS) as unknown as GroupClient
  onTestFinished(() => {
    c.close()
  })
  return c
}

/** Calls a unary method with a 20 s deadline. */
export async function call<Res>(client: GroupClient, method: string, req: object): Promise<Res> {
  return await new Promise<Res>((resolve, reject) => {
    const fn = (
      client as unknown as Record<
        string,
        (r: object, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, res: Res) => void) => void
      >
    )[method]!
    fn.call(client, req, new grpc.Metadata(), { deadline: Date.now() + 20_000 }, (e, res) => {
      if (e !== null) reject(e)
      else resolve(res)
    })
  })
}

export const codeOf = (res: { error_code: number }): string => errorNameFromId(res.error_code)

export interface JoinOptions {
  group?: string
  memberId?: string
  instance?: string
  clientId?: string
  sessionMs?: number
  rebalanceMs?: number
  protocols?: Array<[string, string]>
  protocolType?: string
}

export function joinRequest(o: JoinOptions): wire.JoinGroupRequest {
  return {
    group_id: o.group ?? 'g',
    session_timeout_ms: o.sessionMs ?? 1000,
    rebalance_timeout_ms: o.rebalanceMs ?? 2000,
    member_id: o.memberId ?? '',
    group_instance_id: o.instance ?? '',
    protocol_type: o.protocolType ?? 'consumer',
    protocols: (o.protocols ?? [['range', 'subscription']]).map(([name, md]) => ({ name, metadata: Buffer.from(md) })),
    client_id: o.clientId ?? 'test-client',
  }
}

export async function join(client: GroupClient, o: JoinOptions): Promise<wire.JoinGroupResponse__Output> {
  return await call<wire.JoinGroupResponse__Output>(client, 'JoinGroup', joinRequest(o))
}

/** First join (MEMBER_ID_REQUIRED, checked), then the real one with the handed-out id. */
export async function joinNew(client: GroupClient, o: JoinOptions): Promise<wire.JoinGroupResponse__Output> {
  const first = await join(client, o)
  if (codeOf(first) !== 'MEMBER_ID_REQUIRED') throw new Error(`expected MEMBER_ID_REQUIRED, got ${codeOf(first)}`)
  return await join(client, { ...o, memberId: first.member_id })
}

export async function sync(
  client: GroupClient,
  group: string,
  memberId: string,
  generation: number,
  assignments: Record<string, string | Buffer> = {},
  instance = '',
): Promise<wire.SyncGroupResponse__Output> {
  return await call<wire.SyncGroupResponse__Output>(client, 'SyncGroup', {
    group_id: group,
    generation_id: generation,
    member_id: memberId,
    group_instance_id: instance,
    assignments: Object.entries(assignments).map(([member_id, a]) => ({
      member_id,
      assignment: Buffer.isBuffer(a) ? a : Buffer.from(a),
    })),
  })
}

export async function heartbeat(
  client: GroupClient,
  group: string,
  memberId: string,
  generation: number,
  instance = '',
): Promise<string> {
  return codeOf(
    await call<wire.HeartbeatResponse__Output>(client, 'Heartbeat', {
      group_id: group,
      member_id: memberId,
      generation_id: generation,
      group_instance_id: instance,
    }),
  )
}

/** Heartbeats every `everyMs` until stopped; `results` holds every answer's error name. */
export function heartbeatLoop(
  client: GroupClient,
  group: string,
  memberId: string,
  generation: number,
  everyMs = 30,
): { results: string[]; stop: () => void } {
  const results: string[] = []
  let stopped = false
  const tick = (): void => {
    if (stopped) return
    heartbeat(client, group, memberId, generation)
      .then(
        (r) => {
          results.push(r)
        },
        (e: unknown) => {
          results.push(`error: ${(e as Error).message}`)
        },
      )
      .finally(() => {
        if (!stopped) setTimeout(tick, everyMs)
      })
  }
  tick()
  const stop = (): void => {
    stopped = true
  }
  onTestFinished(stop)
  return { results, stop }
}

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = 10_000,
): Promise<void> {
  const end = Date.now() + deadlineMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
