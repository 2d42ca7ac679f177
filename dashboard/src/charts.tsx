// Small SVG charts: no chart library needed for a line and a reliability diagram.
export function TrendChart({ points }: { points: { at: string; criticalPaths: number; riskPct: number }[] }) {
  if (points.length < 2)
    return <p className="note">The trend needs two analyzer passes or more ({points.length} so far).</p>;
  const w = 640;
  const h = 160;
  const max = Math.max(1, ...points.map((p) => p.criticalPaths));
  const x = (i: number) => 30 + (i / (points.length - 1)) * (w - 40);
  const yc = (v: number) => h - 20 - (v / max) * (h - 40);
  const yr = (v: number) => h - 20 - (v / 100) * (h - 40);
  const line = (y: (v: number) => number, key: 'criticalPaths' | 'riskPct') =>
    points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  return (
    <figure>
      <svg
        viewBox={`0 0 ${w} ${h}`}
        role="img"
        aria-label="Critical paths and risk over time"
        className="chart"
      >
        <line x1={30} y1={h - 20} x2={w - 10} y2={h - 20} className="axis" />
        <path d={line(yc, 'criticalPaths')} className="series-a" />
        <path d={line(yr, 'riskPct')} className="series-b" />
      </svg>
      <figcaption>
        <span className="key-a">critical paths</span> (0–{max}) and <span className="key-b">risk %</span>,
        from {points[0].at.slice(0, 16)} to {points.at(-1)!.at.slice(0, 16)}
      </figcaption>
    </figure>
  );
}

export function CalibrationChart({
  bins,
}: {
  bins: {
    from: number;
    to: number;
    count: number;
    meanPredicted: number | null;
    observedRate: number | null;
  }[];
}) {
  const s = 200;
  const used = bins.filter((b) => b.count > 0 && b.meanPredicted !== null && b.observedRate !== null);
  return (
    <figure>
      <svg
        viewBox={`0 0 ${s + 20} ${s + 20}`}
        role="img"
        aria-label="Calibration: observed rate against predicted score"
        className="chart square"
      >
        <line x1={10} y1={s + 10} x2={s + 10} y2={10} className="diagonal" />
        <rect x={10} y={10} width={s} height={s} className="frame" />
        {used.map((b, i) => (
          <circle
            key={i}
            cx={10 + b.meanPredicted! * s}
            cy={s + 10 - b.observedRate! * s}
            r={3 + Math.min(6, b.count)}
            className="series-a"
          />
        ))}
      </svg>
      <figcaption>
        Predicted score (across) against observed rate (up); on the diagonal is well calibrated. {used.length}{' '}
        bins with verdicts.
      </figcaption>
    </figure>
  );
}
