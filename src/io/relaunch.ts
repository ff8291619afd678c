/**
 * Imported first by main.ts, so that it runs before any other module: executes
 * the process again with the heap options (memory.ts, HEAP_OPTIONS) that are
 * not already set. Where execve is not available (Windows), the service runs
 * with the engine's defaults. The supervisor of --workers is not executed again
 * (it serves nothing; its workers are started with the options in their
 * environment): one execve less on the way to the first worker.
 */
import { relaunchCommand } from './memory.ts'
import { willSupervise } from './workers-flag.ts'

const command = relaunchCommand({ env: process.env, argv: process.argv, execArgv: process.execArgv, execPath: process.execPath, main: Bun.main })
if (command && process.execve && !willSupervise(process.argv, process.env)) {
  try {
    process.execve(command.file, command.args, command.env)
  } catch {
    // Not available here: go on with the defaults.
  }
}
