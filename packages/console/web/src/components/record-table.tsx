/**
 * Records as a table (partition, offset, time, key, value preview, header count); a click or
 * Enter on a row opens its detail below it: key and value in full (JSON pretty-printed, binary
 * as hex with its size) and every header. Used by the message browser and the live tail.
 */
import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import type { BytesView, Message } from '../api/types.js'
import { bytesPreview, bytesText, fmtBytes, fmtInt, fmtTime } from '../format.js'

function Bytes(props: { b: BytesView; label: string }) {
  const b = props.b
  const kind = b === null ? 'null' : b.encoding === 'hex' ? 'binary' : b.json !== undefined ? 'JSON' : 'text'
  return (
    <div>
      <div class="muted">
        {props.label} · {kind}
        {b !== null && ` · ${fmtBytes(b.size)}`}
        {b?.truncated === true && ' · truncated'}
      </div>
      <pre>{bytesText(b, true)}</pre>
    </div>
  )
}

function Detail(props: { m: Message }) {
  const m = props.m
  return (
    <div class="record-detail">
      <Bytes b={m.key} label="Key" />
      <Bytes b={m.value} label="Value" />
      <div class="muted">Headers</div>
      {m.headers.length === 0 ? (
        <span class="muted">none</span>
      ) : (
        <dl class="kv">
          {m.headers.map((h, i) => (
            <Fragment key={`${h.key}-${i}`}>
              <dt>{h.key}</dt>
              <dd class="mono">{bytesPreview(h.value, 400)}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </div>
  )
}

export function RecordTable(props: { messages: readonly Message[]; label: string; empty: string }) {
  const [open, setOpen] = useState<string | null>(null)
  const keyOf = (m: Message): string => `${m.partition}:${m.offset}`
  return (
    <div class="table-wrap">
      <table aria-label={props.label}>
        <thead>
          <tr>
            <th class="num">Partition</th>
            <th class="num">Offset</th>
            <th>Timestamp</th>
            <th>Key</th>
            <th>Value</th>
            <th class="num">Headers</th>
          </tr>
        </thead>
        <tbody>
          {props.messages.length === 0 && (
            <tr>
              <td class="empty" colSpan={6}>
                {props.empty}
              </td>
            </tr>
          )}
          {props.messages.map((m) => {
            const k = keyOf(m)
            const toggle = (): void => setOpen(open === k ? null : k)
            return (
              <Fragment key={k}>
                <tr
                  class={`record ${open === k ? 'selected' : ''}`}
                  tabIndex={0}
                  aria-expanded={open === k}
                  onClick={toggle}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' || e.key === ' ') {
                      e.preventDefault()
                      toggle()
                    }
                  }}
                >
                  <td class="num">{m.partition}</td>
                  <td class="num">{fmtInt(m.offset)}</td>
                  <td class="mono">{fmtTime(m.timestamp)}</td>
                  <td class="mono">{bytesPreview(m.key, 40)}</td>
                  <td class="mono record-value">{bytesPreview(m.value)}</td>
                  <td class="num">{m.headers.length}</td>
                </tr>
                {open === k && (
                  <tr>
                    <td colSpan={6}>
                      <Detail m={m} />
                    </td>
                  </tr>
                )}
              </Fragment>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}
