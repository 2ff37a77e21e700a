import type { Runtime } from '../composition'
import type { RouteId } from '../routes'

/**
 * A route over its deps: the route's module (http/routes/) and the builder of what it needs
 * (wiring/*.deps.ts), each loaded on the route's first request, composed over a runtime.
 */
const wired =
  <D, H>(route: () => Promise<(deps: D) => H>, deps: () => Promise<(runtime: Runtime) => D>) =>
  async () => {
    const [make, build] = await Promise.all([route(), deps()])
    return (runtime: Runtime) => make(build(runtime))
  }

/** What every webhook endpoint route runs on (one builder for the ten). */
const webhooks = async () => (await import('./webhooks.deps')).webhooksDeps
/** The two value routes of a program (issue 32): one module, one builder. */
const valueRoutes = () => import('../http/routes/manage/program-values.route')
const values = async () => (await import('./program-values.deps')).programValuesDeps

/**
 * Each route's handler factory, by route id: what the local server (and the bench and the tests
 * through it) builds every route from, over a runtime of its own. Lambda never loads this list:
 * each function's entry (functions/handlers/*.handler.ts, routes.ts `entry`) imports its one
 * factory, so a function's bundle carries its own route only. Locally each factory is loaded on
 * its route's first request, as Lambda loads a function at its cold start: a process (a test file,
 * `npm start`) pays for the modules of the routes it calls, not of all of them.
 */
