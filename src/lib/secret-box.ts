// Secrets at rest (connections' OAuth tokens): AES-256-GCM under ENCRYPTION_KEY with a fresh 96-bit nonce per
// value. The context (e.g. "connection:<id>:access") is authenticated data, so a ciphertext copied into another
// row or field does not decrypt there.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

const VERSION = 'v1'

export function sealSecret(key: Uint8Array, plaintext: string, context: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(context))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return `${VERSION}.${iv.toString('base64url')}.${body.toString('base64url')}`
}

/** Throws when the value was not sealed under this key and context (or was altered). */
export function openSecret(key: Uint8Array, sealed: string, context: string): string {
  const [version, iv, body] = sealed.split('.')
  if (version !== VERSION || !iv || !body) throw new Error('not a sealed secret')
  const bytes = Buffer.from(body, 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  decipher.setAAD(Buffer.from(context))
  decipher.setAuthTag(bytes.subarray(bytes.length - 16))
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8')
}
