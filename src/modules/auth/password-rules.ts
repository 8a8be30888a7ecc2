// What a new password must not be: short, blank, one character repeated, one of the most common passwords, or
// the account's own email. Shared by sign-up and by every way of setting a password, so they refuse alike.
import { badRequest } from '../../http/errors'

export const MIN_PASSWORD_LENGTH = 8

/**
 * The most common passwords of 8 characters or more, from the yearly published top lists (leaked-password
 * rankings): the first guesses of any attacker; and the short words they grow from, which refuse `monkey2024`.
 * Compared in lower case.
 */
const COMMON_PASSWORDS = new Set(
  `
12345678 123456789 1234567890 12345678910 0123456789 87654321 987654321 0987654321 11111111 1111111111
00000000 22222222 66666666 77777777 88888888 99999999 11223344 12341234 12344321 12121212 11112222 123123123
123454321 147258369 159753456 741852963 789456123 963852741 123698745 1234567a a1234567 a12345678 12345678a
aa123456 aa12345678 123456aa 1234567q q1234567 1234abcd abcd1234 abc12345 12345abc abcdefgh abcdefg1 a1b2c3d4
1q2w3e4r 1q2w3e4r5t 1q2w3e4r5t6y 1q2w3e4r! 1qaz2wsx 1qazxsw2 1qaz2wsx3edc !qaz2wsx zaq12wsx zaq1zaq1 q1w2e3r4
q1w2e3r4t5 qwertyui qwertyuiop qwerty12 qwerty123 qwerty1234 qwerty!@# qwertyqwerty qwer1234 1234qwer qwe12345
123qwe123 123qweasd qweasdzxc qazwsxedc qazwsx123 12345qwert asdfghjk asdfghjkl asdf1234 asdfasdf zxcvbnm1
zxcvbnm123 azertyui azerty123 !@#$%^&* password password1 password12 password123 password1234 password!
passw0rd p@ssw0rd p@ssword pa$$word passpass passwort motdepasse contraseña iloveyou iloveyou1 iloveyou2
iloveu123 loveme12 lovely12 lovelove princess princess1 sunshine sunshine1 football football1 baseball
basketball superman batman123 starwars whatever trustno1 letmein1 letmein123 welcome1 welcome123 welcome!
changeme changeme1 computer internet michelle jennifer jessica1 danielle michael1 jonathan charlie1 chocolate
butterfly babygirl babygirl1 liverpool manchester arsenal1 chelsea1 jordan23 monkey12 monkey123 dragon12
dragon123 master12 master123 mustang1 shadow12 hello123 hello1234 helloworld admin123 admin1234 administrator
root1234 test1234 test12345 testtest guest123 user1234 secret12 secret123 default1 qwerty123456 1234512345
freedom1 biteme12 qwerty qwertz azerty abc123 monkey dragon master shadow letmein welcome hello admin secret
freedom summer winter pokemon
`
    .trim()
    .split(/\s+/),
)

// A common password or the email's name with digits or symbols tacked on is guessed just as early.
const TRAILING = /[0-9!@#$%^&*()\-_=+.,?~ ]+$/

/** Why `password` cannot be used (a sentence for a 400), or null when it can. */
export function passwordProblem(password: string, email?: string | null): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.trim() === '') return 'password must not be only spaces'
  const plain = password.trim().toLowerCase()
  if (new Set(plain).size === 1) return 'password must not be one character repeated'
  const bare = plain.replace(TRAILING, '')
  if (COMMON_PASSWORDS.has(plain) || COMMON_PASSWORDS.has(bare)) {
    return 'password is one of the most common passwords, the first an attacker tries: choose another'
  }
  const address = email?.trim().toLowerCase()
  const name = address?.split('@')[0]
  if (address && (plain === address || bare === address || (name && (plain === name || bare === name)))) {
    return 'password must not be your email address or the name before its @'
  }
  return null
}

/** Throws the 400 of `passwordProblem` when there is one. */
export function assertPasswordAllowed(password: string, email?: string | null): void {
  const problem = passwordProblem(password, email)
  if (problem) throw badRequest(problem)
}
