/** The machine a run happened on, for the results file and the README. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { N8nHost } from '../../e2e/harness/n8n';

export interface MachineInfo {
	nproc: number;
	cpuModel: string;
	memoryGiB: number;
	os: string;
	benchNode: string;
	n8nNode: string;
	n8nVersion: string;
	loadAverageAtStart: number[];
}

export function machineInfo(host: N8nHost): MachineInfo {
	let n8nNode = 'unknown';
	try {
		n8nNode = execFileSync(host.node, ['--version'], { encoding: 'utf8' }).trim();
	} catch {
		// reported as unknown
	}
	let n8nVersion = 'unknown';
	try {
		n8nVersion = (
			JSON.parse(
				fs.readFileSync(path.join(host.dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
			) as { version: string }
		).version;
	} catch {
		// reported as unknown
	}
	return {
		nproc: os.availableParallelism(),
		cpuModel: os.cpus()[0]?.model?.trim() ?? 'unknown',
		memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
		os: `${os.type()} ${os.release()} ${os.arch()}`,
		benchNode: process.version,
		n8nNode,
		n8nVersion,
		loadAverageAtStart: os.loadavg().map((value) => Math.round(value * 100) / 100),
	};
}

export function machineLine(machine: MachineInfo): string {
	return `${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memoryGiB} GiB RAM, ${machine.os}; n8n ${machine.n8nVersion} on Node ${machine.n8nNode}; bench and sandbox on Node ${machine.benchNode}; load average at start ${machine.loadAverageAtStart.join(' / ')}`;
}