export const ROUTE_FACTORIES = {
  GrantTokens: wired(
    async () => (await import('../http/routes/grant-tokens.route')).makeGrantTokensHandler,
    async () => (await import('./grant-tokens.deps')).grantTokensDeps,
  ),
  GetGrant: wired(
    async () => (await import('../http/routes/get-grant.route')).makeGetGrantHandler,
    async () => (await import('./get-grant.deps')).getGrantDeps,
  ),
  GetProgramByKey: wired(
    async () => (await import('../http/routes/get-program.route')).makeGetProgramHandler,
    async () => (await import('./get-program.deps')).getProgramDeps,
  ),
  ListGrantsByKey: wired(
    async () => (await import('../http/routes/list-grants.route')).makeListGrantsHandler,
    async () => (await import('./list-grants.deps')).listGrantsDeps,
  ),
  CancelGrantByKey: wired(
    async () => (await import('../http/routes/cancel-grant.route')).makeCancelGrantHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  TestTransitionByKey: wired(
    async () => (await import('../http/routes/test-transition.route')).makeTestTransitionHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  RecipientBalanceByKey: wired(
    async () =>
      (await import('../http/routes/recipient-balance.route')).makeRecipientBalanceHandler,
    async () => (await import('./integrator-life.deps')).integratorLifeDeps,
  ),
  RecipientOffer: wired(
    async () => (await import('../http/routes/recipient-offer.route')).makeRecipientOfferHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientIdentify: wired(
    async () =>
      (await import('../http/routes/recipient-identify.route')).makeRecipientIdentifyHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientAccept: wired(
    async () => (await import('../http/routes/recipient-accept.route')).makeRecipientAcceptHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientDecline: wired(
    async () =>
      (await import('../http/routes/recipient-decline.route')).makeRecipientDeclineHandler,
    async () => (await import('./recipient.deps')).recipientDeps,
  ),
  RecipientLinks: wired(
    async () => (await import('../http/routes/recipient-links.route')).makeRecipientLinksHandler,
    async () => (await import('./recipient-links.deps')).recipientLinksDeps,
  ),
  RecipientHoldingsLink: wired(
    async () =>
      (await import('../http/routes/recipient-holdings-link.route'))
        .makeRecipientHoldingsLinkHandler,
    async () => (await import('./recipient-links.deps')).recipientLinksDeps,
  ),
  RecipientHoldingsSession: wired(
    async () =>
      (await import('../http/routes/recipient-holdings-session.route'))
        .makeRecipientHoldingsSessionHandler,
    async () => (await import('./recipient-holdings.deps')).recipientHoldingsDeps,
  ),
  RecipientHoldingsSignOut: wired(
    async () =>
      (await import('../http/routes/recipient-holdings-sign-out.route'))
        .makeRecipientHoldingsSignOutHandler,
    async () => (await import('./recipient-holdings.deps')).recipientHoldingsDeps,
  ),
  RecipientHoldings: wired(
    async () =>
      (await import('../http/routes/recipient-holdings.route')).makeRecipientHoldingsHandler,
    async () => (await import('./recipient-holdings.deps')).recipientHoldingsDeps,
  ),
  NotFound: () => import('../http/routes/not-found.route').then((m) => m.makeNotFoundHandler),
  ManageMe: wired(
    async () => (await import('../http/routes/manage/me.route')).makeMeHandler,
    async () => (await import('./me.deps')).meDeps,
  ),
  ListPrograms: wired(
    async () => (await import('../http/routes/manage/programs-list.route')).makeListProgramsHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  CreateProgram: wired(
    async () =>
      (await import('../http/routes/manage/program-create.route')).makeCreateProgramHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  GetProgram: wired(
    async () => (await import('../http/routes/manage/program-get.route')).makeGetProgramHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  PauseProgram: wired(
    async () => (await import('../http/routes/manage/program-pause.route')).makePauseProgramHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  ResumeProgram: wired(
    async () =>
      (await import('../http/routes/manage/program-resume.route')).makeResumeProgramHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  CloseProgram: wired(
    async () => (await import('../http/routes/manage/program-close.route')).makeCloseProgramHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  ListKeys: wired(
    async () => (await import('../http/routes/manage/keys-list.route')).makeListKeysHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  CreateKey: wired(
    async () => (await import('../http/routes/manage/key-create.route')).makeCreateKeyHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  RollKey: wired(
    async () => (await import('../http/routes/manage/key-roll.route')).makeRollKeyHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  RevokeKey: wired(
    async () => (await import('../http/routes/manage/key-revoke.route')).makeRevokeKeyHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  ListAudit: wired(
    async () => (await import('../http/routes/manage/audit-list.route')).makeListAuditHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  SetProgramValue: wired(async () => (await valueRoutes()).makeSetProgramValueHandler, values),
  ListProgramValues: wired(async () => (await valueRoutes()).makeListProgramValuesHandler, values),
  ListMembers: wired(
    async () => (await import('../http/routes/manage/list-members.route')).makeListMembersHandler,
    async () => (await import('./members.deps')).membersDeps,
  ),
  InviteMember: wired(
    async () => (await import('../http/routes/manage/invite-member.route')).makeInviteMemberHandler,
    async () => (await import('./member-invitations.deps')).memberInvitationsDeps,
  ),
  ChangeMemberRole: wired(
    async () =>
      (await import('../http/routes/manage/change-member-role.route')).makeChangeMemberRoleHandler,
    async () => (await import('./members.deps')).membersDeps,
  ),
  RemoveMember: wired(
    async () => (await import('../http/routes/manage/remove-member.route')).makeRemoveMemberHandler,
    async () => (await import('./members.deps')).membersDeps,
  ),
  ResendInvitation: wired(
    async () =>
      (await import('../http/routes/manage/resend-invitation.route')).makeResendInvitationHandler,
    async () => (await import('./member-invitations.deps')).memberInvitationsDeps,
  ),
  ListGrants: wired(
    async () =>
      (await import('../http/routes/manage/grants-list.route')).makeManageListGrantsHandler,
    async () => (await import('./manage-grants.deps')).manageListGrantsDeps,
  ),
  SendGrant: wired(
    async () => (await import('../http/routes/manage/grants-send.route')).makeSendGrantHandler,
    async () => (await import('./manage-grants.deps')).sendGrantDeps,
  ),
  CreateGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-create.route')).makeCreateGrantBatchHandler,
    async () => (await import('./batches.deps')).createGrantBatchDeps,
  ),
  CreateGrantBatchUpload: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-upload.route'))
        .makeCreateGrantBatchUploadHandler,
    async () => (await import('./batches.deps')).batchUploadDeps,
  ),
  GetGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-get.route')).makeGetGrantBatchHandler,
    async () => (await import('./batches.deps')).getGrantBatchDeps,
  ),
  ListGrantBatches: wired(
    async () =>
      (await import('../http/routes/manage/grant-batches-list.route')).makeListGrantBatchesHandler,
    async () => (await import('./batches.deps')).listGrantBatchesDeps,
  ),
  CancelGrantBatch: wired(
    async () =>
      (await import('../http/routes/manage/grant-batch-cancel.route')).makeCancelGrantBatchHandler,
    async () => (await import('./batches.deps')).cancelGrantBatchDeps,
  ),
  ManageGetGrant: wired(
    async () => (await import('../http/routes/manage/grant-get.route')).makeManageGetGrantHandler,
    async () => (await import('./manage-grants.deps')).manageGetGrantDeps,
  ),
  ManageCancelGrant: wired(
    async () =>
      (await import('../http/routes/manage/grant-cancel.route')).makeManageCancelGrantHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ManageResendOffer: wired(
    async () =>
      (await import('../http/routes/manage/grant-resend.route')).makeManageResendOfferHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ManageCorrectEmail: wired(
    async () =>
      (await import('../http/routes/manage/grant-correct-email.route'))
        .makeManageCorrectEmailHandler,
    async () => (await import('./manage-grants.deps')).grantLifeRouteDeps,
  ),
  ProgramOfferSettings: wired(
    async () =>
      (await import('../http/routes/manage/program-offer-settings.route'))
        .makeProgramOfferSettingsHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
  ListInbox: wired(
    async () => (await import('../http/routes/manage/inbox-list.route')).makeListInboxHandler,
    async () => (await import('./manage-mail.deps')).manageMailDeps,
  ),
  OfferPreview: wired(
    async () => (await import('../http/routes/manage/offer-preview.route')).makeOfferPreviewHandler,
    async () => (await import('./manage-mail.deps')).manageMailDeps,
  ),
  ListWebhookEndpoints: wired(
    async () =>
      (await import('../http/routes/manage/webhook-endpoints-list.route'))
        .makeListWebhookEndpointsHandler,
    webhooks,
  ),
  CreateWebhookEndpoint: wired(
    async () =>
      (await import('../http/routes/manage/webhook-endpoint-create.route'))
        .makeCreateWebhookEndpointHandler,
    webhooks,
  ),
  GetWebhookEndpoint: wired(
    async () =>
      (await import('../http/routes/manage/webhook-endpoint-get.route'))
        .makeGetWebhookEndpointHandler,
    webhooks,
  ),
  UpdateWebhookEndpoint: wired(
    async () =>
      (await import('../http/routes/manage/webhook-endpoint-update.route'))
        .makeUpdateWebhookEndpointHandler,
    webhooks,
  ),
  DeleteWebhookEndpoint: wired(
    async () =>
      (await import('../http/routes/manage/webhook-endpoint-delete.route'))
        .makeDeleteWebhookEndpointHandler,
    webhooks,
  ),
  RotateWebhookSecret: wired(
    async () =>
      (await import('../http/routes/manage/webhook-secret-rotate.route'))
        .makeRotateWebhookSecretHandler,
    webhooks,
  ),
  SendTestWebhook: wired(
    async () =>
      (await import('../http/routes/manage/webhook-test-send.route')).makeSendTestWebhookHandler,
    webhooks,
  ),
  ListWebhookMessages: wired(
    async () =>
      (await import('../http/routes/manage/webhook-messages-list.route'))
        .makeListWebhookMessagesHandler,
    webhooks,
  ),
  ReplayWebhookMessage: wired(
    async () =>
      (await import('../http/routes/manage/webhook-message-replay.route'))
        .makeReplayWebhookMessageHandler,
    webhooks,
  ),
  ReplayWebhookMessages: wired(
    async () =>
      (await import('../http/routes/manage/webhook-messages-replay.route'))
        .makeReplayWebhookMessagesHandler,
    webhooks,
  ),
  ListProgramHolders: wired(
    async () =>
      (await import('../http/routes/manage/program-holders.route')).makeProgramHoldersHandler,
    async () => (await import('./program-figures.deps')).programFiguresDeps,
  ),
  GetProgramDaily: wired(
    async () => (await import('../http/routes/manage/program-daily.route')).makeProgramDailyHandler,
    async () => (await import('./program-figures.deps')).programFiguresDeps,
  ),
  ListRequests: wired(
    async () => (await import('../http/routes/manage/requests-list.route')).makeListRequestsHandler,
    async () => (await import('./request-log.deps')).requestLogDeps,
  ),
  GetRequest: wired(
    async () => (await import('../http/routes/manage/request-get.route')).makeGetRequestHandler,
    async () => (await import('./request-log.deps')).requestLogDeps,
  ),
  UpdateKey: wired(
    async () => (await import('../http/routes/manage/key-update.route')).makeUpdateKeyHandler,
    async () => (await import('./admin.deps')).adminDeps,
  ),
} as const

// Every route has a factory over a runtime (checked apart, so it does not steer `wired`'s inference).
ROUTE_FACTORIES satisfies Record<RouteId, () => Promise<(runtime: Runtime) => unknown>>
