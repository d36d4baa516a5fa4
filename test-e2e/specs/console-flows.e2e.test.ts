/**
 * The console in real Chromium against a real cluster of spawned processes, driven as a user
 * drives it: create a topic in the page, produce records from the page, find one with the
 * message browser's server-side filter (substring and JSON path), cancel a running search while
 * the page stays usable, watch a consumer group's lag fall while a real SDK consumer reads, and
 * reset its offsets with the dry-run plan shown before executing. Screenshots of each step go
 * to test-e2e/artifacts/console/.
 */
import { randomUUID } from 'node:crypto'
import { waitFor } from '@sluice/testkit'
import { describe, expect, it } from 'vitest'
import { screenshot } from '../src/console/browser.js'
import { waitForLeaders } from '../src/console/console-api.js'
import { useConsoleSuite } from '../src/console/console-suite.js'

const suite = useConsoleSuite('console-e2e')

describe('console in Chromium: topics and messages', () => {
  const topic = `orders-${randomUUID().slice(0, 8)}`

  it('creates a topic from the topics page and lands on its detail page', async () => {
    await suite.page.goto(`${suite.stack.url}/topics`)
    await suite.page.getByRole('button', { name: 'Create topic' }).click()
    const dialog = suite.page.getByRole('dialog', { name: 'Create topic' })
    await dialog.getByLabel('Name').fill(topic)
    await dialog.getByLabel('Partitions').fill('3')
    await dialog.getByLabel(/Configs/).fill('retention.ms=86400000')
    await dialog.getByRole('button', { name: 'Create' }).click()
    await suite.page.waitForURL(`${suite.stack.url}/topics/${topic}`)
    await suite.page.getByRole('heading', { name: topic }).waitFor()
    // The new topic's leaders are elected in the background; reload until the page shows them.
    await waitForLeaders(suite.stack.url, topic)
    await suite.page.reload()
    const rows = suite.page.getByRole('table', { name: 'partitions' }).locator('tbody tr')
    await expect.poll(async () => await rows.count()).toBe(3)
    await expect.poll(async () => await rows.filter({ hasText: 'offline' }).count()).toBe(0)
    const configs = suite.page.getByRole('table', { name: 'configs' })
    await configs.getByRole('row', { name: /^retention\.ms 86400000/ }).waitFor()
    await screenshot(suite.page, 'topic-detail')

    // The list finds it by the server-side search.
    await suite.page.goto(`${suite.stack.url}/topics?search=${topic.slice(0, 10)}`)
    await suite.page.getByRole('table', { name: 'topics' }).getByRole('link', { name: topic }).waitFor()
  })

  it('produces records from the page, with key, headers and a chosen partition', async () => {
    await suite.page.goto(`${suite.stack.url}/topics/${topic}`)
    await suite.page.getByRole('button', { name: 'Produce' }).click()
    const dialog = suite.page.getByRole('dialog', { name: `Produce to ${topic}` })
    const send = async (key: string, value: string, partition: string, headers = ''): Promise<void> => {
      await dialog.getByLabel(/^Key/).fill(key)
      await dialog.getByLabel(/^Value/).fill(value)
      await dialog.getByLabel(/^Headers/).fill(headers)
      await dialog.getByLabel('Partition').selectOption(partition)
      await dialog.getByRole('button', { name: 'Send' }).click()
    }
    await send('customer-7', JSON.stringify({ order: 'o-42', amount: 12.5, items: ['tea'] }), '1', 'source=e2e')
    await dialog.getByTestId('produced').filter({ hasText: 'partition 1 at offset 0' }).waitFor()
    await send('customer-8', JSON.stringify({ order: 'o-43', amount: 3 }), '1')
    await dialog.getByTestId('produced').filter({ hasText: 'partition 1 at offset 1' }).waitFor()
    await send('customer-9', 'plain text, not JSON', '2')
    await dialog.getByTestId('produced').filter({ hasText: 'partition 2 at offset 0' }).waitFor()
    await screenshot(suite.page, 'produce')
    await dialog.getByRole('button', { name: 'Close', exact: true }).click()

    // The records really are in the log: read them back with the SDK.
    const consumer = suite.client.consumer()
    await consumer.assign([{ topic, partition: 1 }])
    consumer.seek({ topic, partition: 1, offset: 'beginning' })
    const seen: string[] = []
    for await (const m of consumer.messages()) {
      seen.push(`${m.key?.toString()}|${m.headers.map((h) => `${h.key}=${h.value?.toString()}`).join(',')}`)
      if (seen.length === 2) break
    }
    await consumer.close()
    expect(seen).toEqual(['customer-7|source=e2e', 'customer-8|'])
  })

  it('finds the record in the message browser with the substring and JSON path filters', async () => {
    await suite.page.goto(`${suite.stack.url}/topics/${topic}`)
    await suite.page.getByRole('link', { name: 'Browse messages' }).click()
    await suite.page.waitForURL(/\/messages/)
    // Newest first by default: all three records.
    const table = suite.page.getByRole('table', { name: 'messages' })
    await expect.poll(async () => await table.locator('tbody tr.record').count()).toBe(3)

    const form = suite.page.getByRole('form', { name: 'browse messages' })
    await form.getByLabel('Start at').selectOption('oldest')
    await form.getByLabel('Filter').selectOption('substring')
    await form.getByLabel('Text').fill('o-42')
    await form.getByRole('button', { name: 'Search' }).click()
    const status = suite.page.getByTestId('scan-status')
    await status.filter({ hasText: /scanned 3 of 3 · 1 matched/ }).waitFor()
    await expect.poll(async () => await table.locator('tbody tr.record').count()).toBe(1)
    const row = table.locator('tbody tr.record').first()
    await expect.poll(async () => await row.textContent()).toContain('customer-7')
    // The search is in the URL, so it can be shared or reloaded.
    expect(suite.page.url()).toContain('filter=o-42')

    // Opening the row shows the value pretty-printed and the header.
    await row.click()
    const detail = suite.page.locator('.record-detail')
    await detail.getByText('"order": "o-42"').waitFor()
    await detail.getByText('source').waitFor()
    await screenshot(suite.page, 'messages-filtered')

    await form.getByLabel('Filter').selectOption('jsonPath')
    await form.getByLabel(/^Path/).fill('$.amount=3')
    await form.getByRole('button', { name: 'Search' }).click()
    await status.filter({ hasText: /· 1 matched/ }).waitFor()
    await expect.poll(async () => await table.locator('tbody tr.record').first().textContent()).toContain('customer-8')

    // A bad path is the server's 400, shown in the suite.page.
    await form.getByLabel(/^Path/).fill('amount')
    await form.getByRole('button', { name: 'Search' }).click()
    await suite.page.getByRole('alert').filter({ hasText: 'BAD_REQUEST' }).waitFor()
  })

  it('cancels a running search: the request is aborted and the page stays usable meanwhile', async () => {
    await suite.page.goto(`${suite.stack.url}/topics/${topic}/messages`)
    const table = suite.page.getByRole('table', { name: 'messages' })
    await table.locator('tbody tr.record').first().waitFor()
    // Hold the next search at the network layer, so it is still running when Cancel is clicked
    // however fast the server is; the test then sees the page abort it.
    const held: Array<() => Promise<void>> = []
    await suite.page.route('**/api/topics/*/messages?*', async (route) => {
      if (!route.request().url().includes('q=never-there')) return await route.continue()
      held.push(async () => await route.continue().catch(() => {}))
    })
    const aborted = suite.page.waitForEvent('requestfailed', (r) => r.url().includes('q=never-there'))
    const form = suite.page.getByRole('form', { name: 'browse messages' })
    await form.getByLabel('Filter').selectOption('substring')
    await form.getByLabel('Text').fill('never-there')
    await form.getByRole('button', { name: 'Search' }).click()
    await suite.page.getByText('Scanning on the server…').waitFor()
    // Still responsive: the tabs work and the form can be edited while the scan runs.
    await suite.page.getByRole('tab', { name: 'Live tail' }).click()
    await suite.page.getByRole('tab', { name: 'Browse' }).click()
    await form.getByRole('button', { name: 'Cancel' }).click()
    await aborted
    await suite.page.getByText('Search cancelled').waitFor()
    await form.getByRole('button', { name: 'Search' }).waitFor()
    await suite.page.unroute('**/api/topics/*/messages?*')
    for (const release of held) await release()
  })

  it('alters a config, adds partitions, and deletes the topic only once its name is typed', async () => {
    const { page, stack } = suite
    await page.goto(`${stack.url}/topics/${topic}`)
    await page.getByRole('button', { name: 'Edit config' }).click()
    const edit = page.getByRole('dialog', { name: `Edit config of ${topic}` })
    await edit.getByLabel('Config name').fill('retention.ms')
    await edit.getByLabel(/^Value/).fill('3600000')
    await edit.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Config changed.').waitFor()
    await page
      .getByRole('table', { name: 'configs' })
      .getByRole('row', { name: /^retention\.ms 3600000 topic/ })
      .waitFor()

    await page.getByRole('button', { name: 'Add partitions' }).click()
    const grow = page.getByRole('dialog', { name: `Add partitions to ${topic}` })
    await grow.getByLabel('New total').fill('5')
    await grow.getByRole('button', { name: 'Add' }).click()
    await page.getByText('Partitions added.').waitFor()
    const rows = page.getByRole('table', { name: 'partitions' }).locator('tbody tr')
    await expect.poll(async () => await rows.count()).toBe(5)
    // Fewer partitions than now: the form refuses it before asking the server (and stays open).
    await page.getByRole('button', { name: 'Add partitions' }).click()
    await grow.getByLabel('New total').fill('2')
    await grow.getByRole('button', { name: 'Add' }).click()
    expect(await page.evaluate('document.querySelector("dialog input[name=count]").validity.valid')).toBe(false)
    await grow.getByRole('button', { name: 'Cancel' }).click()
    await grow.waitFor({ state: 'detached' })
    expect(await rows.count()).toBe(5)

    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    const del = page.getByRole('dialog', { name: `Delete ${topic}` })
    const confirm = del.getByRole('button', { name: 'Delete topic' })
    expect(await confirm.isDisabled()).toBe(true)
    await del.getByLabel('Topic name').fill(topic.slice(0, -1))
    expect(await confirm.isDisabled()).toBe(true)
    await del.getByLabel('Topic name').fill(topic)
    await screenshot(page, 'topic-delete')
    await confirm.click()
    await page.waitForURL(`${stack.url}/topics`)
    await waitFor(async () => !(await suite.client.admin().listTopics()).includes(topic), {
      timeoutMs: 30_000,
      description: `${topic} deleted`,
    })
  })
})

