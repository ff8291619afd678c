/**
 * Writes catalogues for benchmarks: `bun bench/generate.ts N OUT_DIR`.
 *
 * The real catalogue of the embedded snapshot comes first, as published (so
 * the ISS and every real satellite answer as usual), then synthetic element
 * sets up to N. Every synthetic set is valid (checksums, fields in range) and
 * derived from a real orbit: the same shape (inclination, eccentricity, mean
 * motion, drag) with the node and mean anomaly turned, so the sky fills like a
 * denser version of the real one. Their catalog numbers run from 100000
 * upwards in Alpha-5 form, so they never collide with real ones.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { formatCatalogNumber, parseTleText, tleChecksum } from '../src/domain/catalog/elements.ts'
import { loadEmbeddedSnapshot } from '../src/io/embedded.ts'

const [countArg, outDir] = process.argv.slice(2)
const count = Number(countArg)
if (!Number.isInteger(count) || count < 1 || count > 239_999 || !outDir) {
  console.error('usage: bun bench/generate.ts N OUT_DIR   (N up to 239999)')
  process.exit(2)
}

const withChecksum = (line: string) => line + String(tleChecksum(line))
const angle = (deg: number) => (((deg % 360) + 360) % 360).toFixed(4).padStart(8)

const snapshot = await loadEmbeddedSnapshot()
const templates = snapshot.groups.flatMap((g) => g.elements ?? []).filter((e) => e.tle)
const lines: string[] = []
const real = new Map(templates.map((e) => [e.noradId, e]))
for (const e of [...real.values()].slice(0, count)) lines.push(e.name, e.tle!.line1, e.tle!.line2)
for (let j = 0; lines.length / 3 < count; j++) {
  const template = templates[j % templates.length]!
  const { line1, line2 } = template.tle!
  const id = formatCatalogNumber(100_000 + j)!
  // Golden-angle turns spread the copies of one template evenly around the Earth (the first copy turned once).
  const turn = (j / templates.length + 1) * 137.508
  const newLine1 = withChecksum(`1 ${id}${line1.slice(7, 68)}`)
  const newLine2 = withChecksum(
    `2 ${id} ${line2.slice(8, 17)}${angle(template.raanDeg + turn)}${line2.slice(25, 43)}${angle(template.meanAnomalyDeg + 2.3 * turn)}${line2.slice(51, 68)}`,
  )
  lines.push(`SYNTH-${id}`, newLine1, newLine2)
}
mkdirSync(outDir, { recursive: true })
writeFileSync(join(outDir, 'synthetic.tle'), `${lines.join('\n')}\n`)
const check = parseTleText(lines.join('\n'))
console.log(`${outDir}/synthetic.tle: ${check.elements.length} valid element sets, ${check.invalid.length} invalid`)
if (check.invalid.length > 0) process.exit(1)
