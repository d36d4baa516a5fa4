/**
 * Every view of the console in real Chromium against a real cluster of spawned processes: each
 * URL renders its view (never a blank page; errors shown in place) and leaves a screenshot in
 * test-e2e/artifacts/console/; the built page references nothing on the internet and requests
 * nothing outside the console; dark mode follows the system and the toggle; the keyboard
 * shortcuts work; the live tail shows a record written after it opened; an access token is
 * asked for and read-only mode hides the write actions.
 *
 * Routes the console server added later (/api/session, throughput, tail, lag history) are
 * checked for what they show when present, and for the page's "not available" notice when the
 * server answers 404, so the test holds against either server and fails on a blank or broken view.
 */
import { randomUUID } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { startConsoleServer } from '@sluice/console'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { openPage, screenshot } from '../src/console/browser.js'
import { getJson, waitForLeaders } from '../src/console/console-api.js'
import { WEB_ROOT } from '../src/console/console-stack.js'
import { useConsoleSuite } from '../src/console/console-suite.js'

const topic = `views-${randomUUID().slice(0, 8)}`
const group = `views-group-${randomUUID().slice(0, 8)}`

const suite = useConsoleSuite('console-views-e2e', async (s) => {
  await s.client.admin().createTopics([{ name: topic, numPartitions: 3, replicationFactor: 1 }])
  await waitForLeaders(s.stack.console.url, topic)
  const producer = s.client.producer({ acks: 'all' })
  for (let i = 0; i < 300; i += 100)
    await producer.send({
      topic,
      records: Array.from({ length: 100 }, (_, j) => ({
        key: `user-${(i + j) % 17}`,
        value: JSON.stringify({ event: 'page_view', n: i + j, path: `/items/${(i + j) % 23}` }),
        headers: [{ key: 'trace', value: Buffer.from(`t-${i + j}`) }],
      })),
    })
  // One binary record, shown as hex.
  await producer.send({ topic, records: [{ key: 'bin', value: Buffer.from([0, 1, 2, 0xfe, 0xff]), partition: 0 }] })
  await producer.close()
  const consumer = s.client.consumer({ groupId: group, autoCommit: false, autoOffsetReset: 'earliest', maxWaitMs: 100 })
  consumer.subscribe({ topics: [topic] })
  let n = 0
  for await (const _m of consumer) if (++n === 120) break
  await consumer.commit()
  await consumer.close()
})

/** Every http(s) URL in the text but XML namespace names, which are identifiers, never fetched. */
function externalUrls(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s"'`)<>]+/g)]
    .map((m) => m[0])
    .filter(
      (u) =>
        !/^http:\/\/www\.w3\.org\/(1998\/Math\/MathML|1999\/xhtml|2000\/svg|1999\/xlink|XML\/1998\/namespace)/.test(u),
    )
}

/**
 * Writes records until the overview's bytes-in chart shows a rate above zero: the server samples
 * the brokers' metrics every interval, so the page sees traffic one or two samples later.
 */
async function writeUntilChartsMove(p: Page): Promise<void> {
  const bytesIn = p.getByTestId('throughput').locator('figure').first().locator('.key').first()
  const producer = suite.client.producer({ acks: 'all', lingerMs: 5 })
  try {
    const deadline = Date.now() + 40_000
    const points = p.getByTestId('throughput').locator('polyline').first()
    // Traffic shown, and enough samples for a line worth a screenshot.
    const moving = async (): Promise<boolean> =>
      !/^in 0 B\/s$/.test(((await bytesIn.textContent().catch(() => null)) ?? 'in 0 B/s').trim()) &&
      ((await points.getAttribute('points').catch(() => null)) ?? '').split(' ').length >= 8
    while (!(await moving())) {
      if (Date.now() > deadline) throw new Error('the throughput chart never showed traffic')
      await producer.send({
        topic,
        records: Array.from({ length: 200 }, (_, i) => ({ key: `load-${i}`, value: JSON.stringify({ load: i }) })),
      })
    }
  } finally {
    await producer.close()
  }
  expect(await p.getByTestId('throughput').locator('polyline').count()).toBe(4)
}

