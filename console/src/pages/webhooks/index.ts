// The two webhooks pages load as one chunk: the list leads to an endpoint, and they share most code.
export { WebhookEndpointPage } from './endpoint-page'
export { WebhooksPage } from './endpoints-page'
