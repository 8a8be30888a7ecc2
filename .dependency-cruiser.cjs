// The import rules of ARCHITECTURE.md, checked by `bun run check:layers`: no import cycle anywhere (type-only
// imports count), and no layer imports a layer above it. A file's layer is the most specific pattern naming it
// (http/errors.ts is foundation though http/ is edge); the layers are drawn and explained in ARCHITECTURE.md.

const any = (...patterns) => patterns.join('|')

// The process entry points and the composition root: they may import anything.
const ENTRY = any('^src/(index|boot|app|create-deps|admin)[.]ts$', '^src/jobs/(main|reindex)[.]ts$', '^src/mcp/main[.]ts$')
// What everything may import: the database, helpers, config, log, plan limits, the Deps contract (types only,
// see deps-types-only), and the HTTP vocabulary services throw and write (errors, shared schemas, SSE frames).
const FOUNDATION = any(
  '^db/',
  '^src/lib/',
  '^src/(config|log|plans|deps)[.]ts$',
  '^src/config/',
  '^src/http/(errors|error-codes|drain|request-id|route-body-limits|schemas|sse)[.]ts$',
)
// The rooms that do one thing and know no resource's rules: ranking, embedding, chat models, provider APIs, the
// OAuth client, file extraction, the queue.
const ENGINES_AT = '^src/(retrieval|embedding|ai|connectors|oauth-client|files|queue)/'
// The rules of each resource, the agent and its tools and the connector sync among them (they are made of services).
const SERVICES_AT = '^src/modules/'
// The ways in: HTTP plugins and routes (and the pages they answer), MCP, the dashboard's server, the job handlers.
const EDGE_AT = any('^src/(http|mcp|web|jobs)/', '^src/modules/[^/]+/[^/]+[.](routes|page)[.]ts$')
// Code that runs in a browser (the dashboard client, the extension): it talks to the server over HTTP only.
const BROWSER = '^src/(web/client|extension)/'

// Each layer as dependency-cruiser matches it (its patterns, less the files a more specific layer claims), top first.
const LAYERS = [
  ['entry', { path: ENTRY }],
  ['edge', { path: EDGE_AT, pathNot: any(ENTRY, FOUNDATION, BROWSER) }],
  ['services', { path: SERVICES_AT, pathNot: any(EDGE_AT) }],
  ['engines', { path: ENGINES_AT }],
  ['foundation', { path: FOUNDATION, pathNot: '^src/deps[.]ts$' }],
]

// One rule per pair (lower, higher): a layer imports only its own layer and those below it.
const upward = LAYERS.flatMap(([lower, from], i) =>
  LAYERS.slice(0, i).map(([higher, to]) => ({
    name: `${lower}-imports-${higher}`,
    severity: 'error',
    comment: `the ${lower} layer may not import the ${higher} layer above it (ARCHITECTURE.md)`,
    from,
    to,
  })),
)

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'no import cycle, type-only imports included: move what two files share into a third, or pass it in',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'in-a-layer',
      severity: 'error',
      comment: 'every file belongs to a layer: a new folder or entry point gets its place in ARCHITECTURE.md and here',
      from: { path: '^(src|db)/', pathNot: any(ENTRY, EDGE_AT, SERVICES_AT, ENGINES_AT, FOUNDATION, BROWSER) },
      to: {},
    },
    {
      name: 'deps-types-only',
      severity: 'error',
      comment: 'src/deps.ts is the contract every layer reads: it may import types only, so it pulls no room in',
      from: { path: '^src/deps[.]ts$' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'browser-apart',
      severity: 'error',
      comment: 'browser code and server code never import each other (the browser talks to the server over HTTP)',
      from: { path: BROWSER },
      to: { path: '^(src|db)/', pathNot: BROWSER },
    },
    {
      name: 'server-apart',
      severity: 'error',
      comment: 'browser code and server code never import each other (the server bundles the client by path)',
      from: { path: '^(src|db)/', pathNot: BROWSER },
      to: { path: BROWSER },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests stand above every layer; they are not part of the graph checked here.
    exclude: { path: '[.]test[.]tsx?$' },
    // Type-only imports are dependencies too: they are how a reader finds what a file needs.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
}
