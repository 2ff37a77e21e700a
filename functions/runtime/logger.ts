import { Logger } from '@aws-lambda-powertools/logger'

/**
 * One logger per process. Service name and level come from POWERTOOLS_SERVICE_NAME and
 * POWERTOOLS_LOG_LEVEL, which the stack sets. Nothing logged here may contain a request header
 * or body: the API key travels in a header.
 */
export const logger = new Logger({ serviceName: 'virtual-share-grants' })
