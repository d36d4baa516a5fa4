/** The console API as the tests read it directly (to wait for state the UI then shows). */
import { waitFor } from '@sluice/testkit'

// biome-ignore lint/suspicious/noExplicitAny: JSON answers of many shapes, read field by field
export type Json = any

export async function getJson(base: string, path: string, token?: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(
    `${base}${path}`,
    token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
  )
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** Every partition of `topic` has a leader, as the console sees it. */
export async function waitForLeaders(base: string, topic: string): Promise<void> {
  await waitFor(
    async () => {
      const r = await getJson(base, `/api/topics/${encodeURIComponent(topic)}`)
      return r.status === 200 && r.body.partitionDetails.every((p: Json) => p.leader !== null)
    },
    { timeoutMs: 30_000, description: `leaders of ${topic}` },
  )
}
