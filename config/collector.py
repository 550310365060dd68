"""The garbage collector of each long-running process of the room (web, ws, the
Celery workers: the table nodes above all), set once the process has loaded what it
runs.

What a process loads to start (Django, the apps, the URLconf, the tasks) lives as
long as it does: frozen, full collections pass over only what came after. What it
keeps while it runs is long-lived too: a table node's warm hands, a ws process's
open sockets. At the collector's default pace a full pass over them came every few
seconds and stopped the process for longer than an action takes, holding up every
table it plays or every message in flight (bench/table_latency.py; the README's
Capacity). So young objects are collected about thirty times less often and the
whole heap ten times: reference counting frees a request's, a turn's and a
message's own objects first, and cycles are still collected."""

import gc


def collector_tuned() -> None:
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)
