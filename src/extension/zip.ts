// A minimal ZIP writer (deflate, no directories entries needed): enough for a store-ready extension archive without a zip tool.
import { deflateRawSync } from 'node:zlib'

export interface ZipEntry {
  name: string
  data: Uint8Array
}

/** DOS date/time fields are fixed: the archive's bytes depend on its contents only (reproducible builds). */
const DOS_TIME = 0
const DOS_DATE = (1 << 5) | 1 // 1980-01-01

export function zip(entries: ZipEntry[]): Uint8Array {
  const locals: Uint8Array[] = []
  const centrals: Uint8Array[] = []
  let offset = 0
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name)
    const packed = deflateRawSync(entry.data, { level: 9 })
    const crc = Bun.hash.crc32(entry.data)
    const local = new DataView(new ArrayBuffer(30))
    local.setUint32(0, 0x04034b50, true)
    local.setUint16(4, 20, true) // version needed: 2.0 (deflate)
    local.setUint16(6, 0x0800, true) // UTF-8 names
    local.setUint16(8, 8, true) // deflate
    local.setUint16(10, DOS_TIME, true)
    local.setUint16(12, DOS_DATE, true)
    local.setUint32(14, crc, true)
    local.setUint32(18, packed.length, true)
    local.setUint32(22, entry.data.length, true)
    local.setUint16(26, name.length, true)
    local.setUint16(28, 0, true)
    const central = new DataView(new ArrayBuffer(46))
    central.setUint32(0, 0x02014b50, true)
    central.setUint16(4, 20, true)
    central.setUint16(6, 20, true)
    central.setUint16(8, 0x0800, true)
    central.setUint16(10, 8, true)
    central.setUint16(12, DOS_TIME, true)
    central.setUint16(14, DOS_DATE, true)
    central.setUint32(16, crc, true)
    central.setUint32(20, packed.length, true)
    central.setUint32(24, entry.data.length, true)
    central.setUint16(28, name.length, true)
    central.setUint32(42, offset, true)
    locals.push(new Uint8Array(local.buffer), name, packed)
    centrals.push(new Uint8Array(central.buffer), name)
    offset += 30 + name.length + packed.length
  }
  const centralSize = centrals.reduce((n, part) => n + part.length, 0)
  const end = new DataView(new ArrayBuffer(22))
  end.setUint32(0, 0x06054b50, true)
  end.setUint16(8, entries.length, true)
  end.setUint16(10, entries.length, true)
  end.setUint32(12, centralSize, true)
  end.setUint32(16, offset, true)
  return Buffer.concat([...locals, ...centrals, new Uint8Array(end.buffer)])
}