describe('console in Chromium: consumer groups', () => {
  const topic = `lag-${randomUUID().slice(0, 8)}`
  const group = `billing-${randomUUID().slice(0, 8)}`
  const RECORDS = 2000
  const STEP = 500

  it("shows a group's lag falling while a consumer reads, then resets its offsets with a dry run first", async () => {
    await suite.client.admin().createTopics([{ name: topic, numPartitions: 2, replicationFactor: 1 }])
    await waitForLeaders(suite.stack.url, topic)
    const producer = suite.client.producer({ acks: 'all' })
    for (let i = 0; i < RECORDS; i += 250)
      await producer.send({
        topic,
        records: Array.from({ length: 250 }, (_, j) => ({ key: `k${i + j}`, value: JSON.stringify({ n: i + j }) })),
      })
    await producer.close()

    const consumer = suite.client.consumer({
      groupId: group,
      autoCommit: false,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 200,
      maxWaitMs: 100,
    })
    consumer.subscribe({ topics: [topic] })
    const records = consumer.messages()
    // Reads n records and commits exactly past them (the default commit counts the last record
    // delivered as still in progress), so each step lowers the lag by exactly n. A partition not
    // read yet is committed at 0: without a committed offset its lag is unknown, not counted.
    const next = new Map<number, bigint>([
      [0, 0n],
      [1, 0n],
    ])
    const read = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        const r = await records.next()
        if (r.done === true) throw new Error('the consumer ended early')
        next.set(r.value.partition, r.value.offset + 1n)
      }
      await consumer.commit([...next].map(([partition, offset]) => ({ topic, partition, offset })))
    }

    await read(STEP)
    await suite.page.goto(`${suite.stack.url}/groups`)
    await suite.page.getByRole('table', { name: 'consumer groups' }).getByRole('link', { name: group }).click()
    await suite.page.waitForURL(`${suite.stack.url}/groups/${group}`)
    const lag = suite.page.getByTestId('total-lag')
    // The page polls the server: each committed step shows up as a lower total lag.
    const seen: string[] = []
    for (let left = RECORDS - STEP; left >= 0; left -= STEP) {
      const want = left.toLocaleString('en-US')
      await lag
        .filter({ hasText: new RegExp(`^${want}$`) })
        .waitFor({ timeout: 30_000 })
        .catch(async (err: unknown) => {
          throw new Error(`total lag never showed ${want}; it shows ${await lag.textContent()}`, { cause: err })
        })
      seen.push(want)
      if (left === RECORDS / 2) await screenshot(suite.page, 'group-lag-falling')
      if (left > 0) await read(STEP)
    }
    expect(seen).toEqual(['1,500', '1,000', '500', '0'])
    const lagRows = suite.page.getByRole('table', { name: 'lag per partition' }).locator('tbody tr')
    await expect.poll(async () => await lagRows.count()).toBe(2)
    await screenshot(suite.page, 'group')

    // A reset needs the group empty (the server refuses otherwise): stop the consumer.
    await consumer.close()
    await suite.page
      .getByRole('table', { name: 'members' })
      .getByText('No active members.')
      .waitFor({ timeout: 30_000 })

    await suite.page.getByRole('button', { name: 'Reset offsets' }).click()
    const dialog = suite.page.getByRole('dialog', { name: `Reset offsets of ${group}` })
    expect(await dialog.getByLabel('Topic').inputValue()).toBe(topic)
    await dialog.getByLabel('Reset to').selectOption('earliest')
    // Execute is only possible once a plan has been shown.
    expect(await dialog.getByRole('button', { name: 'Execute' }).isDisabled()).toBe(true)
    await dialog.getByRole('button', { name: 'Dry run' }).click()
    const plan = dialog.getByRole('table', { name: 'reset plan' })
    await expect.poll(async () => await plan.locator('tbody tr').count()).toBe(2)
    // Each row: topic, partition, current (the committed end), target 0.
    const cells = await Promise.all(
      [0, 1].map(async (i) => await plan.locator('tbody tr').nth(i).locator('td').allTextContents()),
    )
    expect(cells.map((c) => c[3])).toEqual(['0', '0'])
    expect(cells.reduce((s, c) => s + Number(c[2]!.replace(/,/g, '')), 0)).toBe(RECORDS)
    await screenshot(suite.page, 'group-reset-plan')
    // The dry run changed nothing.
    const before = await suite.client.admin().fetchOffsets(group)
    expect(before.reduce((s, o) => s + Number(o.offset), 0)).toBe(RECORDS)

    await dialog.getByRole('button', { name: 'Execute' }).click()
    await dialog.waitFor({ state: 'detached' })
    await lag.filter({ hasText: /^2,000$/ }).waitFor({ timeout: 30_000 })
    const after = await suite.client.admin().fetchOffsets(group)
    expect(after.map((o) => Number(o.offset))).toEqual([0, 0])
  })

  it('logged no page error', () => {
    expect(suite.watched.errors).toEqual([])
    expect(suite.watched.foreign).toEqual([])
  })
})
