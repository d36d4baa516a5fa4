/**
 * The front end's files, served from the vite build (packages/console/dist/web) for every path
 * outside /api. The page routes in the browser (history API), so a path that names no file
 * (/topics/orders, /groups/g1) answers index.html and the page draws that view. Vite names
 * files under /assets/ by their content hash, so those may be cached for good; index.html must
 * be asked again every time (it names the current hashes). A path is resolved inside the root
 * and refused when it leaves it (`..`, encoded or not, a NUL, a symlink out). Without a build the
 * answer is a short page saying so, never a stack trace. No token is needed: the page has to
 * load before it can ask the user for one; the API behind it is what the token protects.
 */
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * packages/console/dist/web. This file runs as dist/http/static-assets.js (built) or as
 * src/http/static-assets.ts (tests run the sources); two levels up is the package either way.
 */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../dist/web/', import.meta.url))

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
}

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sluice console</title></head>
<body>
<h1>Sluice console</h1>
<p>The console's API is running (try <a href="/api/session">/api/session</a>), but its front end
was not built: <code>packages/console/dist/web</code> is missing.</p>
<p>Build it from the repository root with <code>pnpm run build</code>, then reload this page.</p>
</body></html>
`

/**
 * The page runs only its own built script and styles and talks only to its own origin: a value
 * shown in the page (a record, a topic name) can never become a script that runs or a request
 * that leaves. Preact sets styles through the CSSOM, which style-src does not restrict.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const

type Resolved = { kind: 'file'; path: string; size: number } | { kind: 'forbidden' } | { kind: 'none' }

/** The file under `root` a URL path names, if it is a regular file inside the root. */
async function resolveFile(root: string, pathname: string): Promise<Resolved> {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return { kind: 'forbidden' }
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { kind: 'forbidden' }
  const parts = decoded.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.includes('..')) return { kind: 'forbidden' }
  if (parts.length === 0) return { kind: 'none' }
  const candidate = join(root, ...parts)
  try {
    // realpath: a symlink inside the build must not lead out of it.
    const real = await realpath(candidate)
    if (!real.startsWith(root.endsWith(sep) ? root : root + sep)) return { kind: 'forbidden' }
    const s = await stat(real)
    return s.isFile() ? { kind: 'file', path: real, size: s.size } : { kind: 'none' }
  } catch {
    return { kind: 'none' }
  }
}

function sendFile(req: IncomingMessage, res: ServerResponse, path: string, size: number, cache: string): void {
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
    'content-length': size,
    'cache-control': cache,
    ...SECURITY_HEADERS,
  })
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  const file = createReadStream(path)
  file.on('error', () => res.destroy())
  file.pipe(res)
}

function sendText(res: ServerResponse, status: number, type: string, text: string): void {
  res
    .writeHead(status, {
      'content-type': type,
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-cache',
      ...SECURITY_HEADERS,
    })
    .end(text)
}

export async function serveStatic(req: IncomingMessage, res: ServerResponse, webRoot: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD')
    sendText(res, 405, 'text/plain; charset=utf-8', 'the console serves its page with GET only\n')
    return
  }
  let root: string
  try {
    root = await realpath(webRoot)
  } catch {
    sendText(res, 200, 'text/html; charset=utf-8', NOT_BUILT_PAGE)
    return
  }
  const pathname = new URL(req.url ?? '/', 'http://console.invalid').pathname
  const found = await resolveFile(root, pathname)
  if (found.kind === 'forbidden') {
    sendText(res, 400, 'text/plain; charset=utf-8', 'that path is not allowed\n')
    return
  }
  if (found.kind === 'file' && !found.path.endsWith(`${sep}index.html`)) {
    const hashed = pathname.startsWith('/assets/')
    sendFile(req, res, found.path, found.size, hashed ? 'public, max-age=31536000, immutable' : 'no-cache')
    return
  }
  // A missing file under /assets/ is a stale page asking for an old hash: a 404, not the page.
  if (pathname.startsWith('/assets/')) {
    sendText(res, 404, 'text/plain; charset=utf-8', 'no such asset (reload the page)\n')
    return
  }
  const index = await resolveFile(root, '/index.html')
  if (index.kind !== 'file') {
    sendText(res, 200, 'text/html; charset=utf-8', NOT_BUILT_PAGE)
    return
  }
  sendFile(req, res, index.path, index.size, 'no-cache')
}
