// 201 Created with `Location`: where the created object can be read (or, for a batch, listed), as RFC 9110 §15.3.2 asks.

/** Marks the response 201 with the created object's path, and returns `value` (for a handler's last line). */
export function created<T>(set: { status?: unknown; headers: Record<string, unknown> }, location: string, value: T): T {
  set.status = 201
  set.headers.location = location
  return value
}
