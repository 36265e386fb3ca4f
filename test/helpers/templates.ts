/**
 * The "Sales contract" template that the template-field suites fill (sandbox, node, real n8n): a
 * Client role left open and a Company role the template fills with the company's signatory; a
 * field of every type, required ones, a required one with a default (so no document has to give
 * it), and one the Client fills when signing (its role spelled in lower case, as a client may).
 */
export const SALES_CONTRACT = {
	name: 'Sales contract',
	document_name: 'sales-contract.pdf',
	signer_roles: [
		{ role: 'Client' },
		{ role: 'Company', email: 'sam@ourco.example', name: 'Sam Seller' },
	],
	fields: [
		{ key: 'customer_name', label: 'Customer name', required: true },
		{ key: 'price', label: 'Price', type: 'number', required: true },
		{ key: 'start_date', label: 'Start date', type: 'date', required: true },
		{
			key: 'plan',
			label: 'Plan',
			type: 'choice',
			options: ['Basic', 'Pro'],
			default: 'Basic',
			required: true,
		},
		{ key: 'auto_renew', label: 'Renews automatically', type: 'checkbox' },
		{ key: 'deal_id', label: 'Deal ID' },
		{ key: 'client_title', label: 'Job title', required: true, role: 'client' },
	],
};
