/** One figure in a row of summary boxes (overview, topic, group, streams app), optionally a link. */
import type { ComponentChildren } from 'preact'

export function Stat(props: {
  label: string
  children: ComponentChildren
  tone?: 'bad' | 'good' | undefined
  href?: string
  testId?: string
  /** Two columns wide, in a monospace font: for ids. */
  id?: boolean
}) {
  const body = (
    <>
      <span class="stat-label">{props.label}</span>
      <span class={`stat-value ${props.tone ?? ''} ${props.id === true ? 'mono' : ''}`} data-testid={props.testId}>
        {props.children}
      </span>
    </>
  )
  return props.href !== undefined ? (
    <a class={`stat ${props.id === true ? 'wide' : ''}`} href={props.href}>
      {body}
    </a>
  ) : (
    <div class={`stat ${props.id === true ? 'wide' : ''}`}>{body}</div>
  )
}

/** Red when something is wrong (a count above zero), green when it is zero. */
export const zeroIsGood = (n: number | string | null | undefined): 'bad' | 'good' =>
  Number(n ?? 0) > 0 ? 'bad' : 'good'
