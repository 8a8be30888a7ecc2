// Real objects for the fuzz to aim at, made through the API as a client would: a user with a key and a cookie
// session, a second user whose ids must stay out of reach, and sacrificial objects for the routes that delete.
export interface Actor {
  email: string
  key: string
  cookie: string
}

export interface Fixtures {
  url: string
  /** The fuzzing user; `protected*` objects must survive the run. */
  a: Actor
  /** Another user: their ids must answer 404, never their data. */
  b: Actor
  /** Sacrificial users: DELETE /api/account and sign-out may end them. */
  deleter: Actor
  signer: Actor
  ids: {
    workspace: string
    workspaceToDelete: string
    doc: string
    linkedDoc: string
    docToDelete: string
    bulkDoc: string
    draftToApprove: string
    draftToReject: string
    conversation: string
    conversationToDelete: string
    keyToDelete: string
    connector: string
    connectorToDelete: string
    connectionToDelete: string
    avatar: string
  }
  other: { workspace: string; doc: string; conversation: string; key: string; connector: string }
}

export type Api = (
  method: string,
  path: string,
  options?: { actor?: Actor; via?: 'key' | 'cookie'; body?: unknown; raw?: BodyInit },
) => Promise<{ status: number; body: any; headers: Headers }>

export function apiOf(url: string): Api {
  return async (method, path, { actor, via = 'key', body, raw } = {}) => {
    const headers: Record<string, string> = {}
    if (actor && via === 'key') headers.authorization = `Bearer ${actor.key}`
    if (actor && via === 'cookie') headers.cookie = actor.cookie
    if (method !== 'GET') headers.origin = url
    if (body !== undefined) headers['content-type'] = 'application/json'
    const res = await fetch(url + path, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : null
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers }
  }
}

