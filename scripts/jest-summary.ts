// Prints one closing line for a jest --json report: "<label>: N passed, N failed[, N skipped]".
import { readFileSync } from 'fs';

const [file, label] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const skipped = report.numPendingTests + (report.numTodoTests ?? 0);
console.log(
	`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`,
);
