/** Files imported `with { type: 'file' }`: the import is the file's path (embedded in the executable). */
declare module '*/standalone.js' {
  const path: string
  export default path
}
declare module '*.bin' {
  const path: string
  export default path
}
