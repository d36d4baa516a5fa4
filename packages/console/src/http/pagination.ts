/**
 * Server-side pagination, the same for every list: `?page=` (from 1) and `?pageSize=` (1-500,
 * default 50), answered as { items, total, page, pageSize }. Lists are cut before the costly part
 * of a row is computed (sizes, offsets, lag), so a page costs the same with 10 or 10,000 items.
 */
import { intParam } from './query.js'

export const DEFAULT_PAGE_SIZE = 50
export const MAX_PAGE_SIZE = 500

export interface PageRequest {
  readonly page: number
  readonly pageSize: number
}

export interface Page<T> {
  readonly items: T[]
  readonly total: number
  readonly page: number
  readonly pageSize: number
}

export function pageRequest(q: URLSearchParams): PageRequest {
  return {
    page: intParam(q, 'page', { min: 1, fallback: 1 })!,
    pageSize: intParam(q, 'pageSize', { min: 1, max: MAX_PAGE_SIZE, fallback: DEFAULT_PAGE_SIZE })!,
  }
}

/** The requested slice of `all` (already filtered and sorted). */
export function slicePage<T>(all: readonly T[], r: PageRequest): { slice: T[]; total: number } {
  const from = (r.page - 1) * r.pageSize
  return { slice: all.slice(from, from + r.pageSize), total: all.length }
}

/** Case-insensitive substring search on a name; an empty search keeps everything. */
export function matchesSearch(name: string, search: string | null): boolean {
  return search === null || search === '' || name.toLowerCase().includes(search.toLowerCase())
}
