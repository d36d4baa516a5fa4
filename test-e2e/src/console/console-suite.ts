/**
 * One console test file's world, set up before its tests and torn down after them: the stack
 * (spawned cluster + console), an SDK client on the same cluster, Chromium and one watched page.
 * `prepare` runs after the client connects and before the browser starts (topics, records).
 */
import { connect, type SluiceClient } from '@sluice/client'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll } from 'vitest'
import { launchChromium, openPage, type WatchedPage } from './browser.js'
import { type BeforeConsole, startConsoleStack, type ConsoleStack } from './console-stack.js'

export interface ConsoleSuite {
  stack: ConsoleStack
  client: SluiceClient
  browser: Browser
  watched: WatchedPage
  page: Page
}

export function useConsoleSuite(
  clientId: string,
  prepare?: (s: ConsoleSuite) => Promise<void>,
  beforeConsole?: BeforeConsole,
): ConsoleSuite {
  const s = {} as ConsoleSuite
  beforeAll(async () => {
    s.stack = await startConsoleStack({}, beforeConsole)
    s.client = await connect({ bootstrap: s.stack.cluster.bootstrap, clientId })
    await prepare?.(s)
    s.browser = await launchChromium()
    s.watched = await openPage(s.browser, s.stack.url)
    s.page = s.watched.page
  })
  afterAll(async () => {
    await s.watched?.context.close().catch(() => {})
    await s.browser?.close().catch(() => {})
    await s.client?.close().catch(() => {})
    await s.stack?.stop()
  })
  return s
}
