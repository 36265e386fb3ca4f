/**
 * What each team role may do through the API (docs/api-contract.md, "Team member"): viewers
 * read; members also write documents, signing requests and templates; admins and the owner also
 * manage the team and webhooks.
 */
import type { TeamMemberRole } from '../contract';

export type Permission = 'read' | 'write_content' | 'manage_account';

const GRANTS: Record<TeamMemberRole, ReadonlySet<Permission>> = {
	owner: new Set(['read', 'write_content', 'manage_account']),
	admin: new Set(['read', 'write_content', 'manage_account']),
	member: new Set(['read', 'write_content']),
	viewer: new Set(['read']),
};

export function allowed(role: TeamMemberRole, permission: Permission): boolean {
	return GRANTS[role].has(permission);
}
