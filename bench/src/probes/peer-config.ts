/**
 * What a probe peer is asked to be (the far end of a probe: an echo server, a relay in a chain,
 * or the chain's last process) and what it reports back. Shared by the peer (tcp-peer.ts,
 * grpc-peer.ts), the child process entry (probe-peer-main.ts) and the parent (peer-launch.ts).
 */

export type PeerConfig =
  /** Answers every frame with the same frame, its receive and send stamps filled in. */
  | { readonly role: 'tcp-echo' }
  /**
   * Forwards every frame to 127.0.0.1:`next`, or, without `next`, is the last process: records
   * each measured frame's one-way time from its origin stamp at the first JS line that sees it.
   * `spin` keeps this process's event loop busy (it never sleeps in epoll), to tell a wake-up's
   * cost from the rest of a hop.
   */
  | { readonly role: 'tcp-relay'; readonly next?: number; readonly spin?: boolean }
  /** Serves Broker.Produce (small answers) and Broker.Fetch (answers carrying `answerBytes` of records). */
  | { readonly role: 'grpc-echo'; readonly answerBytes: number }
  /** Broker.Produce: forwards every request to the Broker at 127.0.0.1:`next`, or records like tcp-relay. */
  | { readonly role: 'grpc-relay'; readonly next?: number }

export interface PeerReport {
  /** One-way times (ms) of the measured messages this process was the last to receive. */
  readonly samplesMs: number[]
  /** CPU (user + system µs) since the last reset. */
  readonly cpuUs: number
  /** Measured messages received since the last reset. */
  readonly received: number
}

/** A running peer, in this process or another. */
export interface Peer {
  readonly port: number
  report(): PeerReport
  /** Measured messages received since the last reset (cheap: no samples copied). */
  received(): number
  /** Forgets samples and restarts the CPU count (before a measured series). */
  reset(): void
  close(): Promise<void>
}

/** The recording half every last-in-chain peer shares. */
export class SinkRecorder {
  private samples: number[] = []
  private received = 0
  private cpu0 = process.cpuUsage()

  record(oneWayMs: number): void {
    this.samples.push(oneWayMs)
    this.received++
  }

  count(): number {
    return this.received
  }

  report(): PeerReport {
    const cpu = process.cpuUsage(this.cpu0)
    return { samplesMs: [...this.samples], cpuUs: cpu.user + cpu.system, received: this.received }
  }

  reset(): void {
    this.samples = []
    this.received = 0
    this.cpu0 = process.cpuUsage()
  }
}
