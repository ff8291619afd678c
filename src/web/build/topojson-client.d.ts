/** The part of topojson-client (no bundled types) that the build uses. */
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): { type: 'FeatureCollection'; features: { geometry: { type: string; coordinates: unknown } }[] }
  export function mesh(topology: unknown, object: unknown, filter?: (a: unknown, b: unknown) => boolean): { type: 'MultiLineString'; coordinates: number[][][] }
}
