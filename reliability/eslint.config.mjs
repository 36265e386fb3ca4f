// Support code: lint rules in ../eslint.support.mjs (why: see there).
export { default } from '../eslint.support.mjs';
