// The thread of a chat: questions, and answers as they stream — the agent's tool steps above the text, the
// text as safe Markdown whose [n] citations are buttons that open the source in the sources panel.
import type { ComponentChildren } from 'preact'
import { memo } from 'preact/compat'
import type { Source } from '../lib/chat'
import type { ToolStep, Turn } from '../lib/use-chat'
import { Markdown } from '../ui/markdown'

interface Props {
  turns: Turn[]
  /** The answer whose sources the panel shows. */
  selected: string | undefined
  onCite(turn: string, index: number): void
}

export function Thread({ turns, selected, onCite }: Props) {
  return (
    <ol class="thread" aria-label="Conversation">
      {turns.map((turn) =>
        turn.role === 'user' ? (
          <Question key={turn.key} turn={turn} />
        ) : (
          <Answer key={turn.key} turn={turn} selected={turn.key === selected} onCite={onCite} />
        ),
      )}
    </ol>
  )
}

const Question = memo(({ turn }: { turn: Turn }) => (
  <li class="turn question">
    <p class="who-says">You</p>
    <p class="question-text">{turn.content}</p>
  </li>
))

// Only the answer being written changes while a stream runs: memo keeps the others from re-rendering per delta.
const Answer = memo(({ turn, selected, onCite }: { turn: Turn; selected: boolean; onCite: Props['onCite'] }) => {
  const cite = (text: string) => withCitations(text, turn.sources, (n) => onCite(turn.key, n))
  return (
    <li class={`turn answer ${turn.state}${selected ? ' selected' : ''}`} aria-busy={turn.state === 'streaming'}>
      <p class="who-says">{turn.mode === 'agent' ? 'Agent' : 'Answer'}</p>
      {turn.tools.length > 0 && <ToolSteps steps={turn.tools} />}
      {turn.content ? (
        <Markdown source={turn.content} shift={2} text={cite} />
      ) : (
        turn.state === 'streaming' && <p class="hint">{turn.tools.length ? 'Working…' : 'Thinking…'}</p>
      )}
      <AnswerEnd turn={turn} onSources={() => onCite(turn.key, 0)} />
    </li>
  )
})

function AnswerEnd({ turn, onSources }: { turn: Turn; onSources(): void }) {
  if (turn.state === 'streaming') return <p class="hint writing">Writing…</p>
  if (turn.state === 'stopped') return <p class="stopped">Stopped: this answer was cut short and not saved.</p>
  if (turn.state === 'failed')
    return (
      <p class="state error" role="alert">
        <strong>The answer failed:</strong> {turn.error}
      </p>
    )
  if (!turn.sources.length) return null
  return (
    <button type="button" class="quiet small" onClick={onSources}>
      {turn.sources.length === 1 ? '1 source' : `${turn.sources.length} sources`}
    </button>
  )
}

/** `[n]` in the answer's text become buttons naming the source they point to. */
function withCitations(text: string, sources: Source[], open: (n: number) => void): ComponentChildren {
  const parts = text.split(/\[(\d{1,3})\]/)
  if (parts.length === 1) return text
  return parts.map((part, i) => {
    if (i % 2 === 0) return part
    const n = Number(part)
    const source = sources.find((s) => s.index === n)
    return (
      <button
        key={i}
        type="button"
        class="cite"
        aria-label={`Source ${n}${source?.title ? `: ${source.title}` : ''}`}
        onClick={() => open(n)}
      >
        [{n}]
      </button>
    )
  })
}

function ToolSteps({ steps }: { steps: ToolStep[] }) {
  return (
    <ol class="tools" aria-label="Tool calls">
      {steps.map((step, i) => (
        <li key={i} class={`tool ${step.error ? 'failed' : step.result ? 'done' : 'running'}`}>
          <span class="tool-name">{step.name}</span> <span class="tool-detail">{describe(step.call)}</span>{' '}
          <span class="tool-outcome">{step.error ? `failed: ${step.error}` : step.result ? `→ ${describe(step.result)}` : 'running…'}</span>
        </li>
      ))}
    </ol>
  )
}

/** A tool's input or compact result as one readable line: `query: “backups” · limit: 5`. */
export function describe(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([key, value]) => `${key.replace(/_/g, ' ')}: ${show(value)}`)
    .join(' · ')
}

/** A value in a few words: text quoted, a list item by item, an object by its title when it has one. */
function show(value: unknown): string {
  if (typeof value === 'string') return `“${value.length > 120 ? `${value.slice(0, 120)}…` : value}”`
  if (Array.isArray(value)) return value.length ? value.map(show).join(', ') : 'none'
  if (value && typeof value === 'object') {
    const title = (value as { title?: unknown }).title
    if (typeof title === 'string') return `“${title}”`
    const json = JSON.stringify(value)
    return json.length > 120 ? `${json.slice(0, 120)}…` : json
  }
  return String(value)
}
