// `bun run admin <command> <email>`: account help for a server without mail — reset-password, verify-email,
// sign-out. It opens the database the server uses (on the embedded one, only while the server is stopped).
import { createDb } from '../db/client'
import { runMigrations } from '../db/migrate'
import { refuse } from './boot'
import { loadConfigOrExit } from './config'
import { systemClock } from './create-deps'
import { AppError } from './http/errors'
import { DataDirInUseError } from './lib/data-dir-lock'
import { adminResetPassword, adminSignOut, adminVerifyEmail } from './modules/auth/admin.service'

const USAGE = `usage: bun run admin <command> <email>
  reset-password <email>   set a new random password (printed once) and end every session of the account
  verify-email <email>     mark the account's email as verified (GitHub or Google sign-in may then be linked by it)
  sign-out <email>         end every session of the account`

const [command, email] = process.argv.slice(2)
if (!command || !email || !['reset-password', 'verify-email', 'sign-out'].includes(command)) refuse(USAGE)

const config = loadConfigOrExit()
const database = await createDb(config).catch((error: unknown) => {
  if (error instanceof DataDirInUseError) refuse(`${error.message} (stop the server first: the embedded database has one user at a time)`)
  throw error
})
await runMigrations(database, config.databaseUrl)
const deps = { db: database.db, clock: systemClock }
let status = 0
try {
  if (command === 'reset-password') {
    const password = await adminResetPassword(deps, email)
    console.log(
      `new password for ${email.trim().toLowerCase()}: ${password}\nevery session of the account was signed out; hand the password over and ask them to change it (Settings)`,
    )
  } else if (command === 'verify-email') {
    await adminVerifyEmail(deps, email)
    console.log(`${email.trim().toLowerCase()} is verified`)
  } else {
    console.log(`${await adminSignOut(deps, email)} sessions of ${email.trim().toLowerCase()} ended`)
  }
} catch (error) {
  if (!(error instanceof AppError)) throw error
  console.error(error.message)
  status = 1
} finally {
  await database.close()
}
process.exit(status)
