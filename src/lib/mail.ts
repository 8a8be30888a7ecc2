// Outgoing mail over SMTP (SMTP_URL): the links that verify an address and reset a password. One transport per
// SMTP URL, made when first used; a failure is logged with its cause and reported to the caller without it.
import { createTransport, type Transporter } from 'nodemailer'
import type { Config } from '../config'
import type { Logger } from '../log'

export interface Mail {
  to: string
  subject: string
  text: string
}

const transports = new Map<string, Transporter>()

function transportOf(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl)
  if (!transport) {
    // Bounded waits: a dead mail server costs a request 15 s at most, never a hang.
    transport = createTransport(smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 15_000 })
    transports.set(smtpUrl, transport)
  }
  return transport
}

/** Sends `mail`; false (and a log line without the SMTP credentials) when the server refused or did not answer. */
export async function sendMail(config: Pick<Config, 'mail'>, log: Logger, mail: Mail): Promise<boolean> {
  if (!config.mail) return false
  try {
    await transportOf(config.mail.smtpUrl).sendMail({ from: config.mail.from, to: mail.to, subject: mail.subject, text: mail.text })
    return true
  } catch (error) {
    log.error('mail not sent', { subject: mail.subject, error: (error as Error).message })
    return false
  }
}
