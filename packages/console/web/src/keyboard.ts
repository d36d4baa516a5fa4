/**
 * Keyboard shortcuts, ignored while typing in a field: `/` focuses the view's search box (any
 * element marked data-search), `g` then a letter goes to a view (o overview, t topics, g groups,
 * b brokers, c connectors, s streams), `?` shows the list.
 */
import { navigate } from './router.js'

export const GO_KEYS: Readonly<Record<string, { path: string; label: string }>> = {
  o: { path: '/', label: 'Overview' },
  t: { path: '/topics', label: 'Topics' },
  g: { path: '/groups', label: 'Consumer groups' },
  b: { path: '/brokers', label: 'Brokers' },
  c: { path: '/connectors', label: 'Connectors' },
  s: { path: '/streams', label: 'Streams' },
}

function typing(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null
  if (el === null || el.tagName === undefined) return false
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)
}

export function installShortcuts(showHelp: () => void): () => void {
  let pendingGo = false
  const onKey = (e: KeyboardEvent): void => {
    if (e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return
    if (document.querySelector('dialog[open]') !== null) return
    if (pendingGo) {
      pendingGo = false
      const go = GO_KEYS[e.key]
      if (go !== undefined) {
        e.preventDefault()
        navigate(go.path)
      }
      return
    }
    if (e.key === '/') {
      const box = document.querySelector<HTMLElement>('[data-search]')
      if (box !== null) {
        e.preventDefault()
        box.focus()
      }
    } else if (e.key === 'g') pendingGo = true
    else if (e.key === '?') {
      e.preventDefault()
      showHelp()
    }
  }
  document.addEventListener('keydown', onKey)
  return () => document.removeEventListener('keydown', onKey)
}
