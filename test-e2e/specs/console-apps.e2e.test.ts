/**
 * The console's connectors and streams pages in real Chromium, with real applications behind
 * them: a Sluice Connect worker (`sluice connect`, its own process) running a file source, which
 * the page lists, pauses, resumes, restarts and reconfigures; and a streams application (a count
 * per key, its own process), whose tasks, instance and lag the page shows. Against a console
 * server without those routes, the pages must say "not available" instead.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { waitFor } from '@sluice/testkit'
import { afterAll, describe, expect, it } from 'vitest'
import { screenshot } from '../src/console/browser.js'
import { getJson, waitForLeaders } from '../src/console/console-api.js'
import { useConsoleSuite } from '../src/console/console-suite.js'
import { type ConnectWorker, startConnectWorker } from '../src/console/connect-worker.js'
import { COUNT_INSTANCE, InstanceProcesses, requireBuiltStreams } from './streams-instances.js'

let worker: ConnectWorker | undefined
const suite = useConsoleSuite('console-apps-e2e', undefined, async (cluster) => {
  worker = await startConnectWorker(cluster.bootstrap, 'console-e2e-connect')
  return { connectUrl: worker.url }
})
const instances = new InstanceProcesses(() => suite.stack.cluster.bootstrap)
const dirs: string[] = []

afterAll(async () => {
  instances.killAll()
  await worker?.stop()
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

async function workerRest(method: string, p: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${worker!.url}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

describe('console in Chromium: connectors', () => {
  it('lists a running connector, pauses, resumes and restarts it, and edits its config', async () => {
    const { page, stack } = suite
    const file = path.join(worker!.dir, 'lines.txt')
    await writeFile(file, 'first line\nsecond line\n')
    const created = await workerRest('PUT', '/connectors/lines-src/config', {
      'connector.class': 'FileStreamSource',
      file,
      topic: 'console-lines',
    })
    expect(created.status).toBe(201)

    await page.goto(`${stack.url}/connectors`)
    const row = page.getByRole('table', { name: 'connectors' }).getByRole('row', { name: /lines-src/ })
    // The State column is the connector's; the Tasks column has a state per task.
    const state = row.locator('td').nth(2)
    await state.getByText('RUNNING', { exact: true }).waitFor({ timeout: 30_000 })
    await row.getByTitle('task 0').getByText('RUNNING').waitFor({ timeout: 30_000 })
    await screenshot(page, 'connectors')

    await row.getByRole('button', { name: 'Pause' }).click()
    await state.getByText('PAUSED', { exact: true }).waitFor({ timeout: 30_000 })
    expect(
      ((await workerRest('GET', '/connectors/lines-src/status')).body as { connector: { state: string } }).connector
        .state,
    ).toBe('PAUSED')
    await row.getByRole('button', { name: 'Resume' }).click()
    await state.getByText('RUNNING', { exact: true }).waitFor({ timeout: 30_000 })

    await row.getByRole('link', { name: 'lines-src' }).click()
    await page.waitForURL(`${stack.url}/connectors/lines-src`)
    await page.getByText('Task 0').waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Restart' }).click()
    await page.getByText('RUNNING', { exact: true }).first().waitFor({ timeout: 30_000 })
    expect(await page.getByRole('alert').count()).toBe(0)

    const editor = page.getByLabel('connector config')
    await expect.poll(async () => await editor.inputValue()).toContain('FileStreamSource')
    const config = JSON.parse(await editor.inputValue()) as Record<string, string>
    await editor.fill(JSON.stringify({ ...config, 'tasks.max': '1', 'batch.size': '100' }, null, 2))
    await page.getByRole('button', { name: 'Save config' }).click()
    await page.getByText('Config saved.').waitFor()
    const after = (await workerRest('GET', '/connectors/lines-src/config')).body as Record<string, string>
    expect(after['batch.size']).toBe('100')
    await screenshot(page, 'connector')

    // A config that is not JSON is refused in the page, before any request.
    await editor.fill('{ not json')
    await page.getByRole('button', { name: 'Save config' }).click()
    await page.getByRole('alert').filter({ hasText: 'not JSON' }).waitFor()
  })
})

describe('console in Chromium: streams applications', () => {
  it("shows a running streams application's tasks, instance and lag", async () => {
    const { page, stack, client } = suite
    requireBuiltStreams()
    const app = 'console-counter'
    await client
      .admin()
      .createTopics(
        ['console-words', 'console-counts'].map((name) => ({ name, numPartitions: 2, replicationFactor: 1 })),
      )
    for (const t of ['console-words', 'console-counts']) await waitForLeaders(stack.console.url, t)
    const stateDir = await mkdtemp(path.join(tmpdir(), 'sluice-console-streams-'))
    dirs.push(stateDir)
    const instance = instances.start(COUNT_INSTANCE, {
      APP: app,
      INPUT: 'console-words',
      OUTPUT: 'console-counts',
      STATE_DIR: stateDir,
    })
    await waitFor(() => instance.started() || instance.stopped(), { timeoutMs: 60_000, description: 'the app started' })
    expect(instance.stopped()).toBe(false)
    const producer = client.producer({ acks: 'all' })
    await producer.send({
      topic: 'console-words',
      records: Array.from({ length: 200 }, (_, i) => ({ key: `w${i % 13}`, value: 'x' })),
    })
    await producer.close()

    await page.goto(`${stack.url}/streams`)
    // The application shows up once its instance has joined with the streams assignor.
    await waitFor(async () => (await getJson(stack.console.url, `/api/streams/${app}`)).status === 200, {
      timeoutMs: 60_000,
      description: 'the console sees the streams application',
    })
    const link = page.getByRole('table', { name: 'streams applications' }).getByRole('link', { name: app })
    await link.waitFor({ timeout: 30_000 })
    await screenshot(page, 'streams')
    await link.click()
    await page.waitForURL(`${stack.url}/streams/${app}`)
    const tasks = page.getByRole('table', { name: 'tasks' })
    await expect.poll(async () => await tasks.locator('tbody tr').count(), { timeout: 30_000 }).toBe(2)
    // Every task runs on the one instance, and it catches up with the input.
    await tasks.getByText('unassigned').waitFor({ state: 'detached', timeout: 30_000 })
    await page.getByRole('table', { name: 'instances' }).locator('tbody tr').first().waitFor()
    await page
      .locator('.stat', { hasText: 'Total lag' })
      .locator('.stat-value', { hasText: /^0$/ })
      .waitFor({ timeout: 30_000 })
    await screenshot(page, 'stream')
  })

  it('logged no page error', () => {
    expect(suite.watched.errors).toEqual([])
    expect(suite.watched.foreign).toEqual([])
  })
})
