/** Small DOM helpers: element lookup, SVG elements, and time formatting in the browser's zone. */

export function byId<T extends Element = HTMLElement>(id: string): T {
  const el = document.getElementById(id)
  if (!el) throw new Error(`the page has no #${id}`)
  return el as unknown as T
}

const SVG_NS = 'http://www.w3.org/2000/svg'

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag)
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, String(v))
  if (text !== undefined) el.textContent = text
  return el
}

export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v)
  el.append(...children)
  return el
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
const shortTimeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
const dateFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' })
/** With the year: for the instant the page is pinned to, which may be any year the service answers for. */
const fullDateFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })

export const timeZoneName = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'local time'
export const formatTime = (iso: string) => timeFormat.format(new Date(iso))
export const formatShortTime = (iso: string) => shortTimeFormat.format(new Date(iso))
export const formatDate = (iso: string) => dateFormat.format(new Date(iso))
/** A stretch of time, `21:03–21:07`; to the second when both ends fall in one minute (`21:03:10–21:03:44`, not `21:03–21:03`). */
export function formatTimeSpan(fromIso: string, toIso: string): string {
  const [from, to] = [formatShortTime(fromIso), formatShortTime(toIso)]
  return from === to ? `${formatTime(fromIso)}–${formatTime(toIso)}` : `${from}–${to}`
}
const zoneFormat = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' })
/** "UTC", "CEST", "GMT+2": the zone the page's times are in, at `iso`. */
export const zoneAt = (iso: string) => zoneFormat.formatToParts(new Date(iso)).find((p) => p.type === 'timeZoneName')?.value ?? ''
/** A readable date (with its year) and time; text that is no date (a mistyped `time` in the link) is shown as given. */
export const formatDateTime = (iso: string) =>
  Number.isNaN(Date.parse(iso)) ? `"${iso}"` : `${fullDateFormat.format(new Date(iso))} ${formatTime(iso)} ${zoneAt(iso)}`.trim()

/** How old a satellite's elements are at the instant shown: "180.1 days old", or how long before their epoch it is. */
export function formatElementAge(days: number): string {
  return days >= 0 ? `${days.toFixed(1)} days old` : `${(-days).toFixed(1)} days before their epoch`
}

/** A magnitude as people write it: one decimal and a true minus sign (−3.7, +1.2). */
export function formatMagnitude(magnitude: number): string {
  const text = Math.abs(magnitude).toFixed(1)
  return text === '0.0' ? '0.0' : `${magnitude < 0 ? '\u2212' : '+'}${text}`
}
