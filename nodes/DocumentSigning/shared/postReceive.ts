import type { IDataObject, IExecuteSingleFunctions, IN8nHttpFullResponse, INodeExecutionData, PostReceiveAction } from 'n8n-workflow';

/** Output steps shared by operations: simplifying records, delete results and file downloads. */

/** Keeps the listed fields of each record when Simplify is on; unknown fields pass through when off. */
export function simplifyTo(fields: string[]): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
		if (!(this.getNodeParameter('simplify', true) as boolean)) return items;
		return items.map((item) => {
			const simplified: IDataObject = {};
			for (const field of fields) {
				if (item.json[field] !== undefined) simplified[field] = item.json[field];
			}
			return { ...item, json: simplified };
		});
	};
}

/** A delete answers 204 with no body: say what was deleted instead. */
export function deletedResult(idParameter: string): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
		const id = this.getNodeParameter(idParameter, '', { extractValue: true }) as string;
		return [{ json: { id, deleted: true } }];
	};
}

function headerOf(response: IN8nHttpFullResponse, name: string): string | undefined {
	for (const [key, value] of Object.entries(response.headers ?? {})) {
		if (key.toLowerCase() === name) return String(Array.isArray(value) ? value[0] : value);
	}
	return undefined;
}

/** `attachment; filename="a.csv"` or `filename*=UTF-8''a%20b.csv` → the file name. */
export function fileNameFromDisposition(disposition: string | undefined): string | undefined {
	if (!disposition) return undefined;
	const extended = /filename\*\s*=\s*(?:UTF-8'')?([^;]+)/i.exec(disposition);
	if (extended) {
		try {
			return decodeURIComponent(extended[1].trim().replace(/^"|"$/g, ''));
		} catch {
			// fall through to the plain form
		}
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(disposition);
	return plain ? (plain[2] ?? plain[1]).trim() : undefined;
}

/** The downloaded file as binary data, named and typed as the service said. */
export function binaryFromResponse(binaryPropertyParameter: string, fallbackName: string): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, _items: INodeExecutionData[], response: IN8nHttpFullResponse) {
		const binaryProperty = this.getNodeParameter(binaryPropertyParameter, 'data') as string;
		const body = response.body as unknown;
		const buffer = Buffer.isBuffer(body)
			? body
			: body instanceof ArrayBuffer
				? Buffer.from(body)
				: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? ''));
		const mimeType = (headerOf(response, 'content-type') ?? 'application/octet-stream').split(';')[0].trim();
		const fileName = fileNameFromDisposition(headerOf(response, 'content-disposition')) ?? fallbackName;
		const binary = await this.helpers.prepareBinaryData(buffer, fileName, mimeType);
		return [{ json: { fileName, mimeType, fileSize: buffer.length }, binary: { [binaryProperty]: binary } }];
	};
}