describe('console views in Chromium', () => {
  it('the built page bundles everything: no http(s) URL in index.html or its assets', async () => {
    const index = await readFile(path.join(WEB_ROOT, 'index.html'), 'utf8')
    const assets = await readdir(path.join(WEB_ROOT, 'assets'))
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true)
    expect(externalUrls(index)).toEqual([])
    for (const a of assets) expect(externalUrls(await readFile(path.join(WEB_ROOT, 'assets', a), 'utf8'))).toEqual([])
    // index.html names its scripts and styles by hashed paths under /assets/.
    const refs = [...index.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(refs.length).toBeGreaterThan(0)
    for (const r of refs) expect(r).toMatch(/^\/assets\/[\w-]+\.(js|css)$/)
  })

  it('shows the overview: cluster, brokers with health, and live throughput', async () => {
    await suite.page.goto(`${suite.stack.url}/`)
    const stats = suite.page.getByTestId('cluster-stats')
    await stats.getByText('Under-replicated').waitFor()
    const clusterId = (await (await fetch(`${suite.stack.console.url}/api/cluster`)).json()) as { clusterId: string }
    await stats.getByText(clusterId.clusterId).waitFor()
    const brokers = suite.page.getByRole('table', { name: 'brokers' })
    await brokers.locator('tbody tr').first().waitFor()
    expect(await brokers.locator('tbody tr').count()).toBe(1)
    await brokers.getByText('up', { exact: true }).waitFor()
    await writeUntilChartsMove(suite.page)
    await screenshot(suite.page, 'overview')
  })

  it('gives every view its own URL and renders it, with a screenshot of each', async () => {
    const t = encodeURIComponent(topic)
    const views: Array<{ name: string; path: string; ready: (p: Page) => Promise<unknown> }> = [
      { name: 'topics', path: '/topics', ready: (p) => p.getByRole('link', { name: topic }).waitFor() },
      {
        name: 'topic',
        path: `/topics/${t}`,
        ready: (p) => p.getByRole('table', { name: 'partitions' }).locator('tbody tr').nth(2).waitFor(),
      },
      {
        name: 'messages',
        path: `/topics/${t}/messages`,
        ready: (p) => p.getByTestId('scan-status').waitFor(),
      },
      { name: 'groups', path: '/groups', ready: (p) => p.getByRole('link', { name: group }).waitFor() },
      {
        name: 'group-detail',
        path: `/groups/${encodeURIComponent(group)}`,
        ready: (p) =>
          p.getByRole('table', { name: 'lag per partition' }).getByRole('link', { name: topic }).first().waitFor(),
      },
      {
        name: 'brokers',
        path: '/brokers',
        ready: (p) => p.getByRole('table', { name: 'brokers' }).locator('tbody tr').first().waitFor(),
      },
      { name: 'broker', path: '/brokers/1', ready: (p) => p.getByRole('heading', { name: 'Broker 1' }).waitFor() },
      // No Connect URL was given: the page says so instead of failing.
      {
        name: 'connectors-none',
        path: '/connectors',
        ready: (p) =>
          p
            .getByText(/Not available|No Kafka Connect/)
            .first()
            .waitFor(),
      },
      {
        name: 'connector-none',
        path: '/connectors/file-sink',
        ready: (p) => p.getByText('Not available').first().waitFor(),
      },
      {
        name: 'streams-none',
        path: '/streams',
        ready: (p) => p.getByRole('heading', { name: 'Streams applications' }).waitFor(),
      },
      {
        name: 'stream-idle-group',
        path: `/streams/${encodeURIComponent(group)}`,
        // An idle consumer group may be a stopped streams application (shown with no tasks) or
        // not one at all (an error in the page); either way the view renders, never a blank suite.page.
        ready: (p) => p.getByRole('table', { name: 'tasks' }).or(p.locator('.error, .notice')).first().waitFor(),
      },
    ]
    for (const v of views) {
      await suite.page.goto(`${suite.stack.url}${v.path}`)
      await v.ready(suite.page).catch((err: unknown) => {
        throw new Error(`view ${v.name} (${v.path}) did not render`, { cause: err })
      })
      // Each view has a title; none is blank.
      expect(await suite.page.locator('main h1').count()).toBeGreaterThan(0)
      await screenshot(suite.page, v.name)
    }
    // The broker page lists its partitions (paginated by the server).
    await suite.page.goto(`${suite.stack.url}/brokers/1`)
    await suite.page
      .getByRole('table', { name: 'broker partitions' })
      .getByRole('link', { name: topic })
      .first()
      .waitFor()
    await screenshot(suite.page, 'broker')
  })

  it('shows JSON pretty-printed and binary as hex in the message browser', async () => {
    await suite.page.goto(
      `${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages?partition=0&start=offset&offset=0&limit=500`,
    )
    const table = suite.page.getByRole('table', { name: 'messages' })
    const binary = table.locator('tbody tr.record', { hasText: '0x000102feff' })
    await binary.waitFor()
    await binary.click()
    await suite.page.locator('.record-detail').getByText('00 01 02 fe ff').waitFor()
    await suite.page.locator('.record-detail').getByText('binary').waitFor()
    // Newest first by default: the last records of every partition.
    await suite.page.goto(`${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages`)
    await suite.page.getByTestId('scan-status').waitFor()
    expect(await table.locator('tbody tr.record').count()).toBeGreaterThan(1)

    // By time: from an hour ago every record of partition 1 (up to the limit), from an hour
    // ahead none. The form's time is local, as a datetime-local input holds it.
    const local = (ms: number): string => {
      const d = new Date(ms)
      return new Date(ms - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19)
    }
    const byTime = async (ms: number): Promise<string> => {
      const q = `partition=1&start=timestamp&time=${encodeURIComponent(local(ms))}&limit=5`
      await suite.page.goto(`${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages?${q}`)
      return (await suite.page.getByTestId('scan-status').textContent()) ?? ''
    }
    expect(await byTime(Date.now() - 3_600_000)).toMatch(/^5 shown/)
    expect(await byTime(Date.now() + 3_600_000)).toMatch(/^0 shown · scanned 0 of 0/)

    // One partition pages on from where the server stopped.
    await suite.page.goto(
      `${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages?partition=1&start=oldest&limit=5`,
    )
    const offsets = async (): Promise<string[]> =>
      await table.locator('tbody tr.record td:nth-child(2)').allTextContents()
    await expect.poll(offsets).toEqual(['0', '1', '2', '3', '4'])
    await suite.page.getByRole('button', { name: /Next records from offset 5/ }).click()
    await expect.poll(offsets).toEqual(['5', '6', '7', '8', '9'])
    // Newest: the end of the partition, newest first.
    const end = Number((await getJson(suite.stack.console.url, `/api/topics/${topic}`)).body.partitionDetails[1].logEnd)
    await suite.page.goto(`${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages?partition=1&limit=3`)
    await expect.poll(offsets).toEqual([end - 1, end - 2, end - 3].map((o) => o.toLocaleString('en-US')))
  })

  it('tails a topic live: a record written after the tail opened shows up', async () => {
    await suite.page.goto(`${suite.stack.url}/topics/${encodeURIComponent(topic)}/messages`)
    await suite.page.getByRole('tab', { name: 'Live tail' }).click()
    await suite.page.getByTestId('tail-state').filter({ hasText: 'live' }).waitFor()
    const tail = suite.page.getByRole('table', { name: 'live records' })
    const marker = `tail-${randomUUID().slice(0, 8)}`
    // The tail starts at the end once its consumer is assigned: keep writing until one arrives.
    const producer = suite.client.producer({ acks: 'all' })
    try {
      const deadline = Date.now() + 30_000
      while ((await tail.locator('tbody tr.record', { hasText: marker }).count()) === 0) {
        if (Date.now() > deadline) throw new Error('no tailed record within 30 s')
        await producer.send({ topic, records: [{ key: 'tail', value: JSON.stringify({ marker }) }] })
        await tail
          .locator('tbody tr.record', { hasText: marker })
          .first()
          .waitFor({ timeout: 1000 })
          .catch(() => {})
      }
    } finally {
      await producer.close()
    }
    await screenshot(suite.page, 'live-tail')
    await suite.page.getByRole('button', { name: 'Pause' }).click()
    await suite.page.getByTestId('tail-state').filter({ hasText: 'paused' }).waitFor()
  })

  it('follows the system dark mode, and the toggle overrides it and is remembered', async () => {
    const dark = await openPage(suite.browser, suite.stack.url, { colorScheme: 'dark' })
    try {
      const p = dark.page
      await p.goto(`${suite.stack.url}/`)
      await p.getByTestId('cluster-stats').getByText('Under-replicated').waitFor()
      const bg = async (): Promise<string> =>
        String(await p.evaluate('getComputedStyle(document.body).backgroundColor'))
      expect(await bg()).toBe('rgb(15, 20, 25)')
      await writeUntilChartsMove(p)
      await screenshot(p, 'overview-dark')
      await p.getByRole('button', { name: 'switch to light mode' }).click()
      expect(await bg()).toBe('rgb(247, 248, 250)')
      await p.reload()
      await p.getByRole('button', { name: 'switch to dark mode' }).waitFor()
      expect(await bg()).toBe('rgb(247, 248, 250)')
      expect(dark.errors).toEqual([])
    } finally {
      await dark.context.close()
    }
  })

  it('works from the keyboard: / searches, g then a letter navigates, ? lists the shortcuts', async () => {
    await suite.page.goto(`${suite.stack.url}/topics`)
    await suite.page.getByRole('link', { name: topic }).waitFor()
    await suite.page.locator('main h1').click()
    await suite.page.keyboard.press('/')
    expect(await suite.page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('search topics')
    await suite.page.keyboard.type(topic.slice(-8))
    await suite.page.waitForURL(/search=/)
    await suite.page.getByText(/1–1 of 1/).waitFor()
    await suite.page.keyboard.press('Escape')
    await suite.page.locator('main h1').click()
    await suite.page.keyboard.press('g')
    await suite.page.keyboard.press('g')
    await suite.page.waitForURL(`${suite.stack.url}/groups`)
    await suite.page.keyboard.press('?')
    const help = suite.page.getByRole('dialog', { name: 'Keyboard shortcuts' })
    await help.waitFor()
    await suite.page.keyboard.press('Escape')
    await help.waitFor({ state: 'hidden' })
  })

  it('shows errors in the page: an unknown topic, an unknown path', async () => {
    await suite.page.goto(`${suite.stack.url}/topics/no-such-topic-${randomUUID().slice(0, 6)}`)
    await suite.page
      .getByRole('alert')
      .filter({ hasText: /does not exist|UNKNOWN_TOPIC/ })
      .first()
      .waitFor()
    await suite.page.goto(`${suite.stack.url}/no/such/page`)
    await suite.page.getByRole('heading', { name: 'Page not found' }).waitFor()
  })

  it('asks for the access token and hides write actions in read-only mode', async () => {
    const locked = await startConsoleServer({
      bootstrap: suite.stack.cluster.bootstrap,
      port: 0,
      readOnly: true,
      token: 's3cret',
    })
    const base = locked.url
    const w = await openPage(suite.browser, base)
    try {
      const p = w.page
      await p.goto(`${base}/topics`)
      const form = p.getByRole('heading', { name: 'Access token' })
      await form.waitFor()
      await p.getByLabel('Token').fill('wrong')
      await p.getByRole('button', { name: 'Sign in' }).click()
      await p.getByRole('alert').filter({ hasText: 'UNAUTHORIZED' }).waitFor()
      await p.getByLabel('Token').fill('s3cret')
      await p.getByRole('button', { name: 'Sign in' }).click()
      await p.getByRole('link', { name: topic }).waitFor()
      await p.getByText('read-only', { exact: true }).waitFor()
      expect(await p.getByRole('button', { name: 'Create topic' }).count()).toBe(0)
      await p.goto(`${base}/topics/${encodeURIComponent(topic)}`)
      await p.getByRole('table', { name: 'partitions' }).waitFor()
      for (const name of ['Produce', 'Edit config', 'Add partitions', 'Delete'])
        expect(await p.getByRole('button', { name, exact: true }).count()).toBe(0)
      await screenshot(p, 'read-only-topic')
      // A reset can still be planned (a dry run changes nothing), but not executed.
      await p.goto(`${base}/groups/${encodeURIComponent(group)}`)
      await p.getByRole('button', { name: 'Plan an offset reset' }).click()
      const dialog = p.getByRole('dialog', { name: `Reset offsets of ${group}` })
      await dialog.getByRole('button', { name: 'Dry run' }).click()
      await dialog.getByRole('table', { name: 'reset plan' }).locator('tbody tr').first().waitFor()
      expect(await dialog.getByRole('button', { name: 'Execute' }).count()).toBe(0)
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      // The token lives in the tab's sessionStorage: a reload needs no new sign-in.
      await p.reload()
      await p.getByRole('heading', { name: group }).waitFor()
      expect(await p.getByRole('heading', { name: 'Access token' }).count()).toBe(0)
      expect(w.errors).toEqual([])
    } finally {
      await w.context.close()
      await locked.close()
    }
  })

  it('logged no page error and requested nothing outside the console', () => {
    expect(suite.watched.errors).toEqual([])
    expect(suite.watched.foreign).toEqual([])
  })
})
