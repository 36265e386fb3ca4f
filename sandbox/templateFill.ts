/**
 * A document made from a template (docs/api-contract.md, "Template fields"): the template's fields
 * filled with the values given by key, and its roles filled with the signers given by role name
 * or in order. What the template refuses is a `422 template_mismatch` naming every value at fault.
 */
import type { DocumentField, SignerInput, TemplateRecord } from '../contract';
import { fieldValueProblem } from '../nodes/shared/fieldValues';
import { ApiError } from './http';

type Problem = { field: string; message: string };
type GivenValue = string | number | boolean | null;

function mismatch(problems: Problem[]): ApiError {
	return new ApiError(422, 'template_mismatch', problems[0].message, problems[0].field, problems);
}

function fieldProblems(
	template: TemplateRecord | undefined,
	given: Record<string, GivenValue>,
): Problem[] {
	const entries = Object.entries(given).filter(([, value]) => value !== null);
	if (!template) {
		return entries.length > 0
			? [{ field: 'fields', message: 'fields needs template_id: only a template has fields' }]
			: [];
	}
	const byKey = new Map(template.fields.map((field) => [field.key, field]));
	const problems: Problem[] = [];
	for (const [key, value] of entries) {
		const field = byKey.get(key);
		const path = `fields.${key}`;
		if (!field) {
			problems.push({
				field: path,
				message: `${path} is not a field of the template "${template.name}"`,
			});
			continue;
		}
		const problem = fieldValueProblem(field.type, value, field.options);
		if (problem) problems.push({ field: path, message: `${path} (${field.label}) ${problem}` });
	}
	for (const field of template.fields) {
		const missing = given[field.key] === undefined || given[field.key] === null;
		// A field a role fills at signing time is not the creator's to give.
		if (field.required && field.default === null && field.role === null && missing) {
			problems.push({
				field: `fields.${field.key}`,
				message: `fields.${field.key} (${field.label}) is required`,
			});
		}
	}
	return problems;
}

function roleProblems(template: TemplateRecord | undefined, signers: SignerInput[]): Problem[] {
	const known = new Set(template?.signer_roles.map((role) => role.role.toLowerCase()) ?? []);
	const seen = new Set<string>();
	const problems: Problem[] = [];
	signers.forEach((signer, index) => {
		if (signer.role === undefined) return;
		const path = `signers[${index}].role`;
		const key = signer.role.toLowerCase();
		if (!template) {
			problems.push({
				field: path,
				message: `${path} needs template_id: only a template has roles`,
			});
		} else if (!known.has(key)) {
			const roles = template.signer_roles.map((role) => role.role).join(', ') || 'none';
			problems.push({
				field: path,
				message: `${path} names "${signer.role}", which is not a role of the template "${template.name}" (roles: ${roles})`,
			});
		} else if (seen.has(key)) {
			problems.push({ field: path, message: `${path} names "${signer.role}" a second time` });
		}
		seen.add(key);
	});
	return problems;
}

/** Checks the values and roles of a new document against its template; 422 naming every problem. */
export function checkTemplateFit(
	template: TemplateRecord | undefined,
	fields: Record<string, GivenValue> | undefined,
	signers: SignerInput[] | undefined,
): void {
	const problems = [
		...fieldProblems(template, fields ?? {}),
		...roleProblems(template, signers ?? []),
	];
	if (problems.length > 0) throw mismatch(problems);
}

/** The template's fields with the values given, else their defaults (checked by checkTemplateFit). */
export function filledFields(
	template: TemplateRecord | undefined,
	given: Record<string, GivenValue> | undefined,
): DocumentField[] {
	return (template?.fields ?? []).map((field) => ({
		key: field.key,
		label: field.label,
		type: field.type,
		value: given?.[field.key] ?? field.default,
	}));
}

/**
 * The signers of a document made from a template. A signer naming a role takes that role (and a
 * pre-filled role's person steps aside); the other given signers fill the remaining open roles in
 * order, each taking its role's signing order unless it gives its own (signers beyond the roles
 * keep no role and no order). A pre-filled role nobody took signs as its person, unless that
 * e-mail is already among the signers. Without given signers the template decides alone, which
 * works only when every role names a person. Roles were checked by checkTemplateFit.
 */
export function templateSigners(
	given: SignerInput[] | undefined,
	template: TemplateRecord | undefined,
): SignerInput[] | undefined {
	if (!template) return given;
	const roles = [...template.signer_roles].sort((a, b) => a.order - b.order);
	const roleNamed = (name: string) =>
		roles.find((role) => role.role.toLowerCase() === name.toLowerCase())!;
	const claimed = new Set(
		(given ?? []).flatMap((signer) =>
			signer.role === undefined ? [] : [roleNamed(signer.role).role],
		),
	);
	const prefilled = (role: (typeof roles)[number]) => Boolean(role.email && role.name);
	const open = roles.filter((role) => !prefilled(role) && !claimed.has(role.role));
	if (!given && open.length > 0) return undefined;
	let nextOpen = 0;
	const filled = (given ?? []).map((signer) => {
		const role = signer.role === undefined ? open[nextOpen++] : roleNamed(signer.role);
		return { ...signer, role: role?.role, order: signer.order ?? role?.order ?? null };
	});
	const emails = new Set(filled.map((signer) => signer.email.toLowerCase()));
	const fixedSigners = roles
		.filter(
			(role) =>
				prefilled(role) &&
				!claimed.has(role.role) &&
				!emails.has((role.email as string).toLowerCase()),
		)
		.map((role) => ({
			email: role.email as string,
			name: role.name as string,
			order: role.order,
			role: role.role,
		}));
	return [...filled, ...fixedSigners];
}
