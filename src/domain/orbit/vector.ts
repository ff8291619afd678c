/** A vector in space: a position (km) or a velocity (km/s); the frame is stated where it is used. */
export interface Vector3 {
  x: number
  y: number
  z: number
}
