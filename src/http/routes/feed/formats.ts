/**
 * Element sets written as CelesTrak's GP formats: TLE/3LE (a name line padded
 * to 24 characters, then the two lines), 2LE (the lines alone), OMM JSON (an
 * array of objects with CelesTrak's keys in CelesTrak's order) and OMM CSV (its
 * header and columns). Text formats end every line with CRLF, as CelesTrak does.
 */
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import { formatOmmCsv, ommRecordOf } from '../../../domain/catalog/omm.ts'
import type { FeedFormat } from './query.ts'

/** Width of the name line (line 0) in CelesTrak's TLE and 3LE output. */
export const TLE_NAME_WIDTH = 24
const CRLF = '\r\n'

export const FEED_CONTENT_TYPES: Record<FeedFormat, string> = {
  tle: 'text/plain; charset=utf-8',
  '3le': 'text/plain; charset=utf-8',
  '2le': 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  'json-pretty': 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
}

/** Whether a satellite can appear in a format: the TLE formats leave out element sets without a two-line form. */
export function hasFormOf(satellite: Satellite, format: FeedFormat): boolean {
  return satellite.elements.tle !== null || !(format === 'tle' || format === '3le' || format === '2le')
}

/** The body of `satellites` in `format` (satellites without that form are skipped). */
export function formatFeed(satellites: readonly Satellite[], format: FeedFormat): string {
  switch (format) {
    case 'tle':
    case '3le':
    case '2le': {
      const lines: string[] = []
      for (const { name, elements } of satellites) {
        if (!elements.tle) continue
        // CelesTrak's name lines are 24 characters: longer names are cut, shorter ones padded.
        if (format !== '2le') lines.push(name.slice(0, TLE_NAME_WIDTH).padEnd(TLE_NAME_WIDTH))
        lines.push(elements.tle.line1, elements.tle.line2)
      }
      return lines.length === 0 ? '' : lines.join(CRLF) + CRLF
    }
    case 'json':
      return JSON.stringify(satellites.map((s) => ommRecordOf(s.elements)))
    case 'json-pretty':
      return JSON.stringify(
        satellites.map((s) => ommRecordOf(s.elements)),
        null,
        4,
      )
    case 'csv':
      return formatOmmCsv(satellites.map((s) => ommRecordOf(s.elements)))
  }
}
