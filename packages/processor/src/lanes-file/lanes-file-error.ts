/** One thing wrong in a lanes file, located so the user can go straight to it. */
export interface LanesFileProblem {
  readonly file: string;
  /** 1-based; 0 when the problem is the file as a whole. */
  readonly line: number;
  /** The field as written (`handoff_s`, `p95_budget_s.first_output`), or `''` for the file. */
  readonly field: string;
  readonly message: string;
}

export function formatProblem(problem: LanesFileProblem): string {
  const where = problem.line > 0 ? `${problem.file} line ${problem.line}` : problem.file;
  return `${where}: ${problem.message}`;
}

/** Every problem of a lanes file at once, each on its own line of the message. */
export class LanesFileError extends Error {
  override readonly name = 'LanesFileError';
  readonly problems: readonly LanesFileProblem[];

  constructor(problems: readonly LanesFileProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.problems = problems;
  }
}
