import type { IDataObject, IExecuteSingleFunctions } from 'n8n-workflow';

import { ACCEPTED_FILE_TYPES, LIMITS } from '../../../shared/vocabulary';
import { compact, invalid, requireText } from '../../shared/validation';
import { shownInput } from '../../../shared/transport/text';

const MIB = 1024 * 1024;

export function extensionOf(name: string): string | undefined {
	const match = /\.([A-Za-z0-9]{1,8})$/.exec(name);
	return match ? match[1].toLowerCase() : undefined;
}

/** Create's Attach File: the input item's file, checked, and the extensions its type accepts. */
export async function readFile(
	context: IExecuteSingleFunctions,
): Promise<{ file: IDataObject; extensions: readonly string[] }> {
	const property = requireText(
		context,
		'Input Binary Field',
		context.getNodeParameter('binaryPropertyName', 'data'),
	);
	if (!context.getInputData().binary?.[property]) {
		throw invalid(
			context,
			'Input Binary Field',
			`the input item has no binary field ${shownInput(property)}`,
			'Use the name of the field holding the file, or switch off Attach File.',
		);
	}
	const binary = context.helpers.assertBinaryData(property);
	const mimeType = (binary.mimeType ?? '').split(';')[0].trim().toLowerCase();
	if (!Object.hasOwn(ACCEPTED_FILE_TYPES, mimeType)) {
		throw invalid(
			context,
			'Input Binary Field',
			`files of type ${shownInput(mimeType || 'unknown')} are not accepted`,
			'Use a PDF, DOCX, PNG or JPEG file.',
		);
	}
	const buffer = await context.helpers.getBinaryDataBuffer(property);
	if (buffer.length === 0) throw invalid(context, 'Input Binary Field', 'the file is empty');
	if (buffer.length > LIMITS.maxFileBytes) {
		throw invalid(
			context,
			'Input Binary Field',
			`the file is ${(buffer.length / MIB).toFixed(1)} MB; the limit is ${LIMITS.maxFileBytes / MIB} MB`,
		);
	}
	return {
		file: compact({
			name: binary.fileName,
			content_type: mimeType,
			data: buffer.toString('base64'),
		}),
		extensions: ACCEPTED_FILE_TYPES[mimeType as keyof typeof ACCEPTED_FILE_TYPES],
	};
}
