/**
 * A small SVG line chart drawn by hand (no chart library, nothing fetched): one or more series
 * over shared timestamps, a y axis from 0 to a rounded maximum with three grid lines, and the
 * first and last times under the x axis. It scales with its container through the viewBox.
 */

import { niceMax } from './chart-scale.js'

export interface Series {
  readonly name: string
  /** CSS class giving the stroke colour (chart-a, chart-b …), themed in styles.css. */
  readonly tone: string
  readonly values: readonly number[]
}

const W = 600
const H = 180
const PAD = { left: 84, right: 12, top: 12, bottom: 24 }

const clock = (t: number): string => new Date(t).toTimeString().slice(0, 8)

export function LineChart(props: {
  title: string
  times: readonly number[]
  series: readonly Series[]
  format: (v: number) => string
  /** Round the axis in 1024s (byte rates). */
  binary?: boolean
}) {
  const n = props.times.length
  const max = niceMax(Math.max(0, ...props.series.flatMap((s) => s.values)), props.binary === true)
  const plotW = W - PAD.left - PAD.right
  const plotH = H - PAD.top - PAD.bottom
  const x = (i: number): number => PAD.left + (n <= 1 ? plotW : (i / (n - 1)) * plotW)
  const y = (v: number): number => PAD.top + plotH - (Math.max(0, v) / max) * plotH
  const latest = props.series.map((s) => `${s.name} ${props.format(s.values[s.values.length - 1] ?? 0)}`).join(', ')
  return (
    <figure class="chart">
      <figcaption>
        <span>{props.title}</span>
        <span class="legend">
          {props.series.map((s) => (
            <span key={s.name} class={`key ${s.tone}`}>
              {s.name} <b>{props.format(s.values[s.values.length - 1] ?? 0)}</b>
            </span>
          ))}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${props.title}: ${n === 0 ? 'no samples yet' : latest}`}>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line class="grid" x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} />
            <text class="axis" x={PAD.left - 6} y={y(max * f) + 4} text-anchor="end">
              {props.format(max * f)}
            </text>
          </g>
        ))}
        {n === 0 ? (
          <text class="axis" x={W / 2} y={H / 2} text-anchor="middle">
            waiting for samples…
          </text>
        ) : (
          <>
            {props.series.map((s) => (
              <g key={s.name}>
                <polyline
                  class={`line ${s.tone}`}
                  points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
                />
                {/* The latest value as a dot, so even a first single sample is visible. */}
                <circle class={`dot ${s.tone}`} cx={x(n - 1)} cy={y(s.values[n - 1] ?? 0)} r={3} />
              </g>
            ))}
            <text class="axis" x={PAD.left} y={H - 6}>
              {clock(props.times[0]!)}
            </text>
            <text class="axis" x={W - PAD.right} y={H - 6} text-anchor="end">
              {clock(props.times[n - 1]!)}
            </text>
          </>
        )}
      </svg>
    </figure>
  )
}
