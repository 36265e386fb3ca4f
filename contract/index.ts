/** The API contract (docs/api-contract.md) as zod schemas and inferred types. */
export * from './schemas';
