// Placeholder until the password rules land (merged from the sign-in hardening branch).
export function passwordProblem(password: string, _email?: string): string | null {
  if (password.trim() === '') return 'password must not be only spaces'
  return null
}
