export const pct = (p: number | null | undefined, digits = 1) =>
  p === null || p === undefined ? '–' : `${(p * 100).toFixed(digits)} %`;
export const num = (n: number | null | undefined) =>
  n === null || n === undefined ? '–' : n.toLocaleString('en');
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '–';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}
export const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '–');
