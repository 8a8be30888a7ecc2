// Small crypto helpers: SHA-256 hex, random tokens, base62 keys.
import { sha256 } from '@oslojs/crypto/sha2'
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding'

const encoder = new TextEncoder()

export const sha256Hex = (value: string) => encodeHexLowerCase(sha256(encoder.encode(value)))

/** A 20-byte random token, base32 (the Lucia session recipe). */
export const randomToken = () => encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(20)))

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Uniform base62 string: bytes ≥ 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62]
    }
  }
  return out
}
