/** Starts the peer a config names, in the calling process (a probe child, or a test). */
import { startGrpcPeer } from './grpc-peer.js'
import type { Peer, PeerConfig } from './peer-config.js'
import { startTcpPeer } from './tcp-peer.js'

export function startPeer(config: PeerConfig): Promise<Peer> {
  return config.role === 'tcp-echo' || config.role === 'tcp-relay' ? startTcpPeer(config) : startGrpcPeer(config)
}
