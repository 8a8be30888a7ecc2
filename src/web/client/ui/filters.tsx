// Filter controls shared by Documents and Search: workspace (the switcher's choice), kind, tag, source, status.
import { FILTER_KINDS, SOURCES, STATUSES } from '../lib/kinds'
import { chooseWorkspace, useWorkspaces } from '../lib/workspaces'

export interface FilterValues {
  kind?: string
  tag?: string
  source?: string
  status?: string
}

interface Props {
  values: FilterValues
  onChange(values: FilterValues): void
  /** Search covers active documents only, so it has no status filter. */
  withStatus?: boolean
}

function Choice({
  label,
  value,
  options,
  onChange,
  all,
}: {
  label: string
  value: string
  options: readonly string[]
  all: string
  onChange(v: string): void
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{all}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o.replace('_', ' ')}
          </option>
        ))}
      </select>
    </label>
  )
}

export function Filters({ values, onChange, withStatus = true }: Props) {
  const { list, current } = useWorkspaces()
  return (
    <fieldset class="filters">
      <legend class="visually-hidden">Filters</legend>
      <label>
        Workspace
        <select value={current} onChange={(e) => chooseWorkspace(e.currentTarget.value)}>
          <option value="">All</option>
          {list?.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <Choice label="Kind" value={values.kind ?? ''} options={FILTER_KINDS} all="Any" onChange={(kind) => onChange({ ...values, kind })} />
      <label>
        Tag
        <input
          type="search"
          value={values.tag ?? ''}
          maxLength={64}
          placeholder="any"
          onChange={(e) => onChange({ ...values, tag: e.currentTarget.value.trim() })}
        />
      </label>
      <Choice
        label="Source"
        value={values.source ?? ''}
        options={SOURCES}
        all="Any"
        onChange={(source) => onChange({ ...values, source })}
      />
      {withStatus && (
        <Choice
          label="Status"
          value={values.status ?? ''}
          options={STATUSES.filter((s) => s !== 'active')}
          all="Active"
          onChange={(status) => onChange({ ...values, status })}
        />
      )}
    </fieldset>
  )
}
