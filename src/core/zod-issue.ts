/** One line for what a schema refused in a file's data: where (`messages[1].toolCalls[0].id`) and why. */
import type { z } from 'zod';

/** The first problem, at its path, and how many more there are. */
export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const where = issue.path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    '',
  );
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem(s))` : '';
  return `${where || '(top level)'}: ${issue.message}${more}`;
}
