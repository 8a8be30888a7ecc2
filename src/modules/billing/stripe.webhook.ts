// Stripe-Signature verification: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload" under the endpoint
// secret>` (several v1 entries during secret rotation). Constant-time comparison; a timestamp more than five
// minutes from now is refused, so a captured request cannot be replayed later.
import { timingSafeEqual } from 'node:crypto'

export const TOLERANCE_SECONDS = 300

export async function hmacSha256Hex(secret: string, payload: Uint8Array | string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const data = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload
  return Buffer.from(await crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>)).toString('hex')
}

/** Answers null when the signature is valid, else why not (for the 400 message). */
export async function verifyStripeSignature(
  header: string | null,
  payload: Uint8Array,
  secret: string,
  nowSeconds: number,
): Promise<string | null> {
  if (!header) return 'missing Stripe-Signature header'
  const parts = header.split(',').map((p) => p.trim().split('=', 2) as [string, string])
  const timestamp = Number(parts.find(([k]) => k === 't')?.[1])
  const signatures = parts.filter(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v ?? '')).map(([, v]) => v)
  if (!Number.isInteger(timestamp) || signatures.length === 0) return 'malformed Stripe-Signature header'
  if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return 'Stripe-Signature timestamp is outside the 5-minute tolerance'
  const signed = new Uint8Array([...new TextEncoder().encode(`${timestamp}.`), ...payload])
  const expected = Buffer.from(await hmacSha256Hex(secret, signed), 'hex')
  const valid = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected))
  return valid ? null : 'Stripe-Signature does not match the payload'
}
