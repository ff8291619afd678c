/**
 * The page at `/`: the sky above an observer, tonight's visible passes of the
 * whole catalogue, a satellite followed on the world map, and its next passes,
 * all at one instant (now, or one chosen with the time control). Plain
 * TypeScript and SVG; everything it loads comes from the service itself, by
 * URLs relative to the page.
 *
 * URL parameters: `lat`, `lon` (the observer), `time` (pin the instant, ISO
 * 8601 with a zone; without it the page follows the service's clock), `sat`
 * (the satellite for the map and passes). The view is the fragment: `#sky`,
 * `#tonight`, `#map`, `#passes`.
 */
import {
  ApiFailure,
  fetchGeoposition,
  fetchGroups,
  fetchFreshness,
  fetchNearby,
  fetchPasses,
  fetchSatellite,
  fetchSkyPasses,
  fetchTrack,
  type Observer,
  skyPassesCalendarUrl,
  type TrackPoint,
} from './api.ts'
import { serviceClockReady, serviceNow } from './clock.ts'
import { byId, formatDateTime, html, timeZoneName } from './dom.ts'
import { nightStart } from './geometry.ts'
import { instantRefusal, parseInstant } from './instant.ts'
import { MapView, mapSummary, TRACK_HALF_SPAN_MS } from './map.ts'
import { formatObserver, locate, observerFromUrl, parseObserver, rememberedObserver, rememberObserver } from './observer.ts'
import { PassesView } from './passes.ts'
import { resolveSatellite, suggestAsTyped } from './search.ts'
import { SkyView } from './sky.ts'
import { setupNightVision } from './theme.ts'
import { TimeControl } from './time.ts'
import { type TonightOrder, TonightView } from './tonight.ts'

/** How often the live views ask again. */
const REFRESH_MS = 5_000
/** How often the freshness line is read again. */
const FRESHNESS_MS = 60_000
const TRACK_STEP_S = 60
const ISS = 25544
const SATELLITE_KEY = 'sattrack.satellite'

type View = 'sky' | 'tonight' | 'map' | 'passes'
const VIEWS: readonly View[] = ['sky', 'tonight', 'map', 'passes']
/** The Tonight view's window, hours. */
const TONIGHT_HOURS = 12

const params = new URLSearchParams(location.search)
/** The link's `time`, read with the API's rule (a zone required): one the API would refuse is never claimed as pinned. */
const linkTime = params.get('time') ?? undefined
const linkTimeRefusal = linkTime !== undefined && parseInstant(linkTime) === null ? instantRefusal(linkTime) : undefined

const state = {
  /** The instant every view shows: ISO 8601, or undefined to follow the service's clock. */
  time: linkTimeRefusal ? undefined : linkTime,
  follow: true,
  observer: null as Observer | null,
  observerSource: '',
  view: 'sky' as View,
  satellite: chosenSatellite(),
  satelliteName: '',
  groups: new Map<string, Set<number>>(),
  /** The instant of the track on the map, ms (the track is fetched again when "now" moves away from it). */
  trackCentreMs: Number.NaN,
  track: [] as TrackPoint[],
  trackNote: '',
}

const statusLine = byId('status')
const form = byId<HTMLFormElement>('observer-form')
const latInput = byId<HTMLInputElement>('lat')
const lonInput = byId<HTMLInputElement>('lon')
const groupSelect = byId<HTMLSelectElement>('group')
const visibleOnly = byId<HTMLInputElement>('visible-only')
const daysSelect = byId<HTMLSelectElement>('days')
/** The observer and time forms: folded away on a phone once there is an observer, so the views come first. */
const settings = byId<HTMLDetailsElement>('settings')
/** A phone: 600 px or narrower (docs/web.md), where the forms and the stale-data advice fold away. */
const isPhone = () => matchMedia('(max-width: 600px)').matches

