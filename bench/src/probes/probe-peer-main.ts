/**
 * A probe peer's own process (`node dist/probes/probe-peer-main.js <config json>`, forked by
 * peer-launch.ts): starts the peer the config names and answers the parent over IPC.
 *   child -> parent  { type: 'ready', port } | { type: 'failed', error }
 *   parent -> child  { type: 'clock' | 'report' | 'received' | 'reset', id }  -> answered with the same type and id
 *                    ({ ns } for clock: this process's hrtime, for the shared-clock check)
 *   parent -> child  { type: 'close' }                            -> closes and exits
 * The parent owns this process: when the IPC channel closes, it exits.
 */
import type { PeerConfig } from './peer-config.js'
import { startPeer } from './start-peer.js'

interface Ask {
  type: 'clock' | 'report' | 'received' | 'reset' | 'close'
  id?: number
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? '{}') as PeerConfig
  const peer = await startPeer(config)
  process.on('message', (m: Ask) => {
    if (m.type === 'clock') process.send?.({ type: 'clock', id: m.id, ns: String(process.hrtime.bigint()) })
    else if (m.type === 'report') process.send?.({ type: 'report', id: m.id, report: peer.report() })
    else if (m.type === 'received') process.send?.({ type: 'received', id: m.id, received: peer.received() })
    else if (m.type === 'reset') {
      peer.reset()
      process.send?.({ type: 'reset', id: m.id })
    } else if (m.type === 'close') void peer.close().finally(() => process.exit(0))
  })
  process.send?.({ type: 'ready', port: peer.port })
}

process.on('disconnect', () => process.exit(0))
main().catch((err: unknown) => {
  process.send?.({ type: 'failed', error: String((err as Error)?.stack ?? err) })
  process.exit(1)
})
