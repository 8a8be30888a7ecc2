// A usage meter: "Documents: 12 documents of 1,000 documents" and a <meter> bar (none when there is no limit).
export function Meter({ label, used, limit, show }: { label: string; used: number; limit: number | null; show: (n: number) => string }) {
  const id = `meter-${label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div class="meter">
      <span id={id}>
        {label}: {show(used)} {limit === null ? '(no limit)' : `of ${show(limit)}`}
      </span>
      {limit !== null && <meter aria-labelledby={id} min={0} max={limit} value={used} high={limit * 0.9} />}
    </div>
  )
}
