// Sealed secrets: readable only under the same key and context; any change to the stored value is detected.
import { describe, expect, test } from 'bun:test'
import { openSecret, sealSecret } from './secret-box'

const key = crypto.getRandomValues(new Uint8Array(32))

describe('secret box', () => {
  test('round-trips, with a fresh nonce each time', () => {
    const a = sealSecret(key, 'ya29.token-value', 'connection:1:access')
    const b = sealSecret(key, 'ya29.token-value', 'connection:1:access')
    expect(a).not.toBe(b)
    expect(a).not.toContain('ya29')
    expect(openSecret(key, a, 'connection:1:access')).toBe('ya29.token-value')
  })

  test('another key, another context or a flipped byte does not open', () => {
    const sealed = sealSecret(key, 'secret', 'connection:1:access')
    expect(() => openSecret(crypto.getRandomValues(new Uint8Array(32)), sealed, 'connection:1:access')).toThrow()
    expect(() => openSecret(key, sealed, 'connection:2:access')).toThrow()
    const [v, iv, body] = sealed.split('.')
    const bytes = Buffer.from(body!, 'base64url')
    bytes[0] = bytes[0]! ^ 1
    expect(() => openSecret(key, `${v}.${iv}.${bytes.toString('base64url')}`, 'connection:1:access')).toThrow()
    expect(() => openSecret(key, 'plain-text', 'connection:1:access')).toThrow('not a sealed secret')
  })
})
