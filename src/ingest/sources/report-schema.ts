// Each source checks its report's own shape with a JSON Schema before normalizing: a malformed report
// is a 400 problem naming the offending JSON pointer, and nothing of it is stored.
import { Ajv, type AnySchema } from 'ajv';
import { ProblemError } from '../../http/problems.js';
import { describeSchemaError, MAX_REPORTED_ERRORS, type FieldError } from '../envelope.js';

/**
 * Compiles `schema` once; the returned check throws ProblemError('invalid-payload') listing every
 * violation (up to MAX_REPORTED_ERRORS) with its JSON pointer, or returns the body typed as T.
 * Schemas should be permissive about fields the source ignores: real tools add fields between versions.
 */
export function reportSchema<T>(source: string, schema: AnySchema): (body: unknown) => T {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  return (body: unknown): T => {
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, MAX_REPORTED_ERRORS)
        .map((e) => describeSchemaError(e, body));
      throw reportProblem(source, errors);
    }
    return body as T;
  };
}

/** The 400 problem for a report that is not what `source` accepts. */
export function reportProblem(source: string, errors: FieldError[]): ProblemError {
  const first = errors[0] ?? { pointer: '/', detail: 'invalid report' };
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new ProblemError('invalid-payload', `${source} report: ${first.pointer}: ${first.detail}${more}`, {
    errors,
  });
}
