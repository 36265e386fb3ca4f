#!/usr/bin/env bash
# Makes a release: `npm run release -- <patch|minor|major|X.Y.Z>` (see CONTRIBUTING.md).
#
# On a clean main that matches the remote's main: runs the full test suite, bumps the version
# (`npm version`: package.json and package-lock.json), moves CHANGELOG.md's Unreleased notes to
# the new version, commits "Release vX.Y.Z", tags vX.Y.Z and pushes both. The tag starts
# .github/workflows/publish.yml, which tests again and publishes to npm with provenance; nothing
# is published from this machine.
#
# Giving the version package.json already has (the first release, 0.1.0) tags it as it is: its
# CHANGELOG section must exist and Unreleased must be empty.
#
# Environment: RELEASE_REMOTE (default origin), RELEASE_BRANCH (default main),
# RELEASE_TEST_COMMAND (default `npm test`).
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "release: $*" >&2
	exit 1
}

bump=${1:-}
remote=${RELEASE_REMOTE:-origin}
branch=${RELEASE_BRANCH:-main}
semver='^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
case "$bump" in
patch | minor | major) ;;
*) [[ "$bump" =~ $semver ]] || die "usage: npm run release -- <patch|minor|major|X.Y.Z>" ;;
esac

[ "$(git symbolic-ref --quiet --short HEAD || true)" = "$branch" ] || die "releases are made from $branch"
[ -z "$(git status --porcelain)" ] || die "the working tree is not clean: commit or stash first"
git fetch --quiet "$remote" "$branch" --tags || die "cannot fetch $remote"
[ "$(git rev-parse HEAD)" = "$(git rev-parse "$remote/$branch")" ] || die "$branch is not the same commit as $remote/$branch: pull or push first"

current=$(node -p "require('./package.json').version")
changelog() { npx --no-install ts-node --transpile-only scripts/changelog.ts "$@"; }
if [ "$bump" = "$current" ]; then
	changelog check "$current" || die "add the $current notes to CHANGELOG.md first"
	sed -n '/^## \[Unreleased\]/,/^## \[/p' CHANGELOG.md | grep -q '^[-#] *[^#[]' && die "CHANGELOG.md has Unreleased notes: move them under [$current] first"
fi
if git rev-parse --quiet --verify "refs/tags/v$bump" >/dev/null; then die "tag v$bump exists"; fi

echo "release: running ${RELEASE_TEST_COMMAND:-npm test}"
bash -c "${RELEASE_TEST_COMMAND:-npm test}" || die "tests failed: nothing was changed"

if [ "$bump" = "$current" ]; then
	version=$current
else
	version=$(npm version "$bump" --no-git-tag-version --ignore-scripts)
	version=${version#v}
	git rev-parse --quiet --verify "refs/tags/v$version" >/dev/null && { git checkout -- package.json package-lock.json; die "tag v$version exists"; }
	changelog release "$version" || { git checkout -- package.json package-lock.json; die "CHANGELOG.md: add notes under [Unreleased] first"; }
	git commit --quiet -m "Release v$version" -- package.json package-lock.json CHANGELOG.md
fi
git tag -a "v$version" -m "v$version"
git push --atomic "$remote" "HEAD:refs/heads/$branch" "refs/tags/v$version"
echo "release: pushed v$version; .github/workflows/publish.yml publishes it to npm"
