/** What the page build produces and the web module serves. */
export interface WebAsset {
  /** File name under /app/ (content-hashed except the icon). */
  name: string
  contentType: string
  text: string
}

export interface WebAssets {
  /** The page at `/`, referring to the assets by relative URLs `app/<name>`. */
  html: string
  files: WebAsset[]
}
