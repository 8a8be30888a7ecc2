// The state of one chat: its turns (a question, then the answer as it streams, with the agent's tool steps,
// sources and how it ended), the conversation it belongs to, send and Stop. Stop aborts the fetch; the
// service sees the disconnect and stops generating (it saves nothing of a stopped answer).
import { useCallback, useRef, useState } from 'preact/hooks'
import { chatEvents, openChat, type ChatMode, type Conversation, type ConversationSummary, type Source, type ToolEvent } from './chat'
import { announce } from './announce'
import { useAction, type Action } from './use-api'

export interface ToolStep {
  name: string
  call: Record<string, unknown>
  result?: Record<string, unknown>
  error?: string
}

export type TurnState = 'streaming' | 'done' | 'stopped' | 'failed'

export interface Turn {
  key: string
  role: 'user' | 'assistant'
  content: string
  sources: Source[]
  tools: ToolStep[]
  state: TurnState
  mode?: ChatMode
  /** Why a failed answer failed (the stream's `error` event, or a lost connection). */
  error?: string
}

export interface Chat {
  turns: Turn[]
  conversation: ConversationSummary | undefined
  streaming: boolean
  /** Opening the stream: its 401 / 429 / 4xx, shown by <ActionStatus>. */
  opening: Action
  /** Sends; resolves false when the question was not accepted (the caller keeps the text to try again). */
  send(mode: ChatMode, text: string, workspace_id?: string): Promise<boolean>
  stop(): void
  load(conversation: Conversation): void
  reset(): void
  rename(conversation: ConversationSummary): void
}

let keys = 0
const nextKey = () => `t${++keys}`

const fromMessage = (m: Conversation['messages'][number]): Turn => ({
  key: m.id,
  role: m.role,
  content: m.content,
  sources: m.sources,
  tools: [],
  state: 'done',
})

/** A tool event: a call opens a step; a result or error closes the latest open step of that tool. */
function withTool(tools: ToolStep[], tool: ToolEvent): ToolStep[] {
  if (tool.status === 'call') return [...tools, { name: tool.name, call: tool.detail }]
  const open = tools.findLastIndex((t) => t.name === tool.name && !t.result && !t.error)
  const closing = tool.status === 'result' ? { result: tool.detail } : { error: String(tool.detail.message ?? 'failed') }
  if (open < 0) return [...tools, { name: tool.name, call: {}, ...closing }]
  return tools.map((t, i) => (i === open ? { ...t, ...closing } : t))
}

export function useChat(onSaved: (conversation: ConversationSummary) => void): Chat {
  const [turns, setTurns] = useState<Turn[]>([])
  const [conversation, setConversation] = useState<ConversationSummary>()
  const [streaming, setStreaming] = useState(false)
  const controller = useRef<AbortController | undefined>(undefined)
  const opening = useAction()
  const saved = useRef(onSaved)
  saved.current = onSaved

  const send = useCallback(
    async (mode: ChatMode, text: string, workspace_id?: string) => {
      const question: Turn = { key: nextKey(), role: 'user', content: text, sources: [], tools: [], state: 'done' }
      const answer: Turn = { key: nextKey(), role: 'assistant', content: '', sources: [], tools: [], state: 'streaming', mode }
      const update = (change: (turn: Turn) => Partial<Turn>) =>
        setTurns((all) => all.map((t) => (t.key === answer.key ? { ...t, ...change(t) } : t)))
      const ctl = new AbortController()
      controller.current = ctl
      setStreaming(true)
      setTurns((all) => [...all, question, answer])
      const stream = await opening.run(() => openChat(mode, { text, conversation_id: conversation?.id, workspace_id }, ctl.signal))
      if (!stream) {
        // Not accepted (or stopped before it began): nothing was asked, so nothing stays in the thread.
        setTurns((all) => all.filter((t) => t !== question && t !== answer))
        setStreaming(false)
        return false
      }
      let ended = false
      try {
        for await (const event of chatEvents(stream)) {
          if (event.type === 'delta') update((t) => ({ content: t.content + event.text }))
          else if (event.type === 'tool') update((t) => ({ tools: withTool(t.tools, event.tool) }))
          else if (event.type === 'sources') update(() => ({ sources: event.sources }))
          else if (event.type === 'error') {
            ended = true
            update(() => ({ state: 'failed', error: event.message }))
          } else if (event.type === 'saved') {
            ended = true
            update(() => ({ state: 'done' }))
            announce('Answer complete')
            setConversation(event.conversation)
            saved.current(event.conversation)
          }
        }
        if (!ended) update(() => ({ state: 'failed', error: 'the answer ended before it was complete' }))
      } catch (error) {
        if (ctl.signal.aborted) update(() => ({ state: 'stopped' }))
        else update(() => ({ state: 'failed', error: `the connection was lost: ${(error as Error).message}` }))
      } finally {
        if (controller.current === ctl) controller.current = undefined
        setStreaming(false)
      }
      return true
    },
    [conversation?.id, opening.run],
  )

  const stop = useCallback(() => controller.current?.abort(), [])
  const load = useCallback((c: Conversation) => {
    controller.current?.abort()
    setConversation({ id: c.id, name: c.name, workspace_id: c.workspace_id, created_at: c.created_at, updated_at: c.updated_at })
    setTurns(c.messages.map(fromMessage))
  }, [])
  const reset = useCallback(() => {
    controller.current?.abort()
    setConversation(undefined)
    setTurns([])
  }, [])
  return { turns, conversation, streaming, opening, send, stop, load, reset, rename: setConversation }
}
