/** Field lists that docs/contract.md fixes for the answers, sorted, shared by the module and end-to-end tests. */
export const SATELLITE_KEYS = ['epoch', 'groups', 'labels', 'name', 'noradId', 'orbitalParams', 'tle']

export const NEARBY_BASIC_KEYS = [
  'altitude',
  'azimuth',
  'elementAgeDays',
  'elevation',
  'epoch',
  'labels',
  'magnitude',
  'name',
  'noradId',
  'observerDaytime',
  'range',
  'rangeRate',
  'satelliteSunlit',
  'velocityKmHs',
  'visible',
]
