/**
 * Night vision: the page in red on black (html[data-theme="red"]), to keep the
 * eyes dark-adapted outside; remembered in this browser. Without it, the page
 * follows the system's light or dark preference (prefers-color-scheme).
 */
const KEY = 'sattrack.theme'

function apply(red: boolean, button: HTMLButtonElement): void {
  if (red) document.documentElement.dataset.theme = 'red'
  else delete document.documentElement.dataset.theme
  button.setAttribute('aria-pressed', String(red))
}

export function setupNightVision(button: HTMLButtonElement): void {
  let red = false
  try {
    red = localStorage.getItem(KEY) === 'red'
  } catch {
    // Storage disabled: the default theme.
  }
  apply(red, button)
  button.addEventListener('click', () => {
    red = !red
    apply(red, button)
    try {
      if (red) localStorage.setItem(KEY, 'red')
      else localStorage.removeItem(KEY)
    } catch {
      // Storage disabled: for this visit only.
    }
  })
}
