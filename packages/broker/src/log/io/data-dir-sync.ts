/**
 * Group commit for `flush: 'fsync'` across every partition of one data dir (docs/design.md §4).
 * A caller that finished writing asks for a sync of its log; requests made while no round runs
 * start one at once, requests made during a round all join the single next round, which starts
 * when the running one ends. A round fdatasyncs the dirty files of every log that asked, in
 * parallel, so N concurrent appends to any partitions of the disk cost at most two rounds, and a
 * slow log does not make the others wait for more than one round. Failures are per log: a log
 * whose fdatasync failed rejects only its own waiters.
 */

export interface SyncMember {
  /** fdatasync of everything this log wrote so far. */
  syncDirtyLogs(): Promise<void>
}

interface Waiter {
  resolve: () => void
  reject: (err: unknown) => void
}

export class DataDirSync {
  private next = new Map<SyncMember, Waiter[]>()
  private running = false
  private roundCount = 0

  /** Rounds started so far. @internal (tests) */
  get rounds(): number {
    return this.roundCount
  }

  /** Resolves once a sync of `member` that started after this call has finished. */
  request(member: SyncMember): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiters = this.next.get(member)
      if (waiters === undefined) this.next.set(member, [{ resolve, reject }])
      else waiters.push({ resolve, reject })
      if (!this.running) this.startRound()
    })
  }

  private startRound(): void {
    const batch = this.next
    this.next = new Map()
    this.running = true
    this.roundCount++
    const syncs = [...batch].map(async ([member, waiters]) => {
      try {
        await member.syncDirtyLogs()
        for (const w of waiters) w.resolve()
      } catch (err) {
        for (const w of waiters) w.reject(err)
      }
    })
    void Promise.all(syncs).then(() => {
      this.running = false
      if (this.next.size > 0) this.startRound()
    })
  }
}
