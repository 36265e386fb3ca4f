// n8n-core logs every node error through its own logger; tests assert errors, they need no log.
process.env.N8N_LOG_LEVEL = 'silent';

// n8n-workflow runs regular expressions (a resource locator's validation, a display condition) in
// a vm with a 250 ms wall-clock limit. A machine busy enough to deschedule a test for that long
// fails it with "Regular expression execution timed out" on a linear pattern. Tests run n8n's and
// the node's patterns natively; none of them asserts that limit.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- set before any suite loads n8n-workflow
const { setSafeRegexEngine } = require('n8n-workflow') as typeof import('n8n-workflow');
setSafeRegexEngine({
	exec: (pattern, input, flags) => new RegExp(pattern, flags).exec(input),
	test: (pattern, input, flags) => new RegExp(pattern, flags).test(input),
	replace: (pattern, input, flags, replacement) =>
		input.replace(new RegExp(pattern, flags), replacement),
	matchAll: (pattern, input, flags) =>
		Array.from(
			input.matchAll(new RegExp(pattern, flags?.includes('g') ? flags : `${flags ?? ''}g`)),
		),
	split: (pattern, input, flags) => input.split(new RegExp(pattern, flags)),
});
