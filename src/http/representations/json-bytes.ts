/**
 * Pieces of JSON written straight into bytes, for answers of hundreds of rows
 * whose numbers have a fixed number of decimals (/nearby): each function
 * writes at an index of a DataView and returns the index after what it wrote,
 * the same bytes JSON.stringify's text has in UTF-8. The caller makes room
 * first (the most each writes is documented). Fixed pieces are copied four
 * bytes at a time and digits written two at a time.
 */

const ENCODER = new TextEncoder()

/** Fixed ASCII text (a key and its punctuation, say) as little-endian 32-bit words, the last one padded. */
export interface Piece {
  readonly words: Uint32Array
  readonly length: number
}

/** The piece of an ASCII string. */
export function piece(text: string): Piece {
  const bytes = ENCODER.encode(text)
  if (bytes.length !== text.length) throw new Error(`not ASCII: ${text}`)
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4)
  padded.set(bytes)
  const view = new DataView(padded.buffer)
  return { words: Uint32Array.from({ length: padded.length / 4 }, (_, i) => view.getUint32(4 * i, true)), length: bytes.length }
}

/** Writes `piece` at `at`, and up to 3 bytes of padding past it (written over by what follows). */
export function putPiece(view: DataView, at: number, { words, length }: Piece): number {
  for (let i = 0, to = at; i < words.length; i++, to += 4) view.setUint32(to, words[i]!, true)
  return at + length
}

/** Copies `length` bytes of `from` (from `start`) to `at`, four at a time: reads and writes up to 3 bytes past them. */
export function putCopy(view: DataView, at: number, from: DataView, start: number, length: number): number {
  for (let i = 0; i < length; i += 4) view.setUint32(at + i, from.getUint32(start + i, true), true)
  return at + length
}

/** The UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return ENCODER.encode(text)
}

/** Writes a string's UTF-8 bytes at `at` (room for 3 bytes per UTF-16 unit made first: encodeInto cuts short silently). */
export function putText(bytes: Uint8Array, at: number, text: string): number {
  return at + ENCODER.encodeInto(text, bytes.subarray(at)).written
}

/** Writes ASCII text (a number as JSON.stringify writes it, say) byte by byte. */
export function putAscii(view: DataView, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) view.setUint8(at++, text.charCodeAt(i))
  return at
}

/** The most putDecimal writes: JSON.stringify's longest number (-1.2345678901234567e-300 and the like). */
export const DECIMAL_MAX_BYTES = 24

const MINUS = 45
const POINT = 46
const ZERO = 48
/** A number written digit by digit is below this in magnitude (an int32); larger ones are JSON.stringify's. */
const DIGITS_BELOW = 2 ** 31
/** 10 to the power of 0..6: the decimals a number may be written with (JSON writes below 1e-6 with an exponent). */
export const TEN_TO = [1, 10, 100, 1e3, 1e4, 1e5, 1e6] as const
/** "00" to "99" as little-endian 16-bit words: digits are written two at a time. */
const DIGIT_PAIRS = Uint16Array.from({ length: 100 }, (_, n) => ZERO + ((n / 10) | 0) + ((ZERO + (n % 10)) << 8))

/**
 * Writes the number `digits` / 10^decimals (`digits` a whole number,
 * `decimals` 0..6) as JSON.stringify writes it: its shortest round-trip form,
 * which for a number of at most 15 significant digits is those digits with
 * the point before the last `decimals` of them, trailing zeros (and a bare
 * point) left out, -0 as 0. Beyond an int32, or not finite: JSON.stringify's.
 */
export function putDecimal(view: DataView, at: number, digits: number, decimals: number): number {
  if (!(digits > -DIGITS_BELOW && digits < DIGITS_BELOW)) return putAscii(view, at, JSON.stringify(digits / TEN_TO[decimals]!))
  let magnitude = digits | 0 // -0 is 0
  if (magnitude < 0) {
    view.setUint8(at++, MINUS)
    magnitude = -magnitude
  }
  const scale = TEN_TO[decimals]!
  const whole = (magnitude / scale) | 0
  let fraction = magnitude - whole * scale
  at = putDigits(view, at, whole, digitCount(whole))
  if (fraction === 0) return at
  let places = decimals
  while (fraction % 10 === 0) {
    fraction = (fraction / 10) | 0
    places--
  }
  view.setUint8(at++, POINT)
  return putDigits(view, at, fraction, places)
}

/** How many decimal digits a whole number in [0, 2^31) has. */
function digitCount(value: number): number {
  if (value < 100_000) return value < 100 ? (value < 10 ? 1 : 2) : value < 1000 ? 3 : value < 10_000 ? 4 : 5
  return value < 10_000_000 ? (value < 1_000_000 ? 6 : 7) : value < 100_000_000 ? 8 : value < 1_000_000_000 ? 9 : 10
}

/** Writes `value` (in [0, 2^31)) as exactly `width` digits (leading zeros) at `at`. */
function putDigits(view: DataView, at: number, value: number, width: number): number {
  let i = at + width
  while (i >= at + 2) {
    const rest = (value / 100) | 0
    i -= 2
    view.setUint16(i, DIGIT_PAIRS[value - rest * 100]!, true)
    value = rest
  }
  if (i > at) view.setUint8(at, ZERO + value)
  return at + width
}

/** A byte buffer kept from one answer to the next, grown as needed. */
export class Scratch {
  bytes: Uint8Array<ArrayBuffer> = new Uint8Array(64 * 1024)
  view = new DataView(this.bytes.buffer)

  /** At least `size` bytes (the content is not kept when it grows). */
  ensure(size: number): void {
    if (size <= this.bytes.length) return
    this.bytes = new Uint8Array(Math.max(size, this.bytes.length * 2))
    this.view = new DataView(this.bytes.buffer)
  }
}
