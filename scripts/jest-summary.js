// Prints one closing line for a jest --json report: "<label>: N passed, N failed[, N skipped]".
const fs = require('fs');
const [file, label] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = report.numPendingTests + (report.numTodoTests || 0);
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
