/**
 * Builds the console's page into packages/console/dist/web (index.html + hashed files under
 * assets/), which the console server serves. Everything the page uses is bundled here, so a
 * console on a machine without internet access works the same.
 */
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

const root = fileURLToPath(new URL('.', import.meta.url))

export default defineConfig({
  root,
  base: '/',
  // No public/ folder: every asset goes through the bundler and gets a hashed name.
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    // dist/web sits outside the web root; it holds only this build's output, so clear it.
    emptyOutDir: true,
    // Inline nothing as data: URLs and emit no source maps into the served folder.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
})