function chosenSatellite(): number {
  const fromUrl = Number(params.get('sat'))
  if (Number.isInteger(fromUrl) && fromUrl > 0) return fromUrl
  try {
    const saved = Number(localStorage.getItem(SATELLITE_KEY))
    if (Number.isInteger(saved) && saved > 0) return saved
  } catch {
    // Storage disabled.
  }
  return ISS
}

const failureText = (error: unknown) => (error instanceof ApiFailure ? error.message : error instanceof Error ? error.message : String(error))

function setStatus(text: string, isError = false): void {
  statusLine.textContent = text
  statusLine.classList.toggle('error', isError)
}

/** Why the link's `time` is not used (the API's words), until another instant is chosen. */
let timeRefusal = linkTimeRefusal
const timeRefusalText = () => `The link's time is not usable: ${timeRefusal}; showing now instead.`

function describeObserver(): void {
  if (!state.observer) return
  const observer = `Observer ${formatObserver(state.observer)} (${state.observerSource})`
  if (timeRefusal) return setStatus(`${observer} · ${timeRefusalText()}`, true)
  // A pinned instant names its zone (formatDateTime); live times are named here, as in the footer.
  const when = state.time ? `pinned to ${formatDateTime(state.time)}` : `live, every ${REFRESH_MS / 1000} s (times in ${timeZoneName()})`
  setStatus(`${observer} · ${when}`)
}

// ---------------------------------------------------------------- time

/** Moves every view to `time` (undefined: now), and keeps it in the link. */
function setTime(time: string | undefined): void {
  state.time = time
  timeRefusal = undefined
  if (time === undefined) params.delete('time')
  else params.set('time', time)
  history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}${location.hash}`)
  state.trackCentreMs = Number.NaN
  tonightKey = ''
  describeObserver()
  void refresh(state.view)
}
const timeControl = new TimeControl(setTime)
timeControl.show(state.time)
setupNightVision(byId<HTMLButtonElement>('night-vision'))

// ---------------------------------------------------------------- views and tabs

const sky = new SkyView({
  showOnMap: (id) => chooseSatellite(id, 'map'),
  showPasses: (id) => chooseSatellite(id, 'passes'),
})
const tonight = new TonightView({ showOnMap: (id) => chooseSatellite(id, 'map') })
const map = new MapView()
const passes = new PassesView()
const tabs = VIEWS.map((v) => byId<HTMLButtonElement>(`tab-${v}`))

function showView(view: View, focusTab = false): void {
  state.view = view
  VIEWS.forEach((v, i) => {
    const selected = v === view
    tabs[i]!.setAttribute('aria-selected', String(selected))
    tabs[i]!.tabIndex = selected ? 0 : -1
    byId(`view-${v}`).hidden = !selected
  })
  if (focusTab) tabs[VIEWS.indexOf(view)]!.focus()
  history.replaceState(null, '', `${location.pathname}${location.search}#${view}`)
  if (view !== 'sky') fillSatelliteChoices()
  void refresh(view)
}

tabs.forEach((tab, i) => {
  tab.addEventListener('click', () => showView(VIEWS[i]!))
  tab.addEventListener('keydown', (e) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0
    if (step !== 0) showView(VIEWS[(i + step + VIEWS.length) % VIEWS.length]!, true)
    else if (e.key === 'Home') showView(VIEWS[0]!, true)
    else if (e.key === 'End') showView(VIEWS[VIEWS.length - 1]!, true)
    else return
    e.preventDefault()
  })
})
window.addEventListener('hashchange', () => {
  const view = location.hash.slice(1) as View
  if (VIEWS.includes(view) && view !== state.view) showView(view)
})

// ---------------------------------------------------------------- observer

