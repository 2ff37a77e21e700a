import { appendFileSync } from 'node:fs'
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2'
import type { MailConfig } from '../config'

/**
 * The service's own e-mail: what Cognito does not send for us (it only mails its own kinds of
 * messages: invitations, codes). One interface, built from the configuration (config.ts's
 * `mail`) by the routes that send (lazyMailer), so every sender (the member use cases today, recipients' offer mail later) goes
 * through the same piece:
 *
 * - in AWS, Amazon SES (SESv2 SendEmail) from the stage's SES identity (`-c sesFromEmail=...`,
 *   the one the user pool sends through); the stack sets MAIL_FROM and grants ses:SendEmail on
 *   that identity only to the functions whose route says `mail: true`;
 * - with no SES identity configured (the default deploy: the pool uses Cognito's own sender,
 *   which cannot send arbitrary mail), nothing is sent: `send` answers `no_sender` and the caller
 *   decides (the member use cases log it and go on);
 * - locally (npm start, tests), MAIL_SINK_FILE: each message is appended to the same mail sink as
 *   the Cognito emulator's (local/mail-sink.ts reads it, `/_local/mail` shows it).
 */
export type OutgoingMail = {
  to: string
  subject: string
  /** The plain-text part: always, for clients that show no HTML (and for the local sink). */
  text: string
  html?: string
  /**
   * SES message tags (EmailTags): they come back on the configuration set's events (bounce,
   * complaint) as `mail.tags`, which is how an event finds its grant. Values: letters, digits, `_-.@`.
   */
  tags?: Record<string, string>
}

/** `sent`: handed to the transport. `no_sender`: this deployment has no sender; nothing sent. */
export type MailOutcome = 'sent' | 'no_sender'

export interface Mailer {
  /** Throws the transport's error (SES throttling, a rejected address): the caller decides. */
  send(mail: OutgoingMail, options?: { signal?: AbortSignal | undefined }): Promise<MailOutcome>
}

/** Amazon SES (API v2). One client per mailer, i.e. per process. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly from: string,
    /** The configuration set whose event destination publishes bounces and complaints. */
    private readonly configurationSetName?: string,
  ) {}

  async send(mail: OutgoingMail, { signal }: { signal?: AbortSignal | undefined } = {}) {
    await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [mail.to] },
        ...(this.configurationSetName === undefined
          ? {}
          : { ConfigurationSetName: this.configurationSetName }),
        ...(mail.tags === undefined
          ? {}
          : { EmailTags: Object.entries(mail.tags).map(([Name, Value]) => ({ Name, Value })) }),
        Content: {
          Simple: {
            Subject: { Data: mail.subject, Charset: 'UTF-8' },
            Body: {
              Text: { Data: mail.text, Charset: 'UTF-8' },
              ...(mail.html === undefined ? {} : { Html: { Data: mail.html, Charset: 'UTF-8' } }),
            },
          },
        },
      }),
      { abortSignal: signal },
    )
    return 'sent' as const
  }
}

/** No sender configured: says so, sends nothing. */
export class NoSenderMailer implements Mailer {
  async send() {
    return 'no_sender' as const
  }
}

/**
 * Appends each message to a JSON-lines file, in the mail sink's shape (`to`, `subject`, `text`,
 * `html` when there is one, `sentAt`: local/mail-sink.ts's Mail). Local runs only: the stack never sets MAIL_SINK_FILE.
 */
export class MailSinkMailer implements Mailer {
  constructor(
    private readonly file: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async send(mail: OutgoingMail) {
    const line = {
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html === undefined ? {} : { html: mail.html }),
      sentAt: this.now().toISOString(),
    }
    appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 })
    return 'sent' as const
  }
}

export const createMailer = (config: MailConfig): Mailer => {
  if (config.sinkFile !== undefined) return new MailSinkMailer(config.sinkFile)
  if (config.from !== undefined) {
    return new SesMailer(
      new SESv2Client(config.sesRegion === undefined ? {} : { region: config.sesRegion }),
      config.from,
    )
  }
  return new NoSenderMailer()
}

/**
 * A mailer made on first use from `config` and kept (a warm Lambda reuses its client). Lazy like
 * the identity provider: the local server builds every route whether or not it sends mail.
 */
export const lazyMailer = (config: MailConfig) => {
  let mailer: Mailer | undefined
  return () => {
    mailer ??= createMailer(config)
    return mailer
  }
}
