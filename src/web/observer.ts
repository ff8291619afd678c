/** Where the observer comes from: the URL, what was remembered, the browser's geolocation, or typed coordinates. */
import type { Observer } from './api.ts'

const STORAGE_KEY = 'sattrack.observer'
/** Plain decimal degrees, as the API takes them. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/
/** Typed text is shown in a message up to this many characters, as the API shows a value. */
const SHOWN_CHARS = 64

/** Typed or URL text → degrees (a decimal comma and a typographic minus read as the API's), or an error message naming the field, its range and the text, as the API's do. */
export function parseCoordinate(text: string, name: 'latitude' | 'longitude'): number | string {
  const limit = name === 'latitude' ? 90 : 180
  const cleaned = text.trim().replace(/^\u2212/, '-').replace(',', '.')
  const value = DECIMAL.test(cleaned) ? Number(cleaned) : Number.NaN
  if (!Number.isFinite(value) || Math.abs(value) > limit) return `${name} must be a number between -${limit} and ${limit} (got "${text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text}")`
  return value
}

export function parseObserver(lat: string, lon: string): Observer | string {
  const latitude = parseCoordinate(lat, 'latitude')
  if (typeof latitude === 'string') return latitude
  const longitude = parseCoordinate(lon, 'longitude')
  if (typeof longitude === 'string') return longitude
  return { latitude, longitude }
}

/** `/?lat=..&lon=..`: null when absent, a message when present but wrong. */
export function observerFromUrl(params: URLSearchParams): Observer | string | null {
  const lat = params.get('lat')
  const lon = params.get('lon')
  if (lat === null && lon === null) return null
  return parseObserver(lat ?? '', lon ?? '')
}

export function rememberedObserver(): Observer | null {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null')
    if (saved && typeof saved === 'object') {
      const o = parseObserver(String(saved.latitude), String(saved.longitude))
      if (typeof o !== 'string') return o
    }
  } catch {
    // Storage disabled or unreadable: nothing remembered.
  }
  return null
}

export function rememberObserver(observer: Observer): void {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(observer))
  } catch {
    // Storage disabled: the observer lasts for this visit only.
  }
}

/**
 * The browser's position, rounded to 0.001° (about 100 m: plenty for the sky,
 * and no more precise than it needs to be in a URL). Rejects with a message
 * for the person when the browser has none to give (denied, unavailable, or a
 * page on plain http from another machine, where browsers refuse geolocation).
 */
export function locate(timeoutMs = 10_000): Promise<Observer> {
  return new Promise((resolve, reject) => {
    if (!('geolocation' in navigator)) return reject(new Error('this browser offers no location'))
    navigator.geolocation.getCurrentPosition(
      (p) =>
        resolve({
          latitude: Math.round(p.coords.latitude * 1000) / 1000,
          longitude: Math.round(p.coords.longitude * 1000) / 1000,
        }),
      (e) =>
        reject(
          new Error(
            e.code === e.PERMISSION_DENIED
              ? window.isSecureContext
                ? 'location permission denied'
                : 'the browser gives locations only to https pages or this machine'
              : e.code === e.TIMEOUT
                ? 'no location in time'
                : 'location unavailable',
          ),
        ),
      { enableHighAccuracy: false, timeout: timeoutMs, maximumAge: 600_000 },
    )
  })
}

export function formatObserver({ latitude, longitude }: Observer): string {
  const lat = `${Math.abs(latitude).toFixed(3)}°${latitude >= 0 ? 'N' : 'S'}`
  const lon = `${Math.abs(longitude).toFixed(3)}°${longitude >= 0 ? 'E' : 'W'}`
  return `${lat} ${lon}`
}
