/**
 * Cursor pagination shared by every list endpoint (docs/api-contract.md, "Lists and pagination").
 *
 * Lists are newest first. The cursor encodes the creation sequence number of the last record
 * served, and the next page continues strictly below it. Records created meanwhile get higher
 * numbers, so they never shift later pages (an offset would repeat or skip records).
 */
import type { ListPage } from '../contract';
import { DEFAULT_PAGE_SIZE } from '../nodes/shared/vocabulary';
import { ApiError } from './http';
import type { Row } from './store';

interface CursorPayload {
	/** The list the cursor belongs to, so a documents cursor is refused by the templates list. */
	k: string;
	/** Sequence number of the last record on the previous page. */
	s: number;
}

export function encodeCursor(kind: string, seq: number): string {
	return Buffer.from(JSON.stringify({ k: kind, s: seq } satisfies CursorPayload), 'utf8').toString('base64url');
}

function decodeCursor(kind: string, cursor: string): number {
	try {
		const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPayload>;
		if (payload && payload.k === kind && Number.isSafeInteger(payload.s) && (payload.s as number) >= 0) {
			return payload.s as number;
		}
	} catch {
		// fall through to the error below
	}
	throw new ApiError(400, 'validation_error', 'cursor is not a cursor returned by this list', 'cursor');
}

export function paginate<T>(
	kind: string,
	rows: Iterable<Row<T>>,
	query: { limit?: number; cursor?: string },
	filter: (record: T) => boolean = () => true,
): ListPage<T> {
	const limit = query.limit ?? DEFAULT_PAGE_SIZE;
	const after = query.cursor === undefined ? Number.POSITIVE_INFINITY : decodeCursor(kind, query.cursor);

	const candidates = [...rows].filter((row) => row.seq < after).sort((a, b) => b.seq - a.seq);
	const page: Array<Row<T>> = [];
	let hasMore = false;
	for (const row of candidates) {
		if (!filter(row.record)) continue;
		if (page.length === limit) {
			hasMore = true;
			break;
		}
		page.push(row);
	}
	return {
		data: page.map((row) => structuredClone(row.record)),
		has_more: hasMore,
		next_cursor: hasMore ? encodeCursor(kind, page[page.length - 1].seq) : null,
	};
}
