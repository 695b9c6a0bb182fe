/**
 * Redraws a block of lines in place on a terminal: the cursor goes back to the block's first line
 * (CSI n F, "cursor previous line") and the screen below is cleared (CSI J) before the new lines are
 * written. Lines are cut to the terminal's width and the block to its height, so nothing wraps or
 * scrolls and the count of lines to go back stays right.
 */
export interface TerminalBoard {
  draw(lines: readonly string[]): void;
}

const ESC = '\x1b[';

export function terminalBoard(
  write: (text: string) => void,
  size: () => { columns: number; rows: number },
): TerminalBoard {
  let drawn = 0;
  return {
    draw(lines) {
      const { columns, rows } = size();
      const fitted = lines
        .slice(0, Math.max(1, rows - 1))
        .map((line) => cut(line, Math.max(10, columns - 1)));
      const back = drawn > 0 ? `${ESC}${drawn}F` : '';
      write(`${back}${ESC}J${fitted.join('\n')}\n`);
      drawn = fitted.length;
    },
  };
}

/** Cuts a line to `width` characters (code points: the board's box characters are one column each). */
export function cut(line: string, width: number): string {
  const chars = [...line];
  return chars.length <= width ? line : `${chars.slice(0, width - 1).join('')}…`;
}
