import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { alarmTopic, consumersIn, functionsAlarmed } from '../support/alarm-template'
import {
  type CfnResource,
  type CfnTemplate,
  CONTEXTS,
  PROJECT_ROOT,
  resource,
  resourcesOfType,
  synth,
} from '../support/synth'

// The alarm path to a person: the topic's policy, and what docs/deploying.md states about
// alarms (and mail permissions) and how it proves the path on a real stage, read from the templates.
// Contexts other files synthesize too (test/infra/stack.test.ts's plain deploy and dev stage,
// test/infra/grant-pipeline.test.ts's stage with an SES identity): the run's synth cache makes
// each once for all of them.
const prod = synth()
const dev = synth(CONTEXTS.dev)
const mailing = synth(CONTEXTS.mailing)

const page = () => readFileSync(join(PROJECT_ROOT, 'docs', 'deploying.md'), 'utf8')

describe('the alarm topic', () => {
  it('lets CloudWatch publish to the alarm topic, for alarms of this account and region only, and keeps the TLS rule', () => {
    // A topic policy replaces SNS's default one: enforceSSL's Deny alone would let no alarm in.
    const topicId = alarmTopic(dev.alarms)
    const policies = resourcesOfType(dev.alarms, 'AWS::SNS::TopicPolicy').filter(
      ([, p]) => JSON.stringify(p.Properties.Topics) === JSON.stringify([{ Ref: topicId }]),
    )
    expect(policies).toHaveLength(1)
    const [, policy] = policies[0] as [string, CfnResource]
    const account = { Ref: 'AWS::AccountId' }
    expect((policy.Properties.PolicyDocument as { Statement: unknown[] }).Statement).toEqual([
      {
        Sid: 'AllowPublishThroughSSLOnly',
        Effect: 'Deny',
        Principal: '*',
        Action: 'sns:Publish',
        Resource: { Ref: topicId },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      },
      {
        Sid: 'CloudWatchAlarmsPublish',
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: { Ref: topicId },
        Condition: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: {
            'aws:SourceArn': {
              'Fn::Join': [
                '',
                [
                  'arn:',
                  { Ref: 'AWS::Partition' },
                  ':cloudwatch:',
                  { Ref: 'AWS::Region' },
                  ':',
                  account,
                  ':alarm:*',
                ],
              ],
            },
          },
        },
      },
    ])
  })
})

describe('docs/deploying.md, read from the template', () => {
  /** Every statement a role may use: its own inline policies and the policies attached to it. */
  const statementsOfRole = (t: CfnTemplate, roleId: string) => {
    type Statement = { Action: string | string[]; Effect: string }
    const inline = (
      (resource(t, roleId).Properties.Policies ?? []) as {
        PolicyDocument: { Statement: Statement[] }
      }[]
    ).flatMap((p) => p.PolicyDocument.Statement)
    const attached = resourcesOfType(t, 'AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => (p.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    return [...inline, ...attached]
  }
  /** The names in backticks inside the parentheses after `lead` on the page. */
  const namedAfter = (lead: RegExp) => {
    // Markdown wraps lines anywhere: read the page as one line.
    const found = page()
      .replace(/\s+/g, ' ')
      .match(new RegExp(`${lead.source} \\(([^)]*)\\)`))
    return [...(found?.[1] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()
  }

  it('names exactly the functions whose policies allow ses:SendEmail (with an SES identity)', () => {
    const t = mailing.json
    const senders = resourcesOfType(t, 'AWS::Lambda::Function')
      .filter(([, fn]) => {
        const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]
        return statementsOfRole(t, roleId).some(
          (s) => s.Effect === 'Allow' && [s.Action].flat().includes('ses:SendEmail'),
        )
      })
      .map(([id]) => id.replace(/Function$/, ''))
      .sort()
    expect(senders).toEqual(expect.arrayContaining(['OfferMailer', 'InviteMember']))
    expect(
      namedAfter(
        /`ses:SendEmail` only with an SES identity, and only for the functions that send mail/,
      ),
    ).toEqual(senders)
  })

  it('names every consumer, and each has its errors-or-throttles alarm', () => {
    const consumers = consumersIn(prod.json)
    expect(consumers).toEqual(expect.arrayContaining(['OfferSweep', 'MailEvents', 'GrantStream']))
    expect(functionsAlarmed(prod.alarms)).toEqual(expect.arrayContaining(consumers))
    expect(namedAfter(/errors or throttles of every consumer/)).toEqual(consumers)
  })

  it("gives a set-alarm-state command that finds the alarms' nested stack and an alarm notifying the topic", () => {
    const section = page().split('\n### Proving the alarm path\n')[1]?.split('\n## ')[0] ?? ''
    const prefixes = [...section.matchAll(/starts_with\(LogicalResourceId, '(\w+)'\)/g)].map(
      (m) => m[1] as string,
    )
    expect(prefixes).toHaveLength(2)
    const [stackPrefix, alarmPrefix] = prefixes as [string, string]
    for (const s of [prod, dev]) {
      expect(Object.keys(s.json.Resources).filter((id) => id.startsWith(stackPrefix))).toEqual([
        s.alarmsHolder,
      ])
    }
    const alarms = resourcesOfType(dev.alarms, 'AWS::CloudWatch::Alarm').filter(([id]) =>
      id.startsWith(alarmPrefix),
    )
    expect(alarms).toHaveLength(1)
    const topic = [{ Ref: alarmTopic(dev.alarms) }]
    expect((alarms[0] as [string, CfnResource])[1].Properties).toMatchObject({
      AlarmActions: topic,
      OKActions: topic,
    })
    expect(section).toContain(
      'aws cloudwatch set-alarm-state --alarm-name "$alarm" --state-value ALARM',
    )
  })
})
