/**
 * A Bun macro (`import { webAssets } from '…/assets.ts' with { type: 'macro' }`):
 * runs the page build while Bun bundles or transpiles the importing file, so
 * `bun build --compile` embeds the page with no separate step, and `bun run`
 * / `bun test` serve the same page built from the current sources.
 * Bun.build cannot run inside a macro (the bundler would wait on itself), so
 * the build runs as a child `bun` process.
 */
import { join } from 'node:path'
import type { WebAssets } from './types.ts'

export function webAssets(): WebAssets {
  const child = Bun.spawnSync([process.execPath, join(import.meta.dir, 'bundle.ts')], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if (child.exitCode !== 0) throw new Error(`the web page did not build: ${child.stderr.toString().trim()}`)
  return JSON.parse(child.stdout.toString()) as WebAssets
}
