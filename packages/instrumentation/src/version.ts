/** Kept in step with package.json by the version test. */
export const VERSION = '0.1.0';
