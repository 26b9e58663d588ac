const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Renders a byte count for people: `1.5 GiB`, `812 MiB`, `40 KiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value >= 100 || unit === 0 ? 0 : 1;
  return `${value.toFixed(digits).replace(/\.0$/, '')} ${UNITS[unit]}`;
}