function must<T>(res: { status: number; body: T }, ok: number[], what: string): T {
  if (!ok.includes(res.status)) throw new Error(`fixture ${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
  return res.body
}

let users = 0

export async function signUpActor(url: string, label: string): Promise<Actor> {
  const api = apiOf(url)
  const email = `fuzz-${label}-${++users}@example.com`
  const res = await fetch(`${url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  if (res.status !== 201) throw new Error(`fixture sign-up: ${res.status} ${await res.text()}`)
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!
  const key = must(
    await api('POST', '/api/keys', {
      actor: { email, key: '', cookie },
      via: 'cookie',
      body: { label: 'fuzz', scopes: ['read', 'write', 'keys'] },
    }),
    [201],
    'key',
  ).key as string
  return { email, key, cookie }
}

/** Creates a connector and completes its OAuth consent at the local fake, as a browser would. */
async function connect(url: string, actor: Actor, body: Record<string, unknown>): Promise<{ id: string; connection_id: string }> {
  const api = apiOf(url)
  const created = must(await api('POST', '/api/connectors', { actor, body }), [201], `connector ${body.type}`)
  const atProvider = await fetch(created.authorization_url, { redirect: 'manual' })
  const back = await fetch(atProvider.headers.get('location')!, { redirect: 'manual' })
  const returned = (await back.json()) as { connector: { id: string; connection_id: string } }
  if (back.status !== 200) throw new Error(`fixture consent ${body.type}: ${back.status} ${JSON.stringify(returned)}`)
  return returned.connector
}

async function ask(url: string, actor: Actor, question: string): Promise<string> {
  const api = apiOf(url)
  const stream = await api('POST', '/api/ask', { actor, body: { question } })
  const saved = /"conversation":\{"id":"([0-9a-f-]{36})"/.exec(String(stream.body))
  if (stream.status !== 200 || !saved) throw new Error(`fixture ask: ${stream.status} ${String(stream.body).slice(0, 300)}`)
  return saved[1]!
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3])

export async function createFixtures(url: string, confluence: { addSpace(input: { key: string }): unknown }): Promise<Fixtures> {
  const api = apiOf(url)
  const [a, b, deleter, signer] = [
    await signUpActor(url, 'a'),
    await signUpActor(url, 'b'),
    await signUpActor(url, 'deleter'),
    await signUpActor(url, 'signer'),
  ]
  const workspace = must(await api('POST', '/api/workspaces', { actor: a, body: { name: 'Fuzz' } }), [201], 'workspace').id
  const workspaceToDelete = must(await api('POST', '/api/workspaces', { actor: a, body: { name: 'Doomed' } }), [201], 'workspace').id
  const ingest = async (actor: Actor, ws: string, title: string, body: string) =>
    must(
      await api('POST', '/api/documents', { actor, body: { workspace_id: ws, title, body, tags: ['fuzz'] } }),
      [201],
      `document ${title}`,
    ).id as string
  const doc = await ingest(a, workspace, 'Quokka gateway', 'The quokka gateway fronts every service and retries twice.')
  const linkedDoc = await ingest(a, workspace, 'Wombat rotation', 'Page the wombat rotation first when the gateway fails.')
  const docToDelete = await ingest(a, workspace, 'Scratch', 'A scratch note the fuzz may delete.')
  const bulkDoc = await ingest(a, workspace, 'Bulk scratch', 'Another scratch note for bulk deletion.')
  // Real users keep such notes: one with no letters or digits (a zero vector once embedded).
  await ingest(a, workspace, 'Punctuation only', '!!! ??? ...')
  must(await api('POST', `/api/documents/${doc}/link`, { actor: a, body: { target_id: linkedDoc } }), [200, 201], 'link')
  const learnings = [
    { kind: 'fact', title: 'Draft to approve', body: 'The gateway retries twice.' },
    { kind: 'lesson', title: 'Draft to reject', body: 'Never page on weekends.' },
  ]
  const drafts = must(
    await api('POST', '/api/memories/batch-draft', { actor: a, body: { workspace_id: workspace, learnings } }),
    [201],
    'drafts',
  ).data
  const conversation = await ask(url, a, 'What fronts every service?')
  const conversationToDelete = await ask(url, a, 'Who do I page first?')
  const keyToDelete = must(await api('POST', '/api/keys', { actor: a, body: { label: 'doomed' } }), [201], 'second key').id
  confluence.addSpace({ key: 'ENG' })
  const connector = await connect(url, a, { type: 'confluence', workspace_id: workspace })
  const doomed = await connect(url, a, { type: 'notion', workspace_id: workspace })
  const form = new FormData()
  form.set('file', new Blob([PNG], { type: 'image/png' }), 'me.png')
  const profile = must(await api('POST', '/api/avatar', { actor: a, raw: form }), [200], 'avatar')
  const avatar = /\/api\/avatar\/([^/?]+)/.exec(profile.avatar_url)?.[1]
  if (!avatar) throw new Error(`fixture avatar: no id in ${profile.avatar_url}`)

  const otherWorkspace = must(await api('POST', '/api/workspaces', { actor: b, body: { name: 'Not yours' } }), [201], 'workspace of b').id
  const otherDoc = await ingest(b, otherWorkspace, 'Private', 'Only b may read this pangolin note.')
  const otherConversation = await ask(url, b, 'What may only b read?')
  const otherKey = must(await api('GET', '/api/keys', { actor: b }), [200], 'keys of b').data[0].id
  const otherConnector = (await connect(url, b, { type: 'confluence' })).id

  return {
    url,
    a,
    b,
    deleter,
    signer,
    ids: {
      workspace,
      workspaceToDelete,
      doc,
      linkedDoc,
      docToDelete,
      bulkDoc,
      draftToApprove: drafts[0].id,
      draftToReject: drafts[1].id,
      conversation,
      conversationToDelete,
      keyToDelete,
      connector: connector.id,
      connectorToDelete: doomed.id,
      connectionToDelete: doomed.connection_id,
      avatar,
    },
    other: { workspace: otherWorkspace, doc: otherDoc, conversation: otherConversation, key: otherKey, connector: otherConnector },
  }
}
