// The n8n-nodes-starter's Prettier settings (as @n8n/node-cli's project template ships them).
// https://prettier.io/docs/en/options.html
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 100,
};
