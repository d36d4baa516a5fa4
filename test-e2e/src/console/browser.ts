/**
 * Real Chromium for the console's tests: Debian's package (/usr/bin/chromium, which .ci/run
 * installs) driven by playwright-core, headless, `--no-sandbox` because CI runs as root. Every
 * page's console errors and failed requests to other origins are collected, so a test can
 * assert the page fetched nothing from the internet and logged no error.
 */
import { mkdir } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'

export const CHROMIUM = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium'
/** Screenshots of every view, kept as test artifacts (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../artifacts/console', import.meta.url))

export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true })
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
}

export interface WatchedPage {
  readonly context: BrowserContext
  readonly page: Page
  /** console.error lines (other than Chromium's own failed-request lines) and uncaught page errors. */
  readonly errors: string[]
  /** Requests that left the console's origin. */
  readonly foreign: string[]
}

export async function openPage(
  browser: Browser,
  base: string,
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: 1360, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
  })
  const page = await context.newPage()
  const errors: string[] = []
  const foreign: string[] = []
  const origin = new URL(base).origin
  page.on('console', (m) => {
    // An API answering 4xx is logged by Chromium itself; the page shows those errors in place.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('request', (r) => {
    const u = r.url()
    if (!u.startsWith(origin) && !u.startsWith('data:')) foreign.push(u)
  })
  page.setDefaultTimeout(20_000)
  return { context, page, errors, foreign }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true })
}
