/** The API families sattrack can answer besides its own (`--compat`): their names, and the parsing of the option. */

/** N2YO REST v1, Open Notify (ISS now and pass times), wheretheiss.at v1. */
export const COMPAT_FAMILIES = ['n2yo', 'open-notify', 'wheretheiss'] as const
export type CompatFamily = (typeof COMPAT_FAMILIES)[number]

/** `n2yo,open-notify,wheretheiss` (any subset, any order), or `none`. */
export function parseCompatFamilies(raw: string): CompatFamily[] | Error {
  const text = raw.trim().toLowerCase()
  if (text === 'none') return []
  const names = text.split(',').map((name) => name.trim())
  const bad = names.find((name) => !(COMPAT_FAMILIES as readonly string[]).includes(name))
  if (bad !== undefined) return new Error(`must be a comma-separated list of ${COMPAT_FAMILIES.join(', ')}, or none`)
  return COMPAT_FAMILIES.filter((family) => names.includes(family))
}
