/**
 * Light or dark: the system's prefers-color-scheme (followed live) unless the user picked one
 * with the toggle, which is remembered in localStorage. The result is a data-theme attribute on
 * <html>, the one thing styles.css reads.
 */
const KEY = 'sluice-console-theme'

export type Theme = 'light' | 'dark'

const system = matchMedia('(prefers-color-scheme: dark)')

function stored(): Theme | undefined {
  const v = localStorage.getItem(KEY)
  return v === 'light' || v === 'dark' ? v : undefined
}

export function currentTheme(): Theme {
  return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'
}

export function applyTheme(): void {
  document.documentElement.dataset.theme = stored() ?? (system.matches ? 'dark' : 'light')
}

// A system switch (evening mode) applies unless the user chose a theme here.
system.addEventListener('change', () => {
  if (stored() === undefined) applyTheme()
})

export function toggleTheme(): Theme {
  const next: Theme = currentTheme() === 'dark' ? 'light' : 'dark'
  localStorage.setItem(KEY, next)
  applyTheme()
  return next
}
