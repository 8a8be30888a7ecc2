// The daily history (/api/stats/historical) as an SVG line chart — searches, answers, documents added — with
// the same numbers as a table for screen readers and for anyone who wants the figures.
import { useState } from 'preact/hooks'

export interface Day {
  date: string
  searches: number
  answers: number
  documents_added: number
}

const SERIES = [
  { key: 'searches', label: 'Searches', class: 'series-a' },
  { key: 'answers', label: 'Answers', class: 'series-b' },
  { key: 'documents_added', label: 'Documents added', class: 'series-c' },
] as const

const W = 720
const H = 240
const PAD = { left: 40, right: 12, top: 12, bottom: 28 }

/** A round axis top at or above `max` (1, 2, 5 × 10ⁿ), so the gridlines fall on whole numbers. */
export function niceMax(max: number): number {
  if (max <= 4) return 4
  const power = 10 ** Math.floor(Math.log10(max))
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max)!
}

export function HistoryChart({ series }: { series: Day[] }) {
  const [table, setTable] = useState(false)
  const top = niceMax(Math.max(0, ...series.flatMap((d) => SERIES.map((s) => d[s.key]))))
  const innerW = W - PAD.left - PAD.right
  const innerH = H - PAD.top - PAD.bottom
  const x = (i: number) => PAD.left + (series.length <= 1 ? innerW / 2 : (i / (series.length - 1)) * innerW)
  const y = (v: number) => PAD.top + innerH - (v / top) * innerH
  const totals = SERIES.map((s) => `${series.reduce((sum, d) => sum + d[s.key], 0)} ${s.label.toLowerCase()}`).join(', ')
  const first = series[0]?.date
  const last = series[series.length - 1]?.date
  const tickEvery = Math.max(1, Math.ceil(series.length / 6))

  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby="chart-title chart-desc" class="chart-svg">
        <title id="chart-title">Activity by day</title>
        <desc id="chart-desc">
          From {first} to {last}: {totals}. The same figures follow as a table.
        </desc>
        {[0, 0.25, 0.5, 0.75, 1].map((f) => (
          <g key={f} class="grid-line">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(top * f)} y2={y(top * f)} />
            <text x={PAD.left - 6} y={y(top * f) + 4} text-anchor="end">
              {Math.round(top * f)}
            </text>
          </g>
        ))}
        {series.map((d, i) =>
          i % tickEvery === 0 || i === series.length - 1 ? (
            <text
              key={d.date}
              class="tick"
              x={x(i)}
              y={H - 8}
              text-anchor={series.length > 1 && i === 0 ? 'start' : series.length > 1 && i === series.length - 1 ? 'end' : 'middle'}
            >
              {d.date.slice(5)}
            </text>
          ) : null,
        )}
        {SERIES.map((s) => (
          <g key={s.key} class={s.class}>
            <polyline fill="none" points={series.map((d, i) => `${x(i)},${y(d[s.key])}`).join(' ')} />
            {series.length <= 31 && series.map((d, i) => <circle key={d.date} cx={x(i)} cy={y(d[s.key])} r={3} />)}
          </g>
        ))}
      </svg>
      <figcaption class="row legend">
        {SERIES.map((s) => (
          <span key={s.key} class={`legend-item ${s.class}`}>
            <span class="legend-line" aria-hidden="true" />
            {s.label}
          </span>
        ))}
        <button type="button" class="quiet" aria-expanded={table} aria-controls="history-table" onClick={() => setTable(!table)}>
          {table ? 'Hide the table' : 'Show as a table'}
        </button>
      </figcaption>
      {/* Always there for screen readers; shown on the screen on request. */}
      <div id="history-table" class={table ? 'table-scroll' : 'visually-hidden'}>
        <table class="history-table">
          <caption class="visually-hidden">Activity by day</caption>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {SERIES.map((s) => (
                <th key={s.key} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {series.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                {SERIES.map((s) => (
                  <td key={s.key}>{d[s.key]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  )
}
