/**
 * Which time zone and country a point of the Earth is in, from data shipped in
 * two libraries, so it works with no network: @photostructure/tz-lookup (the
 * IANA zone; `Etc/GMT±N` at sea) and @rapideditor/country-coder (ISO 3166-1
 * alpha-2 of the territory). Both are loaded on first use (46 ms, 2 MB of heap).
 */

export interface Place {
  /** IANA time zone: a land zone, or a nautical `Etc/GMT±N` zone at sea. */
  timezoneId: string
  /** The zone's offset from UTC at the instant, hours (5.5 for India). */
  offsetHours: number
  /** ISO 3166-1 alpha-2 of the territory (PR for Puerto Rico), or `??` at sea (in a nautical zone) or where none is known. */
  countryCode: string
}

type Libraries = { zoneAt: (latitude: number, longitude: number) => string; codeAt: (longitude: number, latitude: number) => string | null }

function load(): Promise<Libraries> {
  return Promise.all([import('@photostructure/tz-lookup'), import('@rapideditor/country-coder')]).then(([tz, cc]) => ({
    zoneAt: tz.default,
    codeAt: (longitude, latitude) => cc.iso1A2Code([longitude, latitude], { level: 'territory' }),
  }))
}

/** The offset of `timeZone` from UTC at `instantMs`, hours. */
export function offsetHours(timeZone: string, instantMs: number): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(instantMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT'
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name)
  if (!m || !m[1]) return 0
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) + Number(m[3]) / 60)
}

/** Finds places; loads the libraries on its first question. */
export class Places {
  #libraries: Promise<Libraries> | undefined

  async at(latitudeDeg: number, longitudeDeg: number, instantMs: number): Promise<Place> {
    this.#libraries ??= load()
    const { zoneAt, codeAt } = await this.#libraries
    const timezoneId = zoneAt(latitudeDeg, longitudeDeg)
    const atSea = timezoneId.startsWith('Etc/')
    return { timezoneId, offsetHours: offsetHours(timezoneId, instantMs), countryCode: (!atSea && codeAt(longitudeDeg, latitudeDeg)) || '??' }
  }
}
