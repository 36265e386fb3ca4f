/**
 * The two ways a self-hoster gets a community package into n8n's nodes folder
 * (N8N_USER_FOLDER/.n8n/nodes; /home/node/.n8n/nodes in the official Docker image), from an npm
 * registry, for e2e/install.e2e.test.ts. n8n loads every `n8n-nodes-*` folder of
 * `<nodes folder>/node_modules` at start (n8n-core's scanDirectoryForPackages).
 *
 * - `manual`: the manual install n8n documents for Docker and queue mode
 *   (docs.n8n.io, Community nodes > Manual installation): `npm install <package>` in the nodes
 *   folder. npm (7 and later) also installs the package's peer dependencies (n8n-workflow).
 * - `installer`: what n8n's Community Nodes installer does, step by step, as n8n's source has it
 *   in n8n-io/n8n packages/cli/src/modules/community-packages/community-packages.service.ts,
 *   `downloadPackage` (read in the compiled n8n 2.41.1 and 1.123.81 of the pinned hosts: the same
 *   steps and npm flags in both; 2.41 passes the flags through npm-utils.ts `executeNpmCommand`).
 *   The installer itself cannot be pointed at a local registry: n8n answers a custom registry
 *   with "Your license does not allow for feat:communityNodes:customRegistry".
 *
 * Uninstalling: `manual` runs `npm uninstall`; `installer` does what n8n's removal does on disk
 * (`removeNpmPackage`: removes the package folder; 2.41 also removes its entry in the nodes
 * folder's package.json, 1.123 leaves it; n8n loads what is in node_modules either way).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import type { LocalRegistry } from './registry';
import { runNpmOrFail } from './registry';

export type InstallPath = 'manual' | 'installer';

/** What n8n writes as the nodes folder's package.json before its first install. */
const NODES_FOLDER_MANIFEST = {
	name: 'installed-nodes',
	private: true,
	dependencies: {} as Record<string, string>,
};

/** The npm flags of n8n's `npm install` inside the unpacked package (n8n 2.41.1 and 1.123.x). */
export const INSTALLER_NPM_INSTALL_FLAGS = [
	'--audit=false',
	'--fund=false',
	'--bin-links=false',
	'--install-strategy=shallow',
	'--ignore-scripts=true',
	'--package-lock=false',
];

function readManifest(file: string): Record<string, any> {
	return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, any>;
}

/** `npm install <name>` in the nodes folder, from the registry (n8n's documented manual install). */
async function installManually(
	nodesFolder: string,
	registry: LocalRegistry,
	name: string,
	binDir?: string,
): Promise<void> {
	fs.mkdirSync(nodesFolder, { recursive: true });
	await runNpmOrFail(['install', name, `--registry=${registry.url}`], {
		cwd: nodesFolder,
		env: registry.env(binDir),
	});
}

/**
 * n8n's installer: `npm pack name@version` in the nodes folder, unpack into
 * node_modules/<name>, drop dev, peer and optional dependencies from its package.json, then
 * `npm install` there with INSTALLER_NPM_INSTALL_FLAGS, then record the version in the nodes
 * folder's package.json and delete the tarball.
 */
async function installLikeN8n(
	nodesFolder: string,
	registry: LocalRegistry,
	name: string,
	version: string,
	binDir?: string,
): Promise<void> {
	const env = registry.env(binDir);
	fs.mkdirSync(nodesFolder, { recursive: true });
	const nodesManifest = path.join(nodesFolder, 'package.json');
	if (!fs.existsSync(nodesManifest))
		fs.writeFileSync(nodesManifest, JSON.stringify(NODES_FOLDER_MANIFEST, null, 2));
	const packageDir = path.join(nodesFolder, 'node_modules', name);
	fs.rmSync(packageDir, { recursive: true, force: true });
	fs.mkdirSync(packageDir, { recursive: true });
	const packed = await runNpmOrFail(
		['pack', `${name}@${version}`, '--quiet', `--registry=${registry.url}`],
		{ cwd: nodesFolder, env },
	);
	const tarball = packed.stdout.trim();
	try {
		execFileSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
			cwd: nodesFolder,
		});
		const manifestFile = path.join(packageDir, 'package.json');
		const manifest = readManifest(manifestFile);
		for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
			delete manifest[field];
		fs.writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
		await runNpmOrFail(['install', ...INSTALLER_NPM_INSTALL_FLAGS, `--registry=${registry.url}`], {
			cwd: packageDir,
			env,
		});
		const nodes = readManifest(nodesManifest);
		nodes.dependencies = { ...nodes.dependencies, [name]: manifest.version };
		fs.writeFileSync(nodesManifest, JSON.stringify(nodes, null, 2));
	} finally {
		fs.rmSync(path.join(nodesFolder, tarball), { force: true });
	}
}

export async function installPackage(
	how: InstallPath,
	options: {
		nodesFolder: string;
		registry: LocalRegistry;
		name: string;
		version: string;
		binDir?: string;
	},
): Promise<void> {
	if (how === 'manual')
		await installManually(options.nodesFolder, options.registry, options.name, options.binDir);
	else
		await installLikeN8n(
			options.nodesFolder,
			options.registry,
			options.name,
			options.version,
			options.binDir,
		);
}

export async function uninstallPackage(
	how: InstallPath,
	options: { nodesFolder: string; registry: LocalRegistry; name: string; binDir?: string },
): Promise<void> {
	if (how === 'manual') {
		await runNpmOrFail(['uninstall', options.name, `--registry=${options.registry.url}`], {
			cwd: options.nodesFolder,
			env: options.registry.env(options.binDir),
		});
		return;
	}
	fs.rmSync(path.join(options.nodesFolder, 'node_modules', options.name), {
		recursive: true,
		force: true,
	});
	const nodesManifest = path.join(options.nodesFolder, 'package.json');
	const nodes = readManifest(nodesManifest);
	delete nodes.dependencies?.[options.name];
	fs.writeFileSync(nodesManifest, JSON.stringify(nodes, null, 2));
}
