/** The transport: every request the package makes, split by job (see each file's header). */
export { apiRequest, deriveIdempotencyKey, recordOf, sendChecked, serviceClient } from './request';
export type { ApiContext, ApiRequestOptions, ServiceClient } from './request';
export { isNotFound, ServiceBehaviourError, toNodeError } from './errors';
export { CREDENTIAL_TYPE, ServiceOrigin } from './service';
export { apiFindRecord, apiSweepRecords, pageQuery, walkPages } from './pageWalk';
export type { WalkResult } from './pageWalk';
export { extractRecords, isObject, listPagingFor, readListPaging } from './listRecords';
export type { PageRequest } from './listRecords';
export { apiRequestPage } from './searchPages';
export {
	fileNameFromDisposition,
	headerValue,
	shownInput,
	shownText,
	withoutHeaders,
} from './text';
