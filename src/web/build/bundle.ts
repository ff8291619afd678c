/**
 * Builds the web page (run as `bun src/web/build/bundle.ts`; the macro in
 * assets.ts does that while Bun bundles the server): the browser bundle of
 * src/web/main.ts with its stylesheet, the world outline, and index.html
 * pointing at them by content-hashed names. Prints one JSON `WebAssets` on stdout.
 */
import { join } from 'node:path'
import type { WebAsset, WebAssets } from './types.ts'
import { worldSvg } from './world.ts'

const WEB = join(import.meta.dir, '..')

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
}

/** `app.js` + its text → `app.<hash>.js`: a name that changes whenever the content does, so it can be cached for good. */
function hashedAsset(base: string, ext: string, text: string): WebAsset {
  const hash = Bun.hash(text).toString(36).slice(0, 10)
  return { name: `${base}.${hash}.${ext}`, contentType: CONTENT_TYPES[ext]!, text }
}

async function build(): Promise<WebAssets> {
  const result = await Bun.build({
    entrypoints: [join(WEB, 'main.ts'), join(WEB, 'style.css')],
    target: 'browser',
    format: 'esm',
    minify: true,
    sourcemap: 'none',
  })
  if (!result.success) throw new Error(result.logs.map(String).join('\n'))
  const js = result.outputs.find((o) => o.path.endsWith('.js'))
  const css = result.outputs.find((o) => o.path.endsWith('.css'))
  if (!js || !css) throw new Error(`expected one script and one stylesheet, got ${result.outputs.map((o) => o.path).join(', ')}`)
  const files = [
    hashedAsset('app', 'js', await js.text()),
    hashedAsset('app', 'css', await css.text()),
    hashedAsset('world', 'svg', await worldSvg()),
    { name: 'icon.svg', contentType: CONTENT_TYPES.svg!, text: await Bun.file(join(WEB, 'icon.svg')).text() },
  ]
  const [script, style, world] = files as [WebAsset, WebAsset, WebAsset]
  const template = await Bun.file(join(WEB, 'index.html')).text()
  const html = template
    .replaceAll('%APP_JS%', `app/${script.name}`)
    .replaceAll('%APP_CSS%', `app/${style.name}`)
    .replaceAll('%WORLD_SVG%', `app/${world.name}`)
  const leftover = /%[A-Z_]+%/.exec(html)
  if (leftover) throw new Error(`index.html: unknown placeholder ${leftover[0]}`)
  return { html, files }
}

if (import.meta.main) {
  try {
    process.stdout.write(JSON.stringify(await build()))
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
