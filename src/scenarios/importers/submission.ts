/**
 * The patch a SWE-bench agent submits is recorded after the run as the output of its submit command:
 * the model never saw it (up to 868k characters), so the importers leave that last message out. It is
 * known by its text, `info.submission`, whatever command produced it.
 */
export function isSubmission(content: string | undefined, submission: unknown): boolean {
  const patch = typeof submission === 'string' ? submission.trim() : '';
  return patch !== '' && content?.trimStart().startsWith(patch) === true;
}
