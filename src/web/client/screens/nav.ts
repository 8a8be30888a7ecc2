// Every screen of the dashboard, in navigation order; `ready: false` ones show what is coming next.
export interface Screen {
  path: string
  label: string
  ready: boolean
  /** What the screen will do, for the placeholder of one not built yet. */
  about: string
}

export const SCREENS: Screen[] = [
  { path: '/app', label: 'Home', ready: true, about: 'Quick capture, recent documents, drafts waiting for review, usage.' },
  { path: '/app/documents', label: 'Documents', ready: true, about: 'Every document, with filters, paging and bulk actions.' },
  {
    path: '/app/conversations',
    label: 'Conversations',
    ready: true,
    about: 'Conversations your agents sent, read message by message with speakers and times; rename, delete or forget them.',
  },
  { path: '/app/search', label: 'Search', ready: true, about: 'Hybrid keyword and semantic search, with why each result is there.' },
  {
    path: '/app/ask',
    label: 'Ask',
    ready: true,
    about: 'A chat answered from your memory as it streams, with cited sources, conversations, and an agent mode showing each tool call.',
  },
  {
    path: '/app/review',
    label: 'Review',
    ready: true,
    about: 'Drafts your agents proposed, to approve, edit or reject (j/k, a, r, e), beside the memories they would supersede or duplicate.',
  },
  {
    path: '/app/activity',
    label: 'Activity',
    ready: true,
    about: 'What happened to your data and who did it (you, a key, an MCP client, a connector), with filters; undo and history start here.',
  },
  {
    path: '/app/memories',
    label: 'Memories',
    ready: true,
    about: 'Active memories by kind, and the context pack an agent gets, with its token budget adjustable.',
  },
  { path: '/app/graph', label: 'Graph', ready: true, about: 'Documents and their links drawn; suggestions to accept or dismiss.' },
  { path: '/app/workspaces', label: 'Workspaces', ready: true, about: 'Create, rename and delete workspaces.' },
  {
    path: '/app/connectors',
    label: 'Connectors',
    ready: true,
    about: 'Confluence, Google Drive and Notion: connect, choose what to sync, sync now, run history.',
  },
  {
    path: '/app/keys',
    label: 'API keys',
    ready: true,
    about: 'Keys for your agents and tools, shown once at creation, and ready-to-copy MCP and OpenAI client configuration.',
  },
  { path: '/app/usage', label: 'Usage', ready: true, about: 'Meters against your plan, billing, and the history as a chart.' },
  {
    path: '/app/settings',
    label: 'Settings',
    ready: true,
    about: 'Default workspace, search mode, answer style, profile and avatar, account deletion.',
  },
]
