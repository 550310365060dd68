"""Charts drawn on the server as SVG: a line over time and bars by category. Each is
accessible: the page gives it a title and, beside it, a table of the same numbers
(the template's job); these functions only place the marks."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

WIDTH, HEIGHT, PAD = 640, 220, 36


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    points: str  # a polyline's, or "" for bars
    dots: tuple[tuple[float, float], ...]  # each value's mark on a line
    bars: tuple[tuple[float, float, float, float], ...]  # x, y, width, height
    zero_y: float  # where the value 0 lies
    low: int
    high: int


def _scale(values: Sequence[int]) -> tuple[int, int]:
    low, high = min(0, *values), max(0, *values)
    return low, high if high > low else low + 1


def line_chart(points: Sequence[tuple[datetime, int]]) -> Chart:
    """A line through `points` (instant, value), each placed by its instant: a quiet
    hour takes the room an hour takes, not one step like a busy minute."""
    values = [value for _, value in points]
    low, high = _scale(values)
    x = _time_axis([at for at, _ in points])

    def y(value: int) -> float:
        return round(HEIGHT - PAD - (value - low) / (high - low) * (HEIGHT - 2 * PAD), 1)

    dots = tuple((x(at), y(value)) for at, value in points)
    return Chart(WIDTH, HEIGHT, " ".join(f"{x},{y}" for x, y in dots), dots, (), y(0), low, high)


def _time_axis(instants: Sequence[datetime]) -> Callable[[datetime], float]:
    """Where on the x axis an instant lies, the first of `instants` at the left edge
    and the last at the right."""
    first, last = (min(instants), max(instants)) if instants else (None, None)
    span = (last - first).total_seconds() if first and last and last > first else 1.0

    def x(at: datetime) -> float:
        return round(PAD + (at - first).total_seconds() / span * (WIDTH - 2 * PAD), 1) if first else PAD

    return x


def bar_chart(values: Sequence[int]) -> Chart:
    """A bar for each of `values`, side by side."""
    low, high = _scale(values)
    slot = (WIDTH - 2 * PAD) / max(1, len(values))
    bars = []
    for index, value in enumerate(values):
        height = (value - low) / (high - low) * (HEIGHT - 2 * PAD)
        bars.append(
            (
                round(PAD + index * slot + slot * 0.1, 1),
                round(HEIGHT - PAD - height, 1),
                round(slot * 0.8, 1),
                round(height, 1),
            )
        )
    return Chart(WIDTH, HEIGHT, "", (), tuple(bars), HEIGHT - PAD, low, high)


@dataclass(frozen=True)
class Lines:
    width: int
    height: int
    lines: tuple[str, ...]  # each series' polyline points, in the series' order
    low: int
    high: int


def time_chart(series: Sequence[Sequence[tuple[datetime, int]]]) -> Lines:
    """A line for each series of (instant, value), on one time axis and one scale."""
    instants = [at for points in series for at, _ in points]
    values = [value for points in series for _, value in points]
    low, high = _scale(values or [0])
    x = _time_axis(instants)

    def y(value: int) -> float:
        return round(HEIGHT - PAD - (value - low) / (high - low) * (HEIGHT - 2 * PAD), 1)

    lines = tuple(" ".join(f"{x(at)},{y(value)}" for at, value in points) for points in series)
    return Lines(WIDTH, HEIGHT, lines, low, high)
