// Ask (/app/ask, /app/ask/<conversation id>): a question answered from your memory as it streams, with its
// [n] citations opening the sources panel; the agent mode shows each tool call and result live. Stop aborts
// the stream. Conversations are listed beside it, continued by opening them, renamed and deleted.
import { useEffect, useRef, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import type { ChatMode, ConversationSummary } from '../lib/chat'
import { citedIndexes } from '../lib/citations'
import { navigate, usePlace } from '../lib/router'
import { useChat } from '../lib/use-chat'
import { useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { PageTitle } from '../ui/page'
import { ActionStatus, ErrorNote, Loading } from '../ui/states'
import { ConversationBar, ConversationList } from './ask-conversations'
import { SourcesPanel } from './ask-sources'
import { Thread } from './ask-thread'
import './ask.css'

export function Ask({ id }: { id?: string }) {
  const { query } = usePlace()
  const { current } = useWorkspaces()
  const [mode, setMode] = useState<ChatMode>(query.get('mode') === 'agent' ? 'agent' : 'ask')
  const [text, setText] = useState('')
  const [selected, setSelected] = useState<string>()
  const [focus, setFocus] = useState({ index: 0, round: 0 })
  const input = useRef<HTMLTextAreaElement>(null)

  const list = useApi((signal) => unwrap(api.GET('/api/conversations', { params: { query: { limit: 50 } }, signal })), [])
  const chat = useChat((saved) => {
    list.reload()
    // The new conversation gets its address; the same screen stays (no reload: it is what is shown).
    if (saved.id !== id) navigate(`/app/ask/${saved.id}`, { replace: true })
  })
  // Opening another conversation loads it; the one just saved by this screen is already here.
  const opened = useApi(
    async (signal) =>
      id && id !== chat.conversation?.id ? unwrap(api.GET('/api/conversations/{id}', { params: { path: { id } }, signal })) : null,
    [id],
  )
  useEffect(() => {
    if (opened.data) chat.load(opened.data)
  }, [opened.data])
  useEffect(() => {
    if (!id) chat.reset()
  }, [id])

  const answers = chat.turns.filter((t) => t.role === 'assistant')
  const shown = answers.find((t) => t.key === selected) ?? answers.at(-1)
  const cite = (turn: string, index: number) => {
    setSelected(turn)
    setFocus((f) => ({ index, round: f.round + 1 }))
  }

  const submit = async (event?: Event) => {
    event?.preventDefault()
    const question = text.trim()
    if (!question || chat.streaming) return
    setText('')
    setSelected(undefined)
    setFocus((f) => ({ index: 0, round: f.round }))
    const accepted = await chat.send(mode, question, chat.conversation ? undefined : current || undefined)
    if (!accepted) setText(question)
    input.current?.focus()
  }
  const stop = () => {
    chat.stop()
    announce('Stopped')
  }

  const title = chat.conversation?.name ?? (id && !opened.error ? 'Conversation' : 'Ask')
  return (
    <section class="ask">
      <PageTitle title={title} />
      {chat.conversation && (
        <ConversationBar
          key={chat.conversation.id}
          conversation={chat.conversation}
          onRenamed={(c: ConversationSummary) => (chat.rename(c), list.reload())}
          onDeleted={() => (list.reload(), navigate('/app/ask', { replace: true }))}
        />
      )}
      <div class="ask-layout">
        <ConversationList list={list} current={chat.conversation?.id} />
        <div class="chat">
          {opened.error ? (
            <ErrorNote error={opened.error} retry={opened.reload} />
          ) : opened.loading && id && !chat.turns.length ? (
            <Loading label="Loading the conversation…" />
          ) : chat.turns.length === 0 ? (
            <p class="hint intro">
              {mode === 'agent'
                ? 'The agent searches and reads your documents with tools, shows each step, and may propose learnings for you to review.'
                : 'Ask anything your documents answer: the answer cites them as [1], [2]…'}
            </p>
          ) : (
            <Thread turns={chat.turns} selected={shown?.key} onCite={cite} />
          )}
          <form class="ask-form card" onSubmit={submit}>
            <fieldset class="modes row" disabled={chat.streaming}>
              <legend class="visually-hidden">Mode</legend>
              <label class="mode">
                <input type="radio" name="mode" value="ask" checked={mode === 'ask'} onChange={() => setMode('ask')} /> Ask
              </label>
              <label class="mode">
                <input type="radio" name="mode" value="agent" checked={mode === 'agent'} onChange={() => setMode('agent')} /> Agent
              </label>
            </fieldset>
            <label>
              <span>{mode === 'agent' ? 'Message to the agent' : 'Your question'}</span>
              <textarea
                ref={input}
                rows={3}
                maxLength={4000}
                value={text}
                onInput={(e) => setText(e.currentTarget.value)}
                onKeyDown={(e) => e.key === 'Enter' && !e.shiftKey && !e.isComposing && submit(e)}
                placeholder={
                  mode === 'agent'
                    ? 'e.g. What do we know about backups? Remember that I prefer short answers.'
                    : 'e.g. How long are backups kept?'
                }
                autoFocus
              />
            </label>
            <div class="row end">
              <span class="hint grow">Enter sends, Shift+Enter makes a new line.</span>
              {chat.streaming ? (
                <button type="button" class="danger" onClick={stop}>
                  Stop
                </button>
              ) : (
                <button type="submit" class="primary" disabled={!text.trim()}>
                  {mode === 'agent' ? 'Send' : 'Ask'}
                </button>
              )}
            </div>
            <ActionStatus action={chat.opening} />
          </form>
        </div>
        <SourcesPanel
          sources={shown && (shown.state === 'done' || shown.sources.length) ? shown.sources : undefined}
          focus={focus}
          state={shown?.state}
          cited={citedIndexes(shown?.content ?? '')}
        />
      </div>
    </section>
  )
}
