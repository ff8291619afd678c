/** What the process uses now: memory (resident, JavaScript heap, outside it) and CPU time. */
import { heapStats } from 'bun:jsc'

export interface ProcessUsage {
  residentBytes: number
  heapUsedBytes: number
  heapTotalBytes: number
  /** Memory held outside the JavaScript heap (buffers). */
  externalBytes: number
  /** User and system CPU time, seconds. */
  cpuSeconds: number
}

export function processUsage(): ProcessUsage {
  const memory = process.memoryUsage()
  // process.memoryUsage().heapTotal can be below heapUsed in Bun; JSC's own figures are consistent.
  const heap = heapStats()
  const cpu = process.cpuUsage()
  return {
    residentBytes: memory.rss,
    heapUsedBytes: heap.heapSize,
    heapTotalBytes: Math.max(heap.heapCapacity, heap.heapSize),
    externalBytes: memory.external,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  }
}
