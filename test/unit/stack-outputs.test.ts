import type { DescribeStacksCommandOutput } from '@aws-sdk/client-cloudformation'
import { grantListIndexFromStackOutputs, tablesFromStackOutputs } from '../../cli/targets'
import fixture from '../fixtures/describe-stacks.json'

// A real DescribeStacks answer, as the SDK returns it (dates arrive as Date objects).
const recorded = fixture as unknown as DescribeStacksCommandOutput

describe('admin CLI --stack: table names from DescribeStacks', () => {
  // The recording is of a stack of an earlier release; later ones added four tables and outputs
  // (memberships and audit; timers and inbox with issue 19; webhooks with issue 21).
  const [recordedStack] = recorded.Stacks ?? []
  const current = {
    Stacks: [
      {
        ...recordedStack,
        Outputs: [
          ...(recordedStack?.Outputs ?? []),
          { OutputKey: 'MembershipsTable', OutputValue: 'VirtualShares-dev-TablesMemberships-X1' },
          { OutputKey: 'AuditTable', OutputValue: 'VirtualShares-dev-TablesAudit-X2' },
          { OutputKey: 'TimersTable', OutputValue: 'VirtualShares-dev-TablesTimers-X3' },
          { OutputKey: 'InboxTable', OutputValue: 'VirtualShares-dev-TablesInbox-X4' },
          { OutputKey: 'WebhooksTable', OutputValue: 'VirtualShares-dev-TablesWebhooks-X5' },
          { OutputKey: 'FiguresTable', OutputValue: 'VirtualShares-dev-TablesFigures-X6' },
          { OutputKey: 'RequestsTable', OutputValue: 'VirtualShares-dev-TablesRequests-X7' },
        ],
      },
    ],
  } as DescribeStacksCommandOutput

  it('reads every table name from a DescribeStacks response', () => {
    expect(tablesFromStackOutputs(current, 'VirtualShares-dev')).toEqual({
      issuers: 'VirtualShares-dev-TablesIssuers5C1F3A2B-1A2B3C4D5E6F',
      apiKeys: 'VirtualShares-dev-TablesApiKeys330F873D-7G8H9I0J1K2L',
      programs: 'VirtualShares-dev-TablesProgramsF3FA1F10-3M4N5O6P7Q8R',
      grants: 'VirtualShares-dev-TablesGrantsA53A3550-9S0T1U2V3W4X',
      memberships: 'VirtualShares-dev-TablesMemberships-X1',
      audit: 'VirtualShares-dev-TablesAudit-X2',
      timers: 'VirtualShares-dev-TablesTimers-X3',
      inbox: 'VirtualShares-dev-TablesInbox-X4',
      webhooks: 'VirtualShares-dev-TablesWebhooks-X5',
      figures: 'VirtualShares-dev-TablesFigures-X6',
      requests: 'VirtualShares-dev-TablesRequests-X7',
    })
  })

  it('tells a stack of the previous release to be deployed first', () => {
    expect(() => tablesFromStackOutputs(recorded, 'VirtualShares-dev')).toThrow(
      /no output MembershipsTable, AuditTable, TimersTable, InboxTable, WebhooksTable, FiguresTable, RequestsTable: is it a virtual-share grant stack deployed from this version\?/,
    )
  })

  it('names the outputs a stack lacks', () => {
    const [stack] = current.Stacks ?? []
    const partial = {
      Stacks: [{ ...stack, Outputs: stack?.Outputs?.filter((o) => o.OutputKey !== 'GrantsTable') }],
    }
    expect(() =>
      tablesFromStackOutputs(partial as DescribeStacksCommandOutput, 'VirtualShares-dev'),
    ).toThrow(/no output GrantsTable/)
  })

  it('lists grants from the index the stack says, byProgram for a stack from before it said', () => {
    const withIndex = (value: string) =>
      ({
        Stacks: [
          {
            ...current.Stacks?.[0],
            Outputs: [
              ...(current.Stacks?.[0]?.Outputs ?? []),
              { OutputKey: 'GrantsListIndex', OutputValue: value },
            ],
          },
        ],
      }) as DescribeStacksCommandOutput
    // The recorded stack's release had only byProgram.
    expect(grantListIndexFromStackOutputs(recorded, 'VirtualShares-dev')).toBe('byProgram')
    expect(grantListIndexFromStackOutputs(withIndex('byProgram'), 'VirtualShares-dev')).toBe(
      'byProgram',
    )
    expect(grantListIndexFromStackOutputs(withIndex('byProgramSlot'), 'VirtualShares-dev')).toBe(
      'byProgramSlot',
    )
    expect(() =>
      grantListIndexFromStackOutputs(withIndex('byWhatever'), 'VirtualShares-dev'),
    ).toThrow(
      'Stack VirtualShares-dev lists grants from index "byWhatever", which this CLI does not know: use the CLI of the release the stack was deployed from.',
    )
  })

  it('says when the stack is not there', () => {
    expect(() => tablesFromStackOutputs({ Stacks: [] }, 'VirtualShares-x')).toThrow(
      'Stack VirtualShares-x was not found.',
    )
  })
})
