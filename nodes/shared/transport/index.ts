/** The transport: every request the package makes, split by job (see each file's header). */
export {
	apiRequest,
	deriveIdempotencyKey,
	recordOf,
	runClient,
	sendChecked,
	serviceClient,
} from './request';
export type { ApiContext, ApiRequestOptions, ServiceClient } from './request';
export { HttpStatusError, isNotFound, ServiceBehaviourError, toNodeError } from './errors';
export { RETRY_POLICY, sendWithRetries } from './retry';
export { CREDENTIAL_TYPE, ServiceOrigin } from './service';
export { apiFindRecord, apiSweepRecords, MAX_PAGES, walkPages } from './pageWalk';
export { apiRequestPage } from './searchPages';
export { headerValue, fileNameFromDisposition } from './headers';
