// What the test servers do with an answer that differs from its route's success schema: say so on stderr (the
// request itself is answered 500), and fail the run even if the test that caused it never looked at the status.
import type { ResponseMismatch } from '../../src/http/responseCheck.ts';

let mismatches = 0;

export function failOnResponseMismatch(mismatch: ResponseMismatch): void {
  mismatches += 1;
  const issues = mismatch.issues.map((issue) => `    ${issue}\n`).join('');
  process.stderr.write(`\nresponse check: ${mismatch.route} answered ${mismatch.path} (${mismatch.status}) with what its success schema does not declare:\n${issues}`);
}

// uvu sets the exit code as it finishes; this runs after it.
process.on('exit', () => {
  if (mismatches) {
    process.stderr.write(`\nresponse check: ${mismatches} answer(s) did not match their route's success schema\n`);
    process.exitCode = 1;
  }
});
