// Structured JSON log lines. Callers never pass secrets; keys and tokens are logged by prefix at most.
export type Level = 'debug' | 'info' | 'warn' | 'error'
export type Logger = Record<Level, (message: string, fields?: Record<string, unknown>) => void>

const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export function createLogger(level: Level | 'silent', write: (line: string) => void = (l) => process.stderr.write(l + '\n')): Logger {
  const at =
    (l: Level) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (order[l] < order[level]) return
      write(JSON.stringify({ time: new Date().toISOString(), level: l, message, ...fields }))
    }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