function setObserver(observer: Observer, source: string): void {
  state.observer = observer
  state.observerSource = source
  latInput.value = String(observer.latitude)
  lonInput.value = String(observer.longitude)
  rememberObserver(observer)
  if (params.has('lat') || params.has('lon')) {
    params.set('lat', String(observer.latitude))
    params.set('lon', String(observer.longitude))
    history.replaceState(null, '', `${location.pathname}?${params}${location.hash}`)
  }
  tonightKey = ''
  describeObserver()
  void refresh(state.view)
}

form.addEventListener('submit', (e) => {
  e.preventDefault()
  const observer = parseObserver(latInput.value, lonInput.value)
  if (typeof observer === 'string') {
    settings.open = true
    setStatus(`Cannot use these coordinates: ${observer}.`, true)
    ;(observer.startsWith('latitude') ? latInput : lonInput).focus()
    return
  }
  setObserver(observer, 'typed')
})

async function useBrowserLocation(): Promise<void> {
  setStatus('Asking the browser for your location…')
  try {
    setObserver(await locate(), 'your location')
  } catch (error) {
    const typed = parseObserver(latInput.value, lonInput.value)
    if (state.observer) {
      setStatus(`Your location is not available (${failureText(error)}); still showing ${formatObserver(state.observer)}.`, true)
    } else if (typeof typed !== 'string') {
      setObserver(typed, 'typed')
    } else {
      setStatus(`Your location is not available (${failureText(error)}). Type your latitude and longitude above.${timeRefusal ? ` ${timeRefusalText()}` : ''}`, true)
      sky.clear('No observer yet: type coordinates or use your location.')
      settings.open = true
      latInput.focus()
    }
  }
}

byId('locate').addEventListener('click', () => void useBrowserLocation())

// ---------------------------------------------------------------- sky

function skyFilter() {
  return { group: groupSelect.value ? (state.groups.get(groupSelect.value) ?? new Set<number>()) : null, visibleOnly: visibleOnly.checked }
}
groupSelect.addEventListener('change', () => sky.setFilter(skyFilter()))
visibleOnly.addEventListener('change', () => sky.setFilter(skyFilter()))

let skyRequest: AbortController | undefined
async function refreshSky(): Promise<void> {
  const observer = state.observer
  if (!observer) return
  skyRequest?.abort()
  const request = (skyRequest = new AbortController())
  try {
    const answer = await fetchNearby(observer, state.time, request.signal)
    if (request.signal.aborted) return
    sky.setAnswer(answer)
    // Satellites left out for their elements' age are not "nothing above you": say so, and why.
    const notice = byId('sky-notice')
    notice.textContent = answer.metadata.notice ?? ''
    notice.hidden = answer.metadata.notice === undefined
    byId('view-sky').dataset.instant = answer.observer.datetime
    byId('view-sky').dataset.ready = 'true'
  } catch (error) {
    if (!request.signal.aborted) sky.clear(`The sky could not be computed: ${failureText(error)}.`)
  }
}

/** The freshness line's summary, and what else it shows (rebuilt only when that changes: advice folded away stays so). */
let freshnessSummary: Text | null = null
let freshnessShape = ''

/**
 * The data's date and age, always shown; when stale, what that means and a link to the sky at the data's own time.
 * Read again every FRESHNESS_MS: the data ages while the page is open, and a refresh or a reload replaces it.
 */
