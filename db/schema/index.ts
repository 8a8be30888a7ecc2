// Every table of the service, by aggregate.
export * from './users'
export * from './settings'
export * from './documents'
export * from './conversations'
export * from './connectors'
export * from './billing'
export * from './ops'
export * from './search'
