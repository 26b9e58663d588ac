/**
 * The fields of a /proc/<pid>/stat (or /proc/<pid>/task/<tid>/stat) line from field 3, the run state, on:
 * `[state, ppid, pgrp, ...]` (utime and stime are then at 11 and 12). The command name before them is in
 * parentheses and may itself hold spaces and parentheses, so the fields start after the last ')'.
 */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
