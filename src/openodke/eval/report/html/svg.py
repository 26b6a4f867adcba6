"""Charts as inline SVG strings: ranges, bars, paired differences, a reliability diagram.

Hand-built from Python (DECISIONS #180): no script, no font file, no network, a few kilobytes a
chart. Each chart is an ``<svg class="chart" data-chart=...>`` with a ``<title>`` per mark, so a
reader hovering a mark, a screen reader and a DOM test all get the number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Bar", "Interval", "bar_chart", "difference_chart", "range_chart", "reliability"]

_ROW = 24  # px per row
_PLOT = 420  # px of plot
_RIGHT = 150  # px for the numbers on the right
_TOP = 26  # px above the first row: the axis labels
COLOURS = {"precision": "#2563eb", "recall": "#d97706", "f1": "#059669"}


@dataclass(frozen=True)
class Interval:
    """One mark: a value with its range (either may be None: undefined, or a point)."""

    label: str
    value: float | None
    low: float | None = None
    high: float | None = None
    series: str = "f1"
    text: str | None = None  # the number printed at the right; default value [low, high]


@dataclass(frozen=True)
class Bar:
    """One bar: a count (None: the run cannot measure it) and its share."""

    label: str
    value: float | None
    text: str
    extra: float | None = None  # a lighter extension (a fix's ceiling beyond its expected gain)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _range_text(mark: Interval) -> str:
    if mark.text is not None:
        return mark.text
    if mark.value is None:
        return "— (undefined)"
    if mark.low is None or mark.high is None:
        return _num(mark.value)
    return f"{mark.value:.3f} [{mark.low:.3f}, {mark.high:.3f}]"


def _label_width(labels: Sequence[str]) -> int:
    """Room for the longest label on the left (about 6.6 px a character at 12 px), at most
    a third of the chart."""
    return int(min(max((len(label) for label in labels), default=4) * 6.6 + 14, 300))


def _svg(kind: str, width: int, height: int, body: list[str], label: str) -> str:
    return (
        f'<svg class="chart" data-chart="{escape(kind)}" role="img" '
        f'aria-label="{escape(label)}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg">{"".join(body)}</svg>'
    )


def _axis(x0: float, width: float, y0: float, y1: float, ticks: Sequence[tuple[float, str]]) -> str:
    parts = []
    for at, text in ticks:
        x = x0 + at * width
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}"/>')
        parts.append(f'<text class="tick" x="{x:.1f}" y="{y0 - 6}">{escape(text)}</text>')
    return "".join(parts)


def range_chart(kind: str, marks: Sequence[Interval], *, label: str) -> str:
    """Values with 95% ranges on a 0–1 axis, a row per mark; an undefined value is written
    as such, with no dot."""
    label_w = _label_width([m.label for m in marks])
    height = _TOP + _ROW * len(marks) + 8
    width = label_w + _PLOT + _RIGHT
    body = [_axis(label_w, _PLOT, _TOP, height - 4, [(t / 4, f"{t / 4:g}") for t in range(5)])]
    for i, mark in enumerate(marks):
        y = _TOP + _ROW * i + _ROW / 2
        colour = COLOURS.get(mark.series, "#475569")
        text = _range_text(mark)
        tip = escape(f"{mark.label} {mark.series}: {text}")
        body.append(
            f'<text class="label" x="{label_w - 8}" y="{y + 4}">{escape(mark.label)}</text>'
        )
        if mark.value is not None:
            if mark.low is not None and mark.high is not None:
                x1, x2 = label_w + mark.low * _PLOT, label_w + mark.high * _PLOT
                body.append(
                    f'<line class="range" x1="{x1:.1f}" y1="{y}" x2="{x2:.1f}" y2="{y}" '
                    f'stroke="{colour}"><title>{tip}</title></line>'
                )
                for x in (x1, x2):
                    body.append(
                        f'<line class="whisker" x1="{x:.1f}" y1="{y - 5}" x2="{x:.1f}" '
                        f'y2="{y + 5}" stroke="{colour}"/>'
                    )
            cx = label_w + mark.value * _PLOT
            body.append(
                f'<circle class="mark" data-series="{escape(mark.series)}" '
                f'data-value="{mark.value:.3f}" cx="{cx:.1f}" cy="{y}" r="5" fill="{colour}">'
                f"<title>{tip}</title></circle>"
            )
        body.append(
            f'<text class="value" x="{label_w + _PLOT + 10}" y="{y + 4}">{escape(text)}</text>'
        )
    return _svg(kind, width, height, body, label)


def bar_chart(kind: str, bars: Sequence[Bar], *, label: str, scale: float | None = None) -> str:
    """Horizontal bars scaled to the largest (or ``scale``); a bar of None is drawn as a
    dashed outline: not measured, which is not zero."""
    label_w = _label_width([b.label for b in bars])
    height = _ROW * len(bars) + 8
    width = label_w + _PLOT + _RIGHT
    top = max([scale or 0.0, *((b.value or 0) + (b.extra or 0) for b in bars)]) or 1.0
    body = []
    for i, bar in enumerate(bars):
        y = _ROW * i + 4
        body.append(
            f'<text class="label" x="{label_w - 8}" y="{y + 14}">{escape(bar.label)}</text>'
        )
        tip = escape(f"{bar.label}: {bar.text}")
        if bar.value is None:
            body.append(
                f'<rect class="bar unmeasured" x="{label_w}" y="{y + 3}" width="60" height="14">'
                f"<title>{tip}</title></rect>"
            )
        else:
            w = max(bar.value / top * _PLOT, 1.0 if bar.value else 0.0)
            if bar.extra:
                we = bar.extra / top * _PLOT
                body.append(
                    f'<rect class="bar extra" x="{label_w + w:.1f}" y="{y + 3}" width="{we:.1f}" '
                    f'height="14"><title>{tip}</title></rect>'
                )
            body.append(
                f'<rect class="bar" data-value="{bar.value:g}" x="{label_w}" y="{y + 3}" '
                f'width="{w:.1f}" height="14"><title>{tip}</title></rect>'
            )
        body.append(
            f'<text class="value" x="{label_w + _PLOT + 10}" y="{y + 14}">{escape(bar.text)}</text>'
        )
    return _svg(kind, width, height, body, label)


def difference_chart(marks: Sequence[Interval], limit: float | None, *, label: str) -> str:
    """B − A per metric with its interval on an axis symmetric about 0, and the band ±limit
    shaded: a change inside it is one this set cannot detect (95% confidence, 80% power)."""
    ends = [abs(v) for m in marks for v in (m.value, m.low, m.high) if v is not None]
    half = max([*ends, limit or 0.0, 0.01]) * 1.15
    label_w = _label_width([m.label for m in marks])
    height = _TOP + _ROW * len(marks) + 8
    width = label_w + _PLOT + _RIGHT

    def x(v: float) -> float:
        return label_w + (v + half) / (2 * half) * _PLOT

    step = _nice_step(half * 100 / 2)  # in points, about two ticks each side of 0
    count = int(half * 100 // step)
    ticks = [
        (0.5 + k * step / 100 / (2 * half), f"{k * step:+g}" if k else "0")
        for k in range(-count, count + 1)
    ]
    body = []
    if limit:
        body.append(
            f'<rect class="limit" x="{x(-limit):.1f}" y="{_TOP}" width="{x(limit) - x(-limit):.1f}"'
            f' height="{height - _TOP - 4}"><title>detection limit ±{limit * 100:.1f} points'
            "</title></rect>"
        )
    body.append(_axis(label_w, _PLOT, _TOP, height - 4, ticks))
    body.append(
        f'<line class="zero" x1="{x(0):.1f}" y1="{_TOP}" x2="{x(0):.1f}" y2="{height - 4}"/>'
    )
    for i, mark in enumerate(marks):
        y = _TOP + _ROW * i + _ROW / 2
        colour = COLOURS.get(mark.series, "#475569")
        text = mark.text or ""
        tip = escape(f"{mark.label}: {text}")
        body.append(
            f'<text class="label" x="{label_w - 8}" y="{y + 4}">{escape(mark.label)}</text>'
        )
        if mark.low is not None and mark.high is not None:
            body.append(
                f'<line class="range" x1="{x(mark.low):.1f}" y1="{y}" x2="{x(mark.high):.1f}" '
                f'y2="{y}" stroke="{colour}"><title>{tip}</title></line>'
            )
        if mark.value is not None:
            body.append(
                f'<circle class="mark" data-value="{mark.value:.4f}" cx="{x(mark.value):.1f}" '
                f'cy="{y}" r="5" fill="{colour}"><title>{tip}</title></circle>'
            )
        body.append(
            f'<text class="value" x="{label_w + _PLOT + 10}" y="{y + 4}">{escape(text)}</text>'
        )
    body.append(
        f'<text class="tick" x="{label_w + _PLOT / 2}" y="{height + 10}">B − A, points</text>'
    )
    return _svg("difference", width, height + 16, body, label)


def _nice_step(rough: float) -> float:
    """The step of 1, 2 or 5 times a power of ten nearest under ``rough`` (rough > 0)."""
    from math import floor, log10

    power = 10 ** floor(log10(rough))
    return max(m * power for m in (1, 2, 5) if m * power <= rough)


def reliability(bins: Sequence[tuple[str, float | None, float | None, int]], *, label: str) -> str:
    """A reliability diagram: each bin's mean confidence against its true rate, the diagonal
    perfect calibration, each dot's area its number of facts."""
    size, pad = 300, 40
    most = max((n for *_, n in bins), default=1) or 1
    body = [
        f'<rect class="frame" x="{pad}" y="10" width="{size}" height="{size}"/>',
        f'<line class="diagonal" x1="{pad}" y1="{10 + size}" x2="{pad + size}" y2="10"/>',
    ]
    for t in range(6):
        v = t / 5
        body.append(f'<text class="tick" x="{pad + v * size:.1f}" y="{size + 26}">{v:g}</text>')
        body.append(
            f'<text class="tick left" x="{pad - 6}" y="{10 + size - v * size + 4:.1f}">{v:g}</text>'
        )
    points = []
    for name, confidence, rate, n in bins:
        if confidence is None or rate is None or not n:
            continue
        cx, cy = pad + confidence * size, 10 + size - rate * size
        points.append(f"{cx:.1f},{cy:.1f}")
        r = 3 + 9 * (n / most) ** 0.5
        tip = escape(f"{name}: {n} facts, mean confidence {confidence:.3f}, true {rate:.3f}")
        body.append(
            f'<circle class="mark" data-value="{rate:.3f}" cx="{cx:.1f}" cy="{cy:.1f}" '
            f'r="{r:.1f}"><title>{tip}</title></circle>'
        )
    if len(points) > 1:
        body.insert(2, f'<polyline class="curve" points="{" ".join(points)}"/>')
    body.append(f'<text class="tick" x="{pad + size / 2}" y="{size + 44}">mean confidence</text>')
    body.append(
        f'<text class="tick" transform="rotate(-90)" x="{-(10 + size / 2)}" y="12">'
        "share true</text>"
    )
    return _svg("reliability", pad + size + 20, size + 52, body, label)
