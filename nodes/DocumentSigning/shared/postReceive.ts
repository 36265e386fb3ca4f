import type {
	IDataObject,
	IExecuteSingleFunctions,
	INodeExecutionData,
	PostReceiveAction,
} from 'n8n-workflow';

import { bytesOf, fetchDocumentFile, type DocumentFileVersion } from '../../shared/documentFiles';
import { mediaTypeOf } from '../../shared/fileNames';
import { recordOf, fileNameFromDisposition, headerValue } from '../../shared/transport';

/** Keeps the listed fields of each record when Simplify is on; unknown fields pass through when off. */
export function simplifyTo(fields: string[]): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, items: INodeExecutionData[]) {
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
export function deletedResult(idParameter: string): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions) {
		const id = this.getNodeParameter(idParameter, '', { extractValue: true }) as string;
		return [{ json: { id, deleted: true } }];
	};
}

/** The one output item of a file: `json`, the file's name, type and size; the file under outputFileField. */
async function fileItem(
	context: IExecuteSingleFunctions,
	json: IDataObject,
	{ data, fileName, mimeType }: { data: Buffer; fileName: string; mimeType: string },
): Promise<INodeExecutionData[]> {
	const binaryProperty = context.getNodeParameter('binaryPropertyName', 'data') as string;
	const binary = await context.helpers.prepareBinaryData(data, fileName, mimeType);
	return [
		{
			json: { ...json, fileName, mimeType, fileSize: data.length },
			binary: { [binaryProperty]: binary },
		},
	];
}

/** The downloaded file as binary data, named (a plain base name) and typed as the service said. */
export function binaryFromResponse(fallbackName: string): PostReceiveAction {
	return async function (this: IExecuteSingleFunctions, _items, response) {
		const data = bytesOf(response.body);
		const header = (name: string) => headerValue(response.headers, name);
		const fileName = fileNameFromDisposition(header('content-disposition')) ?? fallbackName;
		const mimeType = mediaTypeOf(header('content-type'));
		return await fileItem(this, {}, { data, fileName, mimeType });
	};
}

/** Document › Download: from the document read, fetches the chosen file as binary data. */
export const downloadedFile: PostReceiveAction = async function (
	this: IExecuteSingleFunctions,
	_items,
	response,
) {
	const record = recordOf(response.body);
	const version = this.getNodeParameter('version', 'signed') as DocumentFileVersion;
	const file = await fetchDocumentFile(this, record, version, this.getExecutionCancelSignal?.());
	const { id, name, status } = record;
	return await fileItem(this, { id, name, status, version }, file);
};
