/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight, in item order as slots free.
 * Used where many independent partitions each need a few file-system round trips (loading logs at
 * start, creating the logs of a new topic): one at a time, 1,000 partitions took seconds of
 * waiting on the thread pool; all at once, 10,000 would hold thousands of pending fs calls and
 * file handles. A rejection stops new calls and is rethrown once the running ones settle.
 */
export async function boundedEach<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0
  let failed = false
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next++]!
      try {
        await fn(item)
      } catch (err) {
        failed = true
        throw err
      }
    }
  }
  const results = await Promise.allSettled(
    Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker),
  )
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (rejected !== undefined) throw rejected.reason
}
