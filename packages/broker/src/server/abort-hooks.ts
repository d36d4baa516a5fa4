/**
 * Callbacks to run when a signal aborts, held in a plain Set per signal behind one real listener.
 *
 * Why: every parked fetch (a follower's or a caught-up consumer's, hundreds a second per broker)
 * needs to hear that its connection closed, and stops listening when it is answered. EventTarget's
 * addEventListener and removeEventListener validate their arguments and build listener records
 * on each call; a Set add and delete cost a small fraction of that (issue 16).
 */
const hooks = new WeakMap<AbortSignal, Set<() => void>>()

/** Runs `fn` once `signal` aborts (never if it already has); returns the call that cancels that. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let set = hooks.get(signal)
  if (set === undefined) {
    const callbacks = new Set<() => void>()
    set = callbacks
    hooks.set(signal, callbacks)
    signal.addEventListener(
      'abort',
      () => {
        hooks.delete(signal)
        for (const f of callbacks) f()
      },
      { once: true },
    )
  }
  set.add(fn)
  const registered = set
  return () => {
    registered.delete(fn)
  }
}