async function loadFreshness(): Promise<void> {
  const line = byId('freshness')
  try {
    const freshness = await fetchFreshness()
    const shape = JSON.stringify([freshness.stale, freshness.advice, freshness.dataTime])
    if (freshnessSummary && shape === freshnessShape) {
      freshnessSummary.data = freshness.summary
      return
    }
    freshnessShape = shape
    freshnessSummary = document.createTextNode(freshness.summary)
    line.classList.toggle('stale', freshness.stale)
    line.replaceChildren(freshnessSummary)
    if (freshness.stale && freshness.advice) {
      // On a phone the full advice folds away, so the page is not all header; what to do stays in sight.
      const advice = html('details', {}, html('summary', {}, 'What to do: load newer data (--refresh-url, --snapshot FILE, make snapshot)'), ' ', freshness.advice)
      advice.open = !isPhone()
      // The page as it is when the link is followed (the observer typed since, the view), at the data's own time.
      const atDataTime = () => {
        const params = new URLSearchParams(location.search)
        params.set('time', freshness.dataTime)
        return `?${params}${location.hash}`
      }
      const link = html('a', { href: atDataTime(), id: 'at-data-time' }, `Show the sky at the data's date (${formatDateTime(freshness.dataTime)})`)
      for (const event of ['pointerdown', 'focus', 'click']) link.addEventListener(event, () => link.setAttribute('href', atDataTime()))
      line.append(' ', advice, ' ', link)
    }
  } catch (error) {
    freshnessSummary = null
    line.textContent = `The data's age is unknown: ${failureText(error)}.`
  }
}

async function loadGroups(): Promise<void> {
  try {
    state.groups = await fetchGroups()
    for (const [name, ids] of [...state.groups].sort(([a], [b]) => a.localeCompare(b))) {
      groupSelect.append(html('option', { value: name }, `${name} (${ids.size})`))
    }
    if (groupSelect.value) sky.setFilter(skyFilter())
  } catch (error) {
    groupSelect.disabled = true
    groupSelect.title = `groups unavailable: ${failureText(error)}`
  }
}

// ---------------------------------------------------------------- satellite for map and passes

const satelliteForms = [...document.querySelectorAll<HTMLFormElement>('form.satellite-form')]

/** Before anything is typed, the field suggests the satellites in the sky now. */
function fillSatelliteChoices(): void {
  const choices = byId<HTMLDataListElement>('satellite-choices')
  const seen = [...sky.satellites].sort((a, b) => a.name.localeCompare(b.name))
  choices.replaceChildren(...seen.map((s) => html('option', { value: `${s.name} (${s.noradId})`, label: `NORAD ${s.noradId}` })))
}

function chooseSatellite(noradId: number, view?: View): void {
  if (noradId !== state.satellite) {
    state.satellite = noradId
    state.satelliteName = ''
    state.track = []
    state.trackCentreMs = Number.NaN
    try {
      localStorage.setItem(SATELLITE_KEY, String(noradId))
    } catch {
      // Storage disabled.
    }
  }
  for (const f of satelliteForms) (f.elements.namedItem('satellite') as HTMLInputElement).value = String(noradId)
  // Keyboard users land on the tab of the view they asked for.
  if (view) showView(view, true)
  else void refresh(state.view)
}

daysSelect.addEventListener('change', () => void refreshPasses())
for (const f of satelliteForms) {
  ;(f.elements.namedItem('satellite') as HTMLInputElement).value = String(state.satellite)
  const input = f.elements.namedItem('satellite') as HTMLInputElement
  suggestAsTyped(input, byId<HTMLDataListElement>('satellite-choices'))
  // What the search found wrong, under its own form: the status line keeps the observer and the instant in sight.
  const problem = html('p', { class: 'form-problem', role: 'alert' })
  problem.hidden = true
  f.after(problem)
  f.addEventListener('submit', async (e) => {
    e.preventDefault()
    let id: number | string
    try {
      id = await resolveSatellite(input.value)
    } catch (error) {
      id = `The search failed: ${failureText(error)}.`
    }
    if (typeof id === 'string' || id < 1 || id > 999_999_999) {
      problem.textContent = typeof id === 'string' ? id : 'A NORAD catalogue number is a whole number from 1, such as 25544 (the ISS).'
      problem.hidden = false
      input.focus()
      return
    }
    problem.hidden = true
    chooseSatellite(id)
  })
}
const followSwitch = byId<HTMLInputElement>('follow')
followSwitch.addEventListener('change', () => {
  state.follow = followSwitch.checked
  void refreshMap()
})

