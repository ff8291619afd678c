/**
 * The satellite fields: search the whole catalogue by name, common name
 * (hubble), NORAD catalogue number or international designator (1998-067A);
 * suggestions come from the service (app/find.json) as one types.
 */
import { findSatellites, type FoundSatellite } from './api.ts'
import { html } from './dom.ts'

/** What a suggestion puts in the field: the name and, in brackets, the number the field stands for. */
export const suggestionText = (s: { name: string; noradId: number }) => `${s.name} (${s.noradId})`

/** The catalogue number a field's text stands for, or a message saying why none. */
export async function resolveSatellite(text: string): Promise<number | string> {
  const trimmed = text.trim()
  const bracketed = /\((\d{1,9})\)$/.exec(trimmed)
  if (bracketed) return Number(bracketed[1])
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed)
  if (trimmed === '') return 'Type a name (ISS, hubble), a NORAD catalogue number (25544) or an international designator (1998-067A).'
  const found = await findSatellites(trimmed)
  if (found.length === 0) return `No satellite in the catalogue matches "${trimmed}".`
  return found[0]!.noradId
}

function describe(s: FoundSatellite): string {
  const also = s.match === 'common name' && s.commonName ? `${s.commonName} · ` : ''
  return `${also}${s.designator || 'no designator'} · NORAD ${s.noradId}`
}

/** Suggestions in `list` for what is typed in `input` (after a pause), from the whole catalogue. */
export function suggestAsTyped(input: HTMLInputElement, list: HTMLDataListElement): void {
  let timer: ReturnType<typeof setTimeout> | undefined
  let request: AbortController | undefined
  input.addEventListener('input', () => {
    clearTimeout(timer)
    const text = input.value.trim()
    if (text.length < 2 || /\(\d+\)$/.test(text)) return
    timer = setTimeout(async () => {
      request?.abort()
      const mine = (request = new AbortController())
      try {
        const found = await findSatellites(text, mine.signal)
        if (mine.signal.aborted) return
        list.replaceChildren(...found.map((s) => html('option', { value: suggestionText(s), label: describe(s) })))
        input.dataset.suggested = text
      } catch {
        // No suggestions this time: the field still takes a number or a name on submit.
      }
    }, 200)
  })
}
