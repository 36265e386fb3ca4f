/**
 * Refuses `npm publish` unless it runs in the `publish` job of .github/workflows/publish.yml on
 * the tag of package.json's version, with the job's OIDC token at hand (trusted publishing and the
 * provenance statement n8n requires). Run first in `prepublishOnly`, so a publish from anywhere
 * else stops before packing or uploading anything — the same job as n8n-node's `prerelease`
 * (which only asks for RELEASE_MODE), tied to the one job that publishes. That job's other
 * conditions (the `npm` environment, the tagged commit on `main`, no test run beside it) are
 * properties of the workflow file, checked by test/release/publishWorkflow.test.ts.
 *
 * `prepublishOnly` runs only with scripts on (.npmrc turns them off; publish.yml passes
 * --ignore-scripts=false). Without scripts, and for a tarball, package.json's
 * `publishConfig.provenance` stops the upload instead: npm cannot make a provenance statement
 * outside a supported CI.
 */
import { readFileSync } from 'fs';
import path from 'path';

export const PUBLISH_WORKFLOW = '.github/workflows/publish.yml';
/** The id of the one job in PUBLISH_WORKFLOW that may publish (GitHub's GITHUB_JOB). */
export const PUBLISH_JOB = 'publish';

/** Why publishing is refused in `env`, or null when this is the publish job on `v<version>`. */
export function publishRefusal(env: NodeJS.ProcessEnv, version: string): string | null {
	const how = `Packages are published only by ${PUBLISH_WORKFLOW} on a version tag, with provenance: run \`npm run release -- <patch|minor|major>\` to tag a release.`;
	if (env.GITHUB_ACTIONS !== 'true')
		return `publish refused: not running in GitHub Actions. ${how}`;
	const expected = `${env.GITHUB_REPOSITORY}/${PUBLISH_WORKFLOW}@refs/tags/v${version}`;
	if (env.GITHUB_WORKFLOW_REF !== expected) {
		return `publish refused: the workflow is ${env.GITHUB_WORKFLOW_REF ?? '(unknown)'}, not ${expected}. ${how}`;
	}
	if (env.GITHUB_JOB !== PUBLISH_JOB) {
		return `publish refused: the job is ${env.GITHUB_JOB ?? '(unknown)'}, not ${PUBLISH_JOB}. ${how}`;
	}
	if (!env.ACTIONS_ID_TOKEN_REQUEST_URL) {
		return `publish refused: the job has no OIDC token (permissions: id-token: write) for trusted publishing and provenance. ${how}`;
	}
	return null;
}

if (require.main === module) {
	const version = JSON.parse(readFileSync(path.resolve(__dirname, '../package.json'), 'utf8'))
		.version as string;
	const refusal = publishRefusal(process.env, version);
	if (refusal !== null) {
		process.stderr.write(`${refusal}\n`);
		process.exit(1);
	}
}