async function satelliteName(): Promise<string> {
  if (!state.satelliteName) {
    const noradId = state.satellite
    const name = (await fetchSatellite(noradId)).data.name
    if (noradId !== state.satellite) return name
    state.satelliteName = name
    // The fields show the name with the number, unless someone is typing in one.
    for (const f of satelliteForms) {
      const input = f.elements.namedItem('satellite') as HTMLInputElement
      if (document.activeElement !== input) input.value = `${name} (${noradId})`
    }
  }
  return state.satelliteName
}

let mapRequest: AbortController | undefined
async function refreshMap(): Promise<void> {
  mapRequest?.abort()
  const request = (mapRequest = new AbortController())
  const summary = byId('map-summary')
  const noradId = state.satellite
  try {
    const name = await satelliteName()
    let position = null
    /** Why there is no position (the API's 422 message: the elements' age, a decay), shown in the caption. */
    let refusal = ''
    try {
      position = await fetchGeoposition(noradId, state.time, request.signal)
    } catch (error) {
      if (!(error instanceof ApiFailure && error.status === 422)) throw error
      refusal = error.message
    }
    if (request.signal.aborted) return
    const instant = new Date(position?.datetime ?? state.time ?? serviceNow())
    // The track spans ±90 min around "now"; fetched again once now has moved 5 minutes on.
    if (!(Math.abs(instant.getTime() - state.trackCentreMs) < 5 * 60_000)) {
      try {
        const track = await fetchTrack(
          noradId,
          new Date(instant.getTime() - TRACK_HALF_SPAN_MS),
          new Date(instant.getTime() + TRACK_HALF_SPAN_MS),
          TRACK_STEP_S,
          request.signal,
        )
        state.track = track.data
        state.trackNote = track.metadata.omitted > 0 ? ` ${track.metadata.omitted} minutes of the track have no valid position.` : ''
      } catch (error) {
        if (request.signal.aborted) return
        state.track = []
        state.trackNote = ` Ground track unavailable: ${failureText(error)}.`
      }
      state.trackCentreMs = instant.getTime()
    }
    if (request.signal.aborted) return
    map.show({ name, position, track: state.track, observer: state.observer, instant, follow: state.follow })
    summary.textContent = mapSummary(name, position, instant, state.trackNote, refusal)
    byId('view-map').dataset.ready = 'true'
  } catch (error) {
    if (!request.signal.aborted) summary.textContent = `Satellite ${noradId}: ${failureText(error)}.`
  }
}

let passesRequest: AbortController | undefined
async function refreshPasses(): Promise<void> {
  const observer = state.observer
  if (!observer) {
    passes.message('Passes need an observer: type coordinates or use your location.')
    return
  }
  passesRequest?.abort()
  const request = (passesRequest = new AbortController())
  const days = Number(daysSelect.value)
  void satelliteName().catch(() => {})
  try {
    const answer = await fetchPasses(state.satellite, observer, state.time, days, request.signal)
    if (request.signal.aborted) return
    passes.show(answer)
    byId('view-passes').dataset.ready = 'true'
  } catch (error) {
    if (!request.signal.aborted) passes.message(`Satellite ${state.satellite}: ${failureText(error)}.`)
  }
}

// ---------------------------------------------------------------- tonight

