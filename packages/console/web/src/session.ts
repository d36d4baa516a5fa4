/**
 * What the server told the page about itself (GET /api/session): read-only mode hides write
 * actions (the server refuses them anyway), tokenRequired makes the shell ask for a token,
 * connect says whether the Connect pages have a cluster behind them.
 */
import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Session } from './api/types.js'

/** Assumed when the server has no /api/session yet: writable, no token, Connect unknown. */
export const FALLBACK_SESSION: Session = { readOnly: false, tokenRequired: false, connect: true, version: '' }

export const SessionContext = createContext<Session>(FALLBACK_SESSION)

export const useSession = (): Session => useContext(SessionContext)
