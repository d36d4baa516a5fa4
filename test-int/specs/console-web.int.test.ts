/**
 * The console's HTTP surface around the API, on a REAL in-process cluster: the front end's files
 * (content types, cache headers, the SPA's history routes answered with index.html, no way out
 * of the build directory, a clear page when the front end was not built, no token needed),
 * GET /api/session (open, telling only how the console is set up), and every route that changes
 * something refused on the server: 403 in read-only mode, 401 without the token, nothing changed.
 */
import { randomUUID } from 'node:crypto'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { connect as netConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startConsoleServer, type ConsoleServer, type ConsoleServerOptions } from '@sluice/console'
import { startRealCluster, type RealCluster } from '../src/client/real-cluster.js'
import { http } from '../src/console-http.js'

let cluster: RealCluster
let dir: string
let web: string

const INDEX = '<!doctype html><title>console</title><script type="module" src="/assets/app-1a2b3c.js"></script>'

beforeAll(async () => {
  cluster = await startRealCluster({ prefix: 'sluice-console-web-' })
  dir = await mkdtemp(join(tmpdir(), 'sluice-console-web-files-'))
  web = join(dir, 'web')
  await mkdir(join(web, 'assets'), { recursive: true })
  await writeFile(join(web, 'index.html'), INDEX)
  await writeFile(join(web, 'assets', 'app-1a2b3c.js'), 'console.log("app")\n')
  await writeFile(join(web, 'assets', 'app-1a2b3c.css'), 'body{}\n')
  await writeFile(join(web, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  await writeFile(join(dir, 'secret.txt'), 'outside the build')
  await symlink(join(dir, 'secret.txt'), join(web, 'link-out.txt'))
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

async function consoleWith(options: Partial<ConsoleServerOptions>): Promise<ConsoleServer> {
  const server = await startConsoleServer({ client: cluster.client, port: 0, webRoot: web, ...options })
  onTestFinished(async () => {
    await server.close()
  })
  return server
}

/** A request with the path sent exactly as written (fetch would normalise `..` away). */
async function rawGet(port: number, path: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`)
    })
    const chunks: Buffer[] = []
    socket.on('data', (c) => chunks.push(c))
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.on('error', reject)
  })
}

describe('console: the front end', () => {
  it('serves the build with content types and cache headers, and index.html for page routes', async () => {
    const server = await consoleWith({ token: 'needed-for-the-api-only' })
    const root = await http(server.url, 'GET', '/')
    expect([root.status, root.text]).toEqual([200, INDEX])
    expect(root.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(root.headers.get('cache-control')).toBe('no-cache')
    const csp = root.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    const js = await http(server.url, 'GET', '/assets/app-1a2b3c.js')
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect((await http(server.url, 'GET', '/assets/app-1a2b3c.css')).headers.get('content-type')).toMatch(/^text\/css/)
    const svg = await http(server.url, 'GET', '/favicon.svg')
    expect([svg.headers.get('content-type'), svg.headers.get('cache-control')]).toEqual(['image/svg+xml', 'no-cache'])
    for (const route of ['/topics/orders', '/groups/g1', '/topics/a.b/messages?partition=0', '/index.html']) {
      const page = await http(server.url, 'GET', route)
      expect([route, page.status, page.text, page.headers.get('cache-control')]).toEqual([
        route,
        200,
        INDEX,
        'no-cache',
      ])
    }
    const stale = await http(server.url, 'GET', '/assets/app-000000.js')
    expect(stale.status).toBe(404)
    expect((await http(server.url, 'POST', '/topics')).status).toBe(405)
    // The API behind the page still wants the token.
    expect((await http(server.url, 'GET', '/api/cluster')).status).toBe(401)
  })

  it('never serves a file outside the build, however the path is written', async () => {
    const server = await consoleWith({})
    for (const path of [
      '/../secret.txt',
      '/assets/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      '/..%5csecret.txt',
      '/%00index.html',
      '/link-out.txt',
      '/assets/%E0%A4%A',
    ]) {
      const answer = await rawGet(server.port, path)
      expect(answer, path).not.toContain('outside the build')
      expect(answer, path).toMatch(/^HTTP\/1\.1 (200|400|404) /)
    }
    // The server is still serving.
    expect((await http(server.url, 'GET', '/')).status).toBe(200)
  })

  it('says the front end was not built when its directory is missing, and the API still answers', async () => {
    const server = await consoleWith({ webRoot: join(dir, 'not-built') })
    for (const path of ['/', '/topics/orders']) {
      const page = await http(server.url, 'GET', path)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.text).toContain('front end')
      expect(page.text).toContain('not')
      expect(page.text).toContain('pnpm run build')
    }
    expect((await http(server.url, 'GET', '/api/cluster')).status).toBe(200)
  })
})

describe('console: bad input to the new routes', () => {
  it('answers each with a typed 4xx and keeps serving', async () => {
    const server = await consoleWith({})
    for (const [path, status] of [
      ['/api/brokers/1e9', 400],
      ['/api/brokers/99999', 404],
      ['/api/brokers/1?pageSize=100000', 400],
      ['/api/brokers/1?page=0', 400],
      ['/api/topics/x/tail?partition=-1', 400],
      ['/api/topics/x/tail?from=%00', 400],
      ['/api/groups/%E0%A4%A/lag-history', 400],
      ['/api/streams/%E0%A4%A', 400],
      ['/api/streams?pageSize=abc', 400],
      ['/api/connect/connectors', 404],
      ['/api/metrics/throughput/extra', 404],
    ] as const) {
      const r = await http(server.url, 'GET', path)
      expect([path, r.status, typeof r.body.error_code, typeof r.body.message]).toEqual([
        path,
        status,
        'string',
        'string',
      ])
      // The same code and message nested too (docs/console.md, "Errors").
      expect(r.body.error).toEqual({ code: r.body.error_code, message: r.body.message })
    }
    const notJson = await fetch(`${server.url}/api/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": ',
    })
    expect(notJson.status).toBe(400)
    expect((await http(server.url, 'GET', '/api/session')).status).toBe(200)
  })
})