const tonightOrder = byId<HTMLSelectElement>('tonight-order')
tonightOrder.addEventListener('change', () => tonight.setOrder(tonightOrder.value as TonightOrder))
/** The observer and start of the Tonight view on screen: asked for again only when one of them changes. */
let tonightKey = ''
let tonightRequest: AbortController | undefined
async function refreshTonight(): Promise<void> {
  const observer = state.observer
  if (!observer) {
    tonight.message('Tonight needs an observer: type coordinates or use your location.')
    return
  }
  // "Now" is the service's now, not the browser's: asked of the service first when nothing has told it yet.
  const time = state.time
  if (time === undefined) await serviceClockReady()
  if (observer !== state.observer || time !== state.time) return
  const start = new Date(state.time ?? serviceNow())
  const from = nightStart(observer.latitude, observer.longitude, start)
  if (from === null) {
    // Searching the daylight would only say "no pass visible", as if the sky had been looked at by night.
    tonightRequest?.abort()
    tonightKey = ''
    tonight.message(`No night here within a day of ${formatDateTime(start.toISOString())}: the Sun does not get 6° below the horizon, so no satellite can be seen with the naked eye.`)
    byId('view-tonight').dataset.ready = 'true'
    return
  }
  // Now moves on by the second: the same night is not asked for again within its first hour.
  const key = `${observer.latitude},${observer.longitude},${state.time ?? Math.floor(from.getTime() / 3_600_000)}`
  if (key === tonightKey) return
  tonightRequest?.abort()
  const request = (tonightRequest = new AbortController())
  tonight.message('Working out the visible passes of the whole catalogue…')
  try {
    const answer = await fetchSkyPasses(observer, from, TONIGHT_HOURS, request.signal)
    if (request.signal.aborted) return
    tonight.show(answer, skyPassesCalendarUrl(observer, from, TONIGHT_HOURS))
    tonightKey = key
    byId('view-tonight').dataset.ready = 'true'
    byId('view-tonight').dataset.from = answer.metadata.from
  } catch (error) {
    if (!request.signal.aborted) tonight.message(`Tonight's passes could not be worked out: ${failureText(error)}.`)
  }
}

// ---------------------------------------------------------------- refresh loop

function refresh(view: View): Promise<void> {
  if (view === 'sky') return refreshSky()
  if (view === 'tonight') return refreshTonight()
  if (view === 'map') return refreshMap()
  return refreshPasses()
}

/** Live views follow the clock; a pinned instant never changes, and a hidden page asks nothing. */
function tick(): void {
  if (!state.time && !document.hidden && (state.view === 'sky' || state.view === 'map')) void refresh(state.view)
}

// ---------------------------------------------------------------- start

async function start(): Promise<void> {
  history.scrollRestoration = 'manual'
  byId('tz').textContent = timeZoneName()
  const hashView = location.hash.slice(1) as View
  const fromUrl = observerFromUrl(params)
  void loadGroups()
  void loadFreshness()
  if (fromUrl && typeof fromUrl !== 'string') {
    state.observer = fromUrl
    state.observerSource = 'from the link'
    latInput.value = String(fromUrl.latitude)
    lonInput.value = String(fromUrl.longitude)
    rememberObserver(fromUrl)
    describeObserver()
  } else {
    const remembered = rememberedObserver()
    if (remembered) {
      state.observer = remembered
      state.observerSource = 'remembered'
      latInput.value = String(remembered.latitude)
      lonInput.value = String(remembered.longitude)
      describeObserver()
    }
    if (typeof fromUrl === 'string') {
      const alsoTime = timeRefusal ? ` ${timeRefusalText()}` : ''
      setStatus(`The link's coordinates are not usable: ${fromUrl}.${remembered ? '' : ' Type your latitude and longitude above, or use your location.'}${alsoTime}`, true)
      if (!remembered) {
        // The view says why it is empty too, as when the browser's location is refused.
        sky.clear(`No observer yet: the link's coordinates are not usable (${fromUrl}); type coordinates or use your location.`)
        latInput.focus()
      }
    }
  }
  if (state.observer && isPhone()) settings.open = false
  showView(VIEWS.includes(hashView) ? hashView : 'sky')
  // A link to a view (#map) opens at the top of the page, with the tabs and the time control in sight.
  window.scrollTo(0, 0)
  // A link with unusable coordinates keeps its message: the browser's location is asked for only on "Use my location".
  if (!state.observer && typeof fromUrl !== 'string') await useBrowserLocation()
  setInterval(tick, REFRESH_MS)
  setInterval(() => void loadFreshness(), FRESHNESS_MS)
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) tick()
  })
}

void start()
