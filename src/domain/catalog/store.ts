/** Holds the current catalogue; a new one replaces it in one step, never piecemeal. */
import type { Catalog } from './catalog.ts'
import type { ValidityPolicy } from '../orbit/validity.ts'

export class CatalogStore {
  #current: Catalog
  readonly #policy: ValidityPolicy | undefined

  /** `policy`: the validity policy every catalogue is served under (the catalogue's own when absent). */
  constructor(initial: Catalog, policy?: ValidityPolicy) {
    this.#policy = policy
    this.#current = policy ? initial.withPolicy(policy) : initial
  }

  /** The catalogue to answer from; a request keeps the one it read for its whole life. */
  get current(): Catalog {
    return this.#current
  }

  swap(next: Catalog): void {
    this.#current = this.#policy ? next.withPolicy(this.#policy) : next
  }
}
