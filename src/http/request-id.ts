// The id of a request: the client's own `x-request-id` when it is safe to log and echo, else a new one.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** A caller (or a proxy in front) can follow its request through our log by its own id; anything else is replaced. */
export function requestIdFor(request: Request): string {
  const given = request.headers.get('x-request-id')
  return given !== null && SAFE_ID.test(given) ? given : crypto.randomUUID()
}
