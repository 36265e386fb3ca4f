/**
 * CHANGELOG.md in the Keep a Changelog format (https://keepachangelog.com/en/1.1.0/): moves the
 * notes under `## [Unreleased]` to a new `## [X.Y.Z] - YYYY-MM-DD` section and updates the
 * comparison links at the bottom. scripts/release.sh calls it when it bumps the version.
 *
 * Usage: ts-node scripts/changelog.ts release <version> [date]    (date defaults to today, UTC)
 *        ts-node scripts/changelog.ts check <version>             (exit 1 unless [version] exists)
 */
import { readFileSync, writeFileSync } from 'fs';
import path from 'path';

const UNRELEASED = '## [Unreleased]';

function repositoryUrl(): string {
	const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
	return String(pkg.repository?.url ?? pkg.repository ?? '')
		.replace(/^git\+/, '')
		.replace(/\.git$/, '');
}

/** The changelog with the Unreleased notes released as `version`; throws when there are none. */
export function releaseChangelog(
	text: string,
	version: string,
	date: string,
	repository: string,
): string {
	const start = text.indexOf(`\n${UNRELEASED}\n`);
	if (start === -1) throw new Error(`CHANGELOG.md has no "${UNRELEASED}" section`);
	if (text.includes(`\n## [${version}]`))
		throw new Error(`CHANGELOG.md already has a section for ${version}`);
	const bodyStart = start + UNRELEASED.length + 2;
	const next = text.slice(bodyStart).search(/^## \[|^\[[^\]]+\]: /m);
	const bodyEnd = next === -1 ? text.length : bodyStart + next;
	const notes = text.slice(bodyStart, bodyEnd).trim();
	if (notes === '')
		throw new Error(`CHANGELOG.md: nothing under "${UNRELEASED}" to release as ${version}`);

	const previous = /^## \[(\d+\.\d+\.\d+[^\]]*)\]/m.exec(text.slice(bodyEnd))?.[1];
	let out = `${text.slice(0, bodyStart)}\n## [${version}] - ${date}\n\n${notes}\n\n${text.slice(bodyEnd)}`;
	out = out.replace(
		/^\[Unreleased\]: .*$/m,
		`[Unreleased]: ${repository}/compare/v${version}...HEAD`,
	);
	const link = previous
		? `[${version}]: ${repository}/compare/v${previous}...v${version}`
		: `[${version}]: ${repository}/releases/tag/v${version}`;
	out = out.replace(/^(\[Unreleased\]: .*)$/m, `$1\n${link}`);
	return out;
}

if (require.main === module) {
	const [command, version, date = new Date().toISOString().slice(0, 10)] = process.argv.slice(2);
	const file = path.join(__dirname, '..', 'CHANGELOG.md');
	const text = readFileSync(file, 'utf8');
	if (command === 'release' && version) {
		writeFileSync(file, releaseChangelog(text, version, date, repositoryUrl()));
	} else if (command === 'check' && version) {
		if (!text.includes(`\n## [${version}] - `)) {
			console.error(`CHANGELOG.md has no "## [${version}] - <date>" section`);
			process.exit(1);
		}
	} else {
		console.error('usage: changelog.ts release <version> [date] | check <version>');
		process.exit(2);
	}
}
