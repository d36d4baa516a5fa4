/**
 * The list search box: `/` focuses it (data-search), typing updates the URL's ?search= after a
 * short pause so the server is asked once per word, not per key, and the page goes back to 1.
 */
import { useEffect, useState } from 'preact/hooks'
import { setSearch } from '../router.js'

const DEBOUNCE_MS = 250

export function SearchBox(props: { value: string; placeholder: string; label: string }) {
  const [text, setText] = useState(props.value)
  useEffect(() => {
    if (text === props.value) return
    const t = setTimeout(() => setSearch({ search: text, page: undefined }), DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [text])
  return (
    <input
      type="search"
      data-search
      aria-label={props.label}
      placeholder={`${props.placeholder}  ( / )`}
      value={text}
      onInput={(e) => setText(e.currentTarget.value)}
      onKeyDown={(e) => {
        // Enter searches at once; Escape clears.
        if (e.key === 'Enter') setSearch({ search: text, page: undefined })
        if (e.key === 'Escape') setText('')
      }}
    />
  )
}
