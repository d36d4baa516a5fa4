/**
 * Group commit for `flush: 'fsync'` (DESIGN.md §4): callers that wrote data ask for a sync; a
 * sync that starts after a caller's write covers it. While one sync runs, every new request
 * joins the single next sync, so N concurrent appends cost at most two fdatasync calls.
 */
export class GroupCommit {
  private running: Promise<void> | undefined
  private next: Promise<void> | undefined
  private syncs = 0

  constructor (private readonly syncFn: () => Promise<void>) {}

  /** Number of syncs started (tests check that concurrent appends share them). @internal */
  get syncCount (): number { return this.syncs }

  request (): Promise<void> {
    if (this.next !== undefined) return this.next
    if (this.running === undefined) return this.start()
    const next = this.running.catch(() => {}).then(() => {
      this.next = undefined
      return this.start()
    })
    this.next = next
    return next
  }

  private start (): Promise<void> {
    this.syncs++
    const p = this.syncFn().finally(() => {
      if (this.running === p) this.running = undefined
    })
    this.running = p
    return p
  }
}
