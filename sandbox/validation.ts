/**
 * Runs the contract's schemas and turns failures into `400 validation_error` bodies whose
 * `field` names the first problem in the contract's notation (`signers[0].email`) and whose
 * message reads as a sentence ("signers[0].email must be an e-mail address").
 */
import { z } from 'zod';

import { fieldPath } from '../contract';
import { ApiError } from './http';

/** Phrases for zod's built-in issues, written to follow the field name. */
const errorMap: z.ZodErrorMap = (issue, ctx) => {
	switch (issue.code) {
		case z.ZodIssueCode.invalid_type:
			if (issue.received === 'undefined') return { message: 'is required' };
			return { message: `must be ${article(issue.expected)}` };
		case z.ZodIssueCode.invalid_enum_value:
			return { message: `must be one of: ${issue.options.join(', ')}` };
		case z.ZodIssueCode.too_small:
			if (issue.type === 'string') {
				return {
					message:
						Number(issue.minimum) <= 1
							? 'must not be empty'
							: `must be at least ${issue.minimum} characters`,
				};
			}
			if (issue.type === 'array') return { message: `must have at least ${issue.minimum} item(s)` };
			return { message: `must be at least ${issue.minimum}` };
		case z.ZodIssueCode.too_big:
			if (issue.type === 'string')
				return { message: `must be at most ${issue.maximum} characters` };
			if (issue.type === 'array') return { message: `must have at most ${issue.maximum} items` };
			return { message: `must be at most ${issue.maximum}` };
		case z.ZodIssueCode.invalid_string:
			return { message: 'has an invalid format' };
		case z.ZodIssueCode.unrecognized_keys:
			return { message: `has unknown keys: ${issue.keys.join(', ')}` };
		default:
			return { message: ctx.defaultError.charAt(0).toLowerCase() + ctx.defaultError.slice(1) };
	}
};

function article(expected: string): string {
	if (expected === 'integer') return 'an integer';
	if (expected === 'object') return 'an object';
	if (expected === 'array') return 'an array';
	return `a ${expected}`;
}

/**
 * Validates `input`; `root` names the whole value when it is itself wrong (e.g. a body that is
 * an array instead of an object).
 */
export function validate<S extends z.ZodTypeAny>(
	schema: S,
	input: unknown,
	root: string,
): z.output<S> {
	const result = schema.safeParse(input, { errorMap });
	if (result.success) return result.data;
	const details = result.error.issues.map((issue) => {
		const field = fieldPath(issue.path) || root;
		return { field, message: `${field} ${issue.message}` };
	});
	const first = details[0];
	throw new ApiError(400, 'validation_error', first.message, first.field, details);
}

/** Bodies must be JSON objects; anything else is a validation error on `body`. */
export function validateBody<S extends z.ZodTypeAny>(schema: S, body: unknown): z.output<S> {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		throw new ApiError(400, 'validation_error', 'body must be a JSON object', 'body');
	}
	return validate(schema, body, 'body');
}

export function validateQuery<S extends z.ZodTypeAny>(schema: S, query: unknown): z.output<S> {
	return validate(schema, query, 'query');
}
