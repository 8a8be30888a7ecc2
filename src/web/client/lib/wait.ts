// Waiting out a 429: counts the Retry-After seconds down (for the screen to show), then resolves.
export function waitSeconds(seconds: number, tick: (left: number) => void, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    let left = Math.max(1, Math.ceil(seconds))
    tick(left)
    const timer = setInterval(() => {
      left -= 1
      tick(left)
      if (left <= 0) {
        clearInterval(timer)
        resolve()
      }
    }, 1000)
    signal?.addEventListener('abort', () => {
      clearInterval(timer)
      reject(new DOMException('aborted', 'AbortError'))
    })
  })
}
