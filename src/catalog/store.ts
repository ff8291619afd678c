/** Holds the current catalogue; a new one replaces it in one step, never piecemeal. */
import type { Catalog } from './catalog.ts'

export class CatalogStore {
  #current: Catalog

  constructor(initial: Catalog) {
    this.#current = initial
  }

  /** The catalogue to answer from; a request keeps the one it read for its whole life. */
  get current(): Catalog {
    return this.#current
  }

  swap(next: Catalog): void {
    this.#current = next
  }
}
