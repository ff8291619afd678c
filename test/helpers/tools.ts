/**
 * External tools some tests need (Debian packages, installed by `make deps-test`).
 * Missing tool: the test fails with the package to install, except outside CI
 * (CI unset) where it is skipped with that message, so a laptop without the
 * package can still run the rest.
 */
import { test } from 'bun:test'

export interface Tool {
  /** The command, e.g. `promtool`. */
  command: string
  /** The Debian package that provides it. */
  debianPackage: string
}

export const PROMTOOL: Tool = { command: 'promtool', debianPackage: 'prometheus' }
export const QEMU_AARCH64: Tool = { command: 'qemu-aarch64', debianPackage: 'qemu-user' }
export const NGINX: Tool = { command: 'nginx', debianPackage: 'nginx' }
export const SYSTEMD_ANALYZE: Tool = { command: 'systemd-analyze', debianPackage: 'systemd' }
export const FILE: Tool = { command: 'file', debianPackage: 'file' }

/** The tool's path, or null. Looks in the sbin directories too (nginx lives in /usr/sbin). */
export function which(tool: Tool): string | null {
  return Bun.which(tool.command, { PATH: `${process.env.PATH ?? ''}:/usr/local/sbin:/usr/sbin:/sbin` })
}

export function missingMessage(tools: readonly Tool[]): string | null {
  const missing = tools.filter((t) => !which(t))
  if (missing.length === 0) return null
  return `${missing.map((t) => t.command).join(', ')} not found: apt-get install ${missing.map((t) => t.debianPackage).join(' ')} (make deps-test)`
}

/**
 * `test`, or, when a tool is missing, a test that fails in CI and is skipped
 * elsewhere, both with the package to install.
 */
export function testWith(tools: readonly Tool[]): typeof test {
  const message = missingMessage(tools)
  if (!message) return test
  if (process.env.CI) {
    return ((name: string, _fn: unknown, timeout?: number) =>
      test(name, () => {
        throw new Error(message)
      }, timeout)) as unknown as typeof test
  }
  console.warn(`skipping: ${message}`)
  return test.skip
}
