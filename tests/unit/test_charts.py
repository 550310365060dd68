"""Charts drawn as SVG (issue 29): a line over time places each point by its instant."""

from datetime import UTC, datetime, timedelta

from lobby.charts import PAD, WIDTH, line_chart, time_chart

START = datetime(2026, 12, 7, 18, 0, tzinfo=UTC)


def test_a_line_places_its_points_by_time_not_one_step_each():
    chart = line_chart([(START, 90), (START + timedelta(minutes=1), 80), (START + timedelta(minutes=60), 10)])

    (x0, _), (x1, _), (x2, _) = chart.dots
    assert (x0, x2) == (PAD, WIDTH - PAD)
    assert x1 == round(PAD + (WIDTH - 2 * PAD) / 60, 1)  # a minute of the hour, not halfway
    assert (chart.low, chart.high) == (0, 90)


def test_points_at_one_instant_stand_at_the_left_edge_without_failing():
    chart = line_chart([(START, 0), (START, 5)])  # a player's first result: from 0 to it

    assert [x for x, _ in chart.dots] == [PAD, PAD]
    assert chart.dots[0][1] > chart.dots[1][1]  # 5 is drawn above 0
    assert float(time_chart([[(START, 7)]]).lines[0].split(",")[0]) == PAD
