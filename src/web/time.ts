/**
 * The time control: follow the clock (Now), or any instant typed or stepped
 * to; every view shows the same instant. The instant is an ISO 8601 string
 * (UTC) or undefined for "now"; the input shows it in the browser's zone.
 * "Now" is the service's now (clock.ts): a step from it starts there.
 */
import { serviceClockReady, serviceNow } from './clock.ts'
import { byId } from './dom.ts'
import { withinTimeRange } from './instant.ts'

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** An instant as a datetime-local value (the browser's zone, to the minute; the year in four digits, as the input needs). */
export function localInputValue(iso: string): string {
  const d = new Date(iso)
  return `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

/**
 * The instant (ms) a datetime-local value names, or null when it is none the service answers for. While a
 * year is typed digit by digit, the browser reports each step as a whole value (year 0002, 0020, 0202, then
 * 2026): those before the last are outside the service's range and are not chosen.
 */
export function typedInstantMs(value: string): number | null {
  const ms = Date.parse(value) // a datetime-local value is read in the browser's zone
  return withinTimeRange(ms) ? ms : null
}

export class TimeControl {
  private readonly input = byId<HTMLInputElement>('time-input')
  private readonly now = byId<HTMLButtonElement>('time-now')
  private time: string | undefined

  constructor(private readonly onChange: (time: string | undefined) => void) {
    byId<HTMLFormElement>('time-form').addEventListener('submit', (e) => e.preventDefault())
    this.input.addEventListener('change', () => {
      const ms = typedInstantMs(this.input.value)
      if (ms !== null) this.choose(new Date(ms).toISOString())
    })
    this.now.addEventListener('click', () => this.choose(undefined))
    for (const button of document.querySelectorAll<HTMLButtonElement>('#time-form button[data-step-minutes]')) {
      button.addEventListener('click', async () => {
        if (this.time === undefined) await serviceClockReady()
        const base = this.time === undefined ? serviceNow() : Date.parse(this.time)
        this.choose(new Date(base + Number(button.dataset.stepMinutes) * 60_000).toISOString())
      })
    }
  }

  /** Shows `time` (undefined: now) without telling anyone. */
  show(time: string | undefined): void {
    this.time = time
    this.now.setAttribute('aria-pressed', String(time === undefined))
    const valid = time !== undefined && Number.isFinite(Date.parse(time))
    this.input.value = valid ? localInputValue(time) : ''
    this.input.placeholder = 'now'
  }

  private choose(time: string | undefined): void {
    this.show(time)
    this.onChange(time)
  }
}
