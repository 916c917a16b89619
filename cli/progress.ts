/** Progress on stderr: a redrawn bar on a terminal, a line every few seconds otherwise (logs, CI). */
export class Progress {
  private started = Date.now();
  private lastLine = 0;
  private readonly tty = Boolean(process.stderr.isTTY);

  constructor(
    private readonly label: string,
    private total: number | null,
    private readonly quiet = false,
  ) {}

  /** Report `done` units (of total, when known) with a short status text. */
  update(done: number, status = ""): void {
    if (this.quiet) return;
    const now = Date.now();
    if (!this.tty && now - this.lastLine < 2000 && (this.total === null || done < this.total)) return;
    this.lastLine = now;
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    let line: string;
    if (this.total) {
      const share = Math.min(1, done / this.total);
      const width = 28;
      const filled = Math.round(share * width);
      line = `${this.label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${this.total} ${(share * 100).toFixed(0)}% ${rate}/s ${status}`;
    } else {
      line = `${this.label} ${done} ${rate}/s ${status}`;
    }
    if (this.tty) process.stderr.write(`\r\x1b[2K${line}`);
    else process.stderr.write(`${line}\n`);
  }

  /** Leave the bar's line. */
  done(): void {
    if (this.tty && !this.quiet) process.stderr.write("\n");
  }
}
