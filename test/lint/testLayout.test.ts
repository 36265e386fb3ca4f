/**
 * Tests laid out like the code (CONTRIBUTING.md, "Test layout"): a unit test under test/nodes,
 * test/credentials or test/e2e is named after the module it tests at the mirrored path; a suite
 * about a behaviour across modules sits in test/behaviour and is listed below; no two test files
 * share a name; helpers live in test/helpers only. And every TypeScript file is in tsconfig's
 * program, so `npm run typecheck` covers reliability/, bench/, e2e/ and the tests as well (their
 * jest configs compile without type diagnostics).
 */
import { existsSync, readdirSync } from 'fs';
import path from 'path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');

/** Suites about a behaviour across modules rather than one module (test/behaviour). */
const BEHAVIOUR_SUITES = [
	'answerLimits.test.ts',
	'badInput.test.ts',
	'badServer.test.ts',
	'builtInPropertyNames.test.ts',
	'declineVisible.test.ts',
	'deleteAfterLostAnswer.test.ts',
	'deliveryReplays.test.ts',
	'downloadedFiles.test.ts',
	'errorsAndRetries.test.ts',
	'idChecks.test.ts',
	'keyNeverInErrors.test.ts',
	'keyStaysAtOrigin.test.ts',
	'listSearchTokens.test.ts',
	'listShapes.test.ts',
	'listShapesProperty.test.ts',
	'listWalkBudgets.test.ts',
	'load.sandbox.test.ts',
	'operations.sandbox.test.ts',
	'optionsOrder.test.ts',
	'rateLimits.test.ts',
	'requestBodies.test.ts',
	'routingEngine.test.ts',
	'signerEmails.test.ts',
	'timeLimits.test.ts',
	'toolDescription.test.ts',
	'triggerDialects.test.ts',
	'unverifiedDeliveries.test.ts',
	'webhookOwnership.test.ts',
	'webhookSecrets.test.ts',
];
/** test/<folder>/… mirrors <folder>/…: each test there is named after a module of the code. */
const MIRRORED = ['nodes', 'credentials', 'e2e'];
/** Folders of suites about one part of the package as a whole, named after what they check. */
const OTHER_SUITES = [
	'sandbox',
	'contract',
	'n8nContract',
	'package',
	'release',
	'lint',
	'workflows',
];
/** Host installs, build output and eslintConfig.test.ts's short-lived probes: not the project's files. */
const SKIPPED =
	/^(node_modules|dist|coverage|\.git|\.n8n-dev|e2e\/n8n-host[^/]*|e2e\/registry-host)$|(^|\/)lint-probe-[^/]*$/;

/** Every file under `dir` (relative to the repository root), host installs and output left out. */
function walk(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
		const relative = dir ? `${dir}/${entry.name}` : entry.name;
		if (SKIPPED.test(relative)) continue;
		if (entry.isDirectory()) out.push(...walk(relative));
		else out.push(relative);
	}
	return out;
}

const isTest = (file: string) => file.endsWith('.test.ts');
/** A test's name without its suffixes: `fields` for fields.test.ts, `load` for load.sandbox.test.ts. */
const stem = (file: string) => path.posix.basename(file).split('.')[0];
const unitTests = walk('test').filter(isTest);

test('a unit test sits in a mirrored folder, test/behaviour, or a suite folder', () => {
	const misplaced = unitTests.filter((file) => {
		const folder = file.split('/')[1];
		return ![...MIRRORED, 'behaviour', 'helpers', ...OTHER_SUITES].includes(folder);
	});
	expect(misplaced).toEqual([]);
});

test('a test in test/helpers tests the helper beside it', () => {
	const orphans = unitTests
		.filter((file) => file.startsWith('test/helpers/'))
		.filter((file) => !existsSync(path.join(root, file.replace(/\.test\.ts$/, '.ts'))));
	expect(orphans).toEqual([]);
});

test('a test under a mirrored folder is named after a module at the mirrored path', () => {
	const orphans = unitTests
		.filter((file) => MIRRORED.includes(file.split('/')[1]))
		.filter((file) => {
			const module = file.slice('test/'.length, -'.test.ts'.length);
			return !['.ts', '/index.ts'].some((ending) => existsSync(path.join(root, module + ending)));
		});
	expect(orphans).toEqual([]);
});

test('test/behaviour holds exactly the listed behaviour suites', () => {
	const found = unitTests
		.filter((file) => file.startsWith('test/behaviour/'))
		.map((file) => file.slice('test/behaviour/'.length))
		.sort();
	expect(found).toEqual([...BEHAVIOUR_SUITES].sort());
});

test('no two unit tests share a name, and none shares one with an e2e or reliability suite', () => {
	const byStem = new Map<string, string[]>();
	for (const file of unitTests) byStem.set(stem(file), [...(byStem.get(stem(file)) ?? []), file]);
	const repeated = [...byStem.values()].filter((files) => files.length > 1);
	const realN8nSuites = [...walk('e2e'), ...walk('reliability')].filter(isTest);
	const sharedWithRealN8n = realN8nSuites.filter((file) => byStem.has(stem(file)));
	expect({ repeated, sharedWithRealN8n }).toEqual({ repeated: [], sharedWithRealN8n: [] });
	// Real-n8n suites among themselves: a queue-mode suite may repeat the name of the e2e suite it
	// runs again in queue mode, with its own suffix; whole file names stay unique.
	const names = realN8nSuites.map((file) => path.posix.basename(file));
	expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
});

test('helpers live in test/helpers only (test/setupEnv.ts is jest config)', () => {
	const helpersElsewhere = walk('test').filter(
		(file) =>
			!isTest(file) &&
			/\.(ts|js|json)$/.test(file) &&
			!file.startsWith('test/helpers/') &&
			file !== 'test/setupEnv.ts',
	);
	expect(helpersElsewhere).toEqual([]);
});

test('every snapshot file belongs to a test beside it', () => {
	const orphanSnapshots = walk('test')
		.filter((file) => file.endsWith('.snap'))
		.filter((file) => {
			const testFile = path.posix.join(
				path.posix.dirname(path.posix.dirname(file)),
				path.posix.basename(file, '.snap'),
			);
			return !existsSync(path.join(root, testFile));
		});
	expect(orphanSnapshots).toEqual([]);
});

test('every TypeScript file of the repository is type-checked by tsconfig.json', () => {
	const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
	const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
	const checked = new Set(parsed.fileNames.map((file) => path.relative(root, file)));
	const unchecked = walk('').filter(
		(file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !checked.has(file),
	);
	expect(unchecked).toEqual([]);
	expect([...checked]).toEqual(
		expect.arrayContaining(['reliability/lib.ts', 'reliability/realN8n.reliability.test.ts']),
	);
});
