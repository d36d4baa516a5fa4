/**
 * Cluster readiness: every expected broker id is registered with the metadata service and
 * visible in DescribeCluster (asked through the SDK, bootstrapping from the brokers themselves,
 * which also proves they answer Metadata). Polls with a deadline; never sleeps a fixed time.
 */
import { connect, type SluiceClient } from '@sluice/client'
import { waitFor } from './wait.js'

export async function waitForBrokers(
  bootstrap: readonly string[],
  brokerIds: readonly number[],
  options: { timeoutMs?: number } = {},
): Promise<void> {
  let client: SluiceClient | undefined
  const wanted = [...brokerIds].sort((a, b) => a - b)
  let seen: number[] = []
  try {
    await waitFor(
      async () => {
        // Few retries inside the SDK: this loop is the retry, with its own deadline.
        client ??= await connect({
          bootstrap: [...bootstrap],
          clientId: 'testkit',
          requestTimeoutMs: 5_000,
          retry: { retries: 0 },
        })
        const cluster = await client.admin().describeCluster()
        seen = cluster.brokers.map((b) => b.brokerId).sort((a, b) => a - b)
        return wanted.every((id) => seen.includes(id))
      },
      { timeoutMs: options.timeoutMs ?? 30_000, description: `brokers ${wanted.join(', ')} to be registered` },
    )
  } catch (err) {
    throw new Error(`${(err as Error).message} (registered at the last attempt: ${seen.join(', ') || 'none'})`, {
      cause: err,
    })
  } finally {
    await client?.close().catch(() => {})
  }
}
