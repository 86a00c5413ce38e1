"""The benchmarks' figures (tests/bench): one ratio per benchmark, and the run's table of them."""

from __future__ import annotations

from dataclasses import dataclass

RATIO_PROPERTY = "benchmark ratio"  # the user property of a test's report that carries one Ratio, as a dict


@dataclass(frozen=True)
class Ratio:
    """One benchmark's figures: its measured side and its baseline, in the same unit, and the bounds held."""

    name: str
    measured: str
    measured_value: float
    baseline: str
    baseline_value: float
    unit: str
    target: float
    ci_bound: float
    rounds: int

    @property
    def ratio(self) -> float:
        return self.measured_value / self.baseline_value if self.baseline_value > 0 else float("inf")

    @property
    def verdict(self) -> str:
        if self.ratio < self.target:
            return "target met"
        return "within CI bound" if self.ratio < self.ci_bound else "FAILS"


def table(ratios: list[Ratio], *, measuring: bool) -> list[str]:
    """The run's figures as one plain-text table, one row per benchmark."""
    header = ("benchmark", "measured", "baseline", "ratio", "target", "CI bound", "rounds", "")
    rows = [
        (
            r.name,
            f"{r.measured_value:.4g} {r.unit}  {r.measured}",
            f"{r.baseline_value:.4g} {r.unit}  {r.baseline}",
            f"{r.ratio:.2f}×",
            f"< {r.target:g}×",
            f"< {r.ci_bound:g}×",
            str(r.rounds),
            r.verdict,
        )
        for r in sorted(ratios, key=lambda r: r.name)
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    kind = "a measuring run: targets held" if measuring else "a smoke run: CI bounds held, targets shown"
    lines = [f"benchmarks, each a ratio to a baseline measured in the same run ({kind})"]
    for row in (header, *rows):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
    lines.insert(2, "  ".join("-" * width for width in widths))
    return lines
