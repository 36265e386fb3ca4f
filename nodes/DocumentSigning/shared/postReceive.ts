import type {
	IExecuteSingleFunctions,
	IN8nHttpFullResponse,
	INodeExecutionData,
} from 'n8n-workflow';

import { fetchDocumentFile, type DocumentFileVersion } from '../../shared/documentFiles';
import { recordOf } from '../../shared/transport';
import { mediaTypeOf } from '../../shared/fileNames';
import { fileNameFromDisposition, headerValue } from '../../shared/transport/headers';

/** An output step (n8n's postReceive): the items so far and the response to the next items. */
export type OutputStep = (
	this: IExecuteSingleFunctions,
	items: INodeExecutionData[],
	response: IN8nHttpFullResponse,
) => Promise<INodeExecutionData[]>;

/** Keeps the listed fields of each record when Simplify is on; unknown fields pass through when off. */
export function simplifyTo(fields: string[]): OutputStep {
	return async function (
		this: IExecuteSingleFunctions,
		items: INodeExecutionData[],
	): Promise<INodeExecutionData[]> {
		if (!(this.getNodeParameter('simplify', true) as boolean)) return items;
		return items.map((item) => ({
			...item,
			json: Object.fromEntries(
				fields.filter((field) => item.json[field] !== undefined).map((f) => [f, item.json[f]]),
			),
		}));
	};
}

/** A delete answers 204 with no body: say what was deleted instead. */
export function deletedResult(idParameter: string): OutputStep {
	return async function (this: IExecuteSingleFunctions): Promise<INodeExecutionData[]> {
		const id = this.getNodeParameter(idParameter, '', { extractValue: true }) as string;
		return [{ json: { id, deleted: true } }];
	};
}

/** The downloaded file as binary data, named (a plain base name) and typed as the service said. */
export function binaryFromResponse(
	binaryPropertyParameter: string,
	fallbackName: string,
): OutputStep {
	return async function (
		this: IExecuteSingleFunctions,
		_items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	) {
		const binaryProperty = this.getNodeParameter(binaryPropertyParameter, 'data') as string;
		const body = response.body as unknown;
		const buffer = Buffer.isBuffer(body)
			? body
			: body instanceof ArrayBuffer
				? Buffer.from(body)
				: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body ?? ''));
		const mimeType = mediaTypeOf(headerValue(response.headers, 'content-type'));
		const fileName =
			fileNameFromDisposition(headerValue(response.headers, 'content-disposition')) ?? fallbackName;
		const binary = await this.helpers.prepareBinaryData(buffer, fileName, mimeType);
		return [
			{
				json: { fileName, mimeType, fileSize: buffer.length },
				binary: { [binaryProperty]: binary },
			},
		];
	};
}

/** Document › Download: from the document read, fetches the chosen file as binary data. */
export function downloadedFile(
	versionParameter: string,
	binaryPropertyParameter: string,
): OutputStep {
	return async function (
		this: IExecuteSingleFunctions,
		_items: INodeExecutionData[],
		response: IN8nHttpFullResponse,
	) {
		const record = recordOf(response.body);
		const version = this.getNodeParameter(versionParameter, 'signed') as DocumentFileVersion;
		const binaryProperty = this.getNodeParameter(binaryPropertyParameter, 'data') as string;
		const file = await fetchDocumentFile(this, record, version, this.getExecutionCancelSignal?.());
		const binary = await this.helpers.prepareBinaryData(file.data, file.fileName, file.mimeType);
		return [
			{
				json: {
					id: record.id,
					name: record.name,
					status: record.status,
					version,
					fileName: file.fileName,
					mimeType: file.mimeType,
					fileSize: file.data.length,
				},
				binary: { [binaryProperty]: binary },
			},
		];
	};
}
