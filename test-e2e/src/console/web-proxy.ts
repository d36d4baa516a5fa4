/**
 * Test-only: serves the built page (packages/console/dist/web) and passes /api/* through to a
 * console server, for a console server that does not serve the page itself yet. Streams the
 * answers as they come, so the live tail's Server-Sent Events pass through unbuffered. Files
 * are resolved inside the root only; anything else answers index.html, as the real console does.
 */
import { readFile } from 'node:fs/promises'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

export interface WebProxy {
  readonly url: string
  close(): Promise<void>
}

export async function startWebProxy(webRoot: string, apiBase: string): Promise<WebProxy> {
  const api = new URL(apiBase)
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy.invalid')
    if (url.pathname.startsWith('/api/')) {
      const upstream = request(
        { host: api.hostname, port: api.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
        },
      )
      upstream.on('error', () => res.destroy())
      // The page going away (Cancel, a closed tail) must end the upstream request too.
      res.on('close', () => upstream.destroy())
      req.pipe(upstream)
      return
    }
    const file = path.resolve(webRoot, `.${decodeURIComponent(url.pathname)}`)
    const inside = file.startsWith(webRoot + path.sep) && path.extname(file) !== ''
    readFile(inside ? file : path.join(webRoot, 'index.html'))
      .catch(async () => await readFile(path.join(webRoot, 'index.html')))
      .then((body) => {
        const type = TYPES[path.extname(inside ? file : 'index.html')] ?? 'application/octet-stream'
        res.writeHead(200, { 'content-type': type }).end(body)
      })
      .catch(() => res.writeHead(500).end('no build'))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
