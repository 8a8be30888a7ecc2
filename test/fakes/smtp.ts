// A real SMTP server on loopback (the smtp-server package, which speaks the protocol as mail servers do), keeping
// every message it accepts so a test can read the links the service mailed.
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  to: string[]
  raw: string
}

export interface LocalSmtp {
  url: string
  mails: ReceivedMail[]
  /** The first http(s) link of the newest mail to `to`. */
  linkSentTo(to: string): string | null
  stop(): Promise<void>
}

export async function startSmtp(): Promise<LocalSmtp> {
  const mails: ReceivedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as { port: number }
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    linkSentTo(to) {
      const mail = mails.filter((m) => m.to.includes(to.toLowerCase())).at(-1)
      // Quoted-printable soft line breaks ("=\r\n") may cut a long link.
      const text = mail?.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
      return text?.match(/https?:\/\/\S+/)?.[0] ?? null
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
