// The shipped JSON Schema of a lane-health record (schema/lane-health.schema.json), compiled once for
// the tests that check records against it. Test support only, not part of the package.
import { readFile } from 'node:fs/promises';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export const laneHealthSchema = JSON.parse(
  await readFile(new URL('../../schema/lane-health.schema.json', import.meta.url), 'utf8'),
) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true });
// RFC 3339 date-time (the schema's `format`), checked here without pulling in ajv-formats.
ajv.addFormat(
  'date-time',
  (value: string) =>
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) &&
    !Number.isNaN(Date.parse(value)),
);

/** True when `record` is a valid lane-health record; `.errors` says why not. */
export const validateLaneHealth: ValidateFunction = ajv.compile(laneHealthSchema);
