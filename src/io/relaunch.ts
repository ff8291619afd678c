/**
 * Imported first by main.ts, so that it runs before any other module: executes
 * the process again with the heap options (memory.ts, HEAP_OPTIONS) that are
 * not already set. Where execve is not available (Windows), the service runs
 * with the engine's defaults.
 */
import { relaunchCommand } from './memory.ts'

const command = relaunchCommand({ env: process.env, argv: process.argv, execArgv: process.execArgv, execPath: process.execPath, main: Bun.main })
if (command && process.execve) {
  try {
    process.execve(command.file, command.args, command.env)
  } catch {
    // Not available here: go on with the defaults.
  }
}
