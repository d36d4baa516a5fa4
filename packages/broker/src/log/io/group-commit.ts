/**
 * Coalesces requests for one idempotent action (a checkpoint write): a run that starts after a
 * caller's request covers it. While one run is in progress every new request joins the single
 * next run, so N concurrent requests cost at most two runs. (Appends in fsync mode use the
 * per-data-dir variant in data-dir-sync.ts, which also keeps failures per log.)
 */
export class GroupCommit {
  private running: Promise<void> | undefined
  private next: Promise<void> | undefined
  private syncs = 0

  constructor(private readonly syncFn: () => Promise<void>) {}

  /** Number of syncs started (tests check that concurrent appends share them). @internal */
  get syncCount(): number {
    return this.syncs
  }

  request(): Promise<void> {
    if (this.next !== undefined) return this.next
    if (this.running === undefined) return this.start()
    const next = this.running
      .catch(() => {})
      .then(() => {
        this.next = undefined
        return this.start()
      })
    this.next = next
    return next
  }

  private start(): Promise<void> {
    this.syncs++
    const p = this.syncFn().finally(() => {
      if (this.running === p) this.running = undefined
    })
    this.running = p
    return p
  }
}
