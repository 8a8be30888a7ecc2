// One writer per embedded data directory: a lock file holding the owner's PID, created atomically, released on
// exit; a lock whose process is gone (kill -9, a crash, a reboot) is taken over.
import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const LOCK_FILE = 'service.lock'

export interface LockOwner {
  pid: number
  /** The kernel's start time of that process (Linux): tells a live owner from a new process given the same PID. */
  start: string | null
  command: string
  started_at: string
}

export class DataDirInUseError extends Error {}

export interface DataDirLock {
  file: string
  release(): void
}

/**
 * Takes `dir`'s lock for this process, or throws DataDirInUseError naming the directory and the process that
 * holds it. Two PGlite instances on one directory would each see only their own writes and lose the other's.
 */
export function lockDataDir(dir: string, onTakeOver?: (stale: LockOwner) => void): DataDirLock {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, LOCK_FILE)
  const me: LockOwner = { pid: process.pid, start: startTimeOf(process.pid), command: commandLine(), started_at: new Date().toISOString() }
  // Written whole to a private name, then linked into place: link() fails if the lock exists, so two processes
  // starting together cannot both win, and no one ever reads a half-written lock.
  const draft = `${file}.${process.pid}.${crypto.randomUUID().slice(0, 8)}`
  writeFileSync(draft, JSON.stringify(me) + '\n', { mode: 0o644 })
  try {
    if (!linked(draft, file)) {
      const owner = readOwner(file)
      if (owner && isAlive(owner)) throw inUse(dir, owner)
      setAside(file, owner, dir)
      if (owner) onTakeOver?.(owner)
      if (!linked(draft, file)) throw inUse(dir, readOwner(file))
    }
  } finally {
    rmSync(draft, { force: true })
  }

  let held = true
  const release = () => {
    if (!held) return
    held = false
    process.off('exit', release)
    // Only our own lock: never remove one another process took over after us.
    const owner = readOwner(file)
    if (owner?.pid === me.pid && owner.started_at === me.started_at) {
      try {
        unlinkSync(file)
      } catch {}
    }
  }
  // process.exit() from anywhere (a failed boot, the watchdog) still frees the directory.
  process.on('exit', release)
  return { file, release }
}

function linked(draft: string, file: string): boolean {
  try {
    linkSync(draft, file)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error
  }
  // A filesystem without hard links: an exclusive create is atomic too (a crash mid-write leaves an unreadable
  // lock, which counts as stale).
  try {
    writeFileSync(file, readFileSync(draft), { flag: 'wx', mode: 0o644 })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
}

/** Moves a stale lock out of the way — unless, in the meantime, another process replaced it with its own live one. */
function setAside(file: string, stale: LockOwner | null, dir: string): void {
  const aside = `${file}.stale.${process.pid}`
  try {
    renameSync(file, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  const moved = readOwner(aside)
  if (moved && !(moved.pid === stale?.pid && moved.started_at === stale.started_at)) {
    if (!linked(aside, file)) throw inUse(dir, readOwner(file))
    rmSync(aside, { force: true })
    throw inUse(dir, moved)
  }
  rmSync(aside, { force: true })
}

const inUse = (dir: string, owner: LockOwner | null) =>
  new DataDirInUseError(
    `DATA_DIR ${dir} is in use by process ${owner?.pid ?? '(unknown)'} (${owner?.command ?? 'starting'}, since ${owner?.started_at ?? 'now'}): ` +
      'stop it first, or give this process another DATA_DIR (several processes can share one DATABASE_URL)',
  )

function readOwner(file: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as LockOwner
    return Number.isInteger(owner.pid) && owner.pid > 0 ? owner : null
  } catch {
    // Unreadable or not ours to parse (hand-edited, truncated by a full disk): nobody can be shown to hold it.
    return null
  }
}

function isAlive(owner: LockOwner): boolean {
  if (owner.pid === process.pid) return false
  try {
    process.kill(owner.pid, 0)
  } catch (error) {
    // EPERM: the process exists under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  // A PID is reused after a reboot or a container restart: the same PID with another start time is another process.
  const start = startTimeOf(owner.pid)
  return owner.start === null || start === null || start === owner.start
}

/** Field 22 of /proc/<pid>/stat (clock ticks after boot); null where /proc is not there. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

function commandLine(): string {
  const script = process.argv[1] ? process.argv[1].replace(process.cwd() + '/', '') : ''
  return ['bun', script, ...process.argv.slice(2)].filter(Boolean).join(' ')
}