describe('console: the token on the live tail', () => {
  it('takes ?access_token= on the tail only (EventSource sends no headers), never elsewhere', async () => {
    const guarded = await consoleWith({ token: 'tail-token' })
    const auth = { authorization: 'Bearer tail-token' }
    const topic = `tail-token-${randomUUID()}`
    expect((await http(guarded.url, 'POST', '/api/topics', { name: topic, partitions: 1 }, auth)).status).toBe(201)
    expect((await http(guarded.url, 'GET', `/api/topics/${topic}/tail`)).status).toBe(401)
    expect((await http(guarded.url, 'GET', `/api/topics/${topic}/tail?access_token=wrong`)).status).toBe(401)
    const open = new AbortController()
    const tail = await fetch(`${guarded.url}/api/topics/${topic}/tail?access_token=tail-token`, { signal: open.signal })
    expect([tail.status, tail.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8'])
    open.abort()
    for (const path of ['/api/cluster', `/api/topics/${topic}`, `/api/topics/${topic}/messages`])
      expect((await http(guarded.url, 'GET', `${path}?access_token=tail-token`)).status, path).toBe(401)
    const post = await http(guarded.url, 'POST', `/api/topics/${topic}/messages?access_token=tail-token`, {
      value: 'x',
    })
    expect(post.status).toBe(401)
  })
})

describe('console: GET /api/session', () => {
  it('answers without the token and tells only how the console is set up', async () => {
    const open = await consoleWith({})
    const s = await http(open.url, 'GET', '/api/session')
    expect(s.status).toBe(200)
    expect(s.body).toEqual({ readOnly: false, tokenRequired: false, connect: false, version: expect.any(String) })
    const guarded = await consoleWith({ token: 't0ken', readOnly: true, connectUrl: 'http://127.0.0.1:9' })
    const g = await http(guarded.url, 'GET', '/api/session')
    expect(g.status).toBe(200)
    expect(g.body).toEqual({ readOnly: true, tokenRequired: true, connect: true, version: s.body.version })
    expect(JSON.stringify(g.body)).not.toContain('t0ken')
    expect(JSON.stringify(g.body)).not.toContain('127.0.0.1')
  })
})

describe('console: every change is authorised on the server', () => {
  // Every route that changes the cluster or a connector, with a body that would otherwise work.
  const topic = `guard-${randomUUID()}`
  const mutating: Array<[string, string, unknown?]> = [
    ['POST', '/api/topics', { name: topic, partitions: 1 }],
    ['PATCH', `/api/topics/${topic}/configs`, { configs: { 'retention.ms': '1000' } }],
    ['POST', `/api/topics/${topic}/partitions`, { count: 2 }],
    ['DELETE', `/api/topics/${topic}?confirm=${topic}`],
    ['POST', `/api/topics/${topic}/messages`, { value: 'x' }],
    ['POST', '/api/groups/g/reset-offsets', { topic, to: 'earliest', execute: true }],
    ['POST', '/api/connect/connectors', { name: 'c', config: { 'connector.class': 'FileStreamSource' } }],
    ['PUT', '/api/connect/connectors/c/config', { 'connector.class': 'FileStreamSource' }],
    ['PUT', '/api/connect/connectors/c/pause'],
    ['PUT', '/api/connect/connectors/c/resume'],
    ['PUT', '/api/connect/connectors/c/stop'],
    ['POST', '/api/connect/connectors/c/restart?includeTasks=true&onlyFailed=false'],
    ['POST', '/api/connect/connectors/c/tasks/0/restart'],
    ['DELETE', '/api/connect/connectors/c'],
  ]

  it('read-only mode answers 403 to each and changes nothing', async () => {
    const ro = await consoleWith({ readOnly: true, connectUrl: 'http://127.0.0.1:9' })
    for (const [method, path, body] of mutating) {
      const r = await http(ro.url, method, path, body)
      expect([method, path, r.status, r.body.error_code]).toEqual([method, path, 403, 'FORBIDDEN'])
    }
    expect((await http(ro.url, 'GET', `/api/topics/${topic}`)).status).toBe(404)
  })

  it('with a token, each answers 401 without it or with a wrong one, and changes nothing', async () => {
    const guarded = await consoleWith({ token: 'right', connectUrl: 'http://127.0.0.1:9' })
    for (const [method, path, body] of mutating) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'right' }] as Record<
        string,
        string
      >[]) {
        const r = await http(guarded.url, method, path, body, headers)
        expect([method, path, r.status, r.body.error_code]).toEqual([method, path, 401, 'UNAUTHORIZED'])
      }
    }
    const auth = { authorization: 'Bearer right' }
    expect((await http(guarded.url, 'GET', `/api/topics/${topic}`, undefined, auth)).status).toBe(404)
    // The same request with the token goes through (here: the topic is created).
    const made = await http(guarded.url, 'POST', '/api/topics', { name: topic, partitions: 1 }, auth)
    expect(made.status).toBe(201)
  })
})
