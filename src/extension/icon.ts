// The service's icon — three linked memories on a blue rounded square — drawn from one list of shapes, as SVG (the
// dashboard's favicon, src/web/favicon.svg, is this file's output) and as PNG at any size (the extension's toolbar
// and store icons, made at build time). Nothing is downloaded and no image library is needed.
import { deflateSync } from 'node:zlib'

/** Shapes on a 0–1 square: the background, the links between the memories, then the memories. */
const BACKGROUND = { color: [11, 92, 173] as const, radius: 0.22 }
const NODES = [
  { x: 0.3, y: 0.68, r: 0.11 },
  { x: 0.5, y: 0.3, r: 0.13 },
  { x: 0.72, y: 0.64, r: 0.1 },
]
const LINKS: [number, number][] = [
  [0, 1],
  [1, 2],
  [0, 2],
]
const LINK_WIDTH = 0.06
const INK = [255, 255, 255] as const

const f = (n: number) => Number((n * 64).toFixed(2))

/** The icon as an SVG document on a 64-unit view box. */
export function iconSvg(): string {
  const [r, g, b] = BACKGROUND.color
  const links = LINKS.map(([a, z]) => {
    const p = NODES[a]!
    const q = NODES[z]!
    return `<line x1="${f(p.x)}" y1="${f(p.y)}" x2="${f(q.x)}" y2="${f(q.y)}"/>`
  }).join('')
  const nodes = NODES.map((n) => `<circle cx="${f(n.x)}" cy="${f(n.y)}" r="${f(n.r)}"/>`).join('')
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><title>Memory</title><rect width="64" height="64" rx="${f(BACKGROUND.radius)}" fill="rgb(${r},${g},${b})"/><g stroke="#fff" stroke-width="${f(LINK_WIDTH)}" stroke-linecap="round">${links}</g><g fill="#fff">${nodes}</g></svg>\n`
}

/** Distance from (x, y) to the segment p–q. */
function toSegment(x: number, y: number, p: { x: number; y: number }, q: { x: number; y: number }): number {
  const dx = q.x - p.x
  const dy = q.y - p.y
  const t = Math.max(0, Math.min(1, ((x - p.x) * dx + (y - p.y) * dy) / (dx * dx + dy * dy)))
  return Math.hypot(x - p.x - t * dx, y - p.y - t * dy)
}

/** Inside the rounded square? */
function inBackground(x: number, y: number): boolean {
  const r = BACKGROUND.radius
  const cx = Math.min(Math.max(x, r), 1 - r)
  const cy = Math.min(Math.max(y, r), 1 - r)
  return x >= 0 && x <= 1 && y >= 0 && y <= 1 && Math.hypot(x - cx, y - cy) <= r
}

const inInk = (x: number, y: number) =>
  NODES.some((n) => Math.hypot(x - n.x, y - n.y) <= n.r) || LINKS.some(([a, z]) => toSegment(x, y, NODES[a]!, NODES[z]!) <= LINK_WIDTH / 2)

/** RGBA pixels of the icon at `size`×`size`, each pixel sampled 4×4 times so edges are smooth at 16 px too. */
export function iconPixels(size: number): Uint8Array {
  const pixels = new Uint8Array(size * size * 4)
  const n = 4
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      let covered = 0
      let inked = 0
      for (let sy = 0; sy < n; sy++)
        for (let sx = 0; sx < n; sx++) {
          const x = (px + (sx + 0.5) / n) / size
          const y = (py + (sy + 0.5) / n) / size
          if (!inBackground(x, y)) continue
          covered++
          if (inInk(x, y)) inked++
        }
      const at = (py * size + px) * 4
      const ink = covered ? inked / covered : 0
      for (let c = 0; c < 3; c++) pixels[at + c] = Math.round(BACKGROUND.color[c]! * (1 - ink) + INK[c]! * ink)
      pixels[at + 3] = Math.round((covered / (n * n)) * 255)
    }
  return pixels
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  const typed = new TextEncoder().encode(type)
  out.set(typed, 4)
  out.set(data, 8)
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)))
  return out
}

/** The icon as a PNG file (8-bit RGBA, no interlace). */
export function iconPng(size: number): Uint8Array {
  const pixels = iconPixels(size)
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, size)
  view.setUint32(4, size)
  header.set([8, 6, 0, 0, 0], 8)
  // Each row starts with its filter byte (0: none).
  const rows = new Uint8Array(size * (size * 4 + 1))
  for (let y = 0; y < size; y++) rows.set(pixels.subarray(y * size * 4, (y + 1) * size * 4), y * (size * 4 + 1) + 1)
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', new Uint8Array(deflateSync(rows, { level: 9 }))),
    chunk('IEND', new Uint8Array()),
  ]
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) png.set(part, at), (at += part.length)
  return png
}

/** The sizes the manifest names: toolbar (16, 32), the extensions page (48) and the store and install (128). */
export const ICON_SIZES = [16, 32, 48, 128] as const
export const iconFile = (size: number) => `icon-${size}.png`
