"""One message a second per subject (an event's lobby row and Tournament Info), or
one every so many seconds (what every table page of an event shows of it).

A registration storm must not send each of its changes to every open lobby: the
first change in a second is sent at once; the others queue one message at the end
of the second (a Celery task), which renders when it runs and so shows every change
committed until then, the last one included. A change that is not urgent (a hand's
chips, at a table node) takes no first message: it waits for the end of its pace
(lobby.live.CHIPS_SECONDS), so the worker that sends that message renders it, never
the process that plays the tables.

What is shared between processes lives in the cache:
- `live:sent:<subject>`: a message went out less than a second ago;
- `live:trailing:<subject>`: the end-of-second message is queued; its value says
  when it is due, and it is there until the message is sent.
The delivery reads both with the listened marks, in its one round trip (cache_keys).

And in this process only: until when, by subject, a queued end-of-second message is
known to carry any change committed here (until a little before it is due). Such a
change needs no cache round trip at all (carried).
"""

import time
from dataclasses import dataclass, field

from celery import Signature
from django.core.cache import cache

# A subject's groups hear of it at most this often.
THROTTLE_SECONDS = 1
# A queued end-of-second message is taken to carry changes until this long before it is due.
CARRY_MARGIN_SECONDS = 0.1
_carried_until: dict[str, float] = {}


@dataclass(frozen=True)
class Throttle:
    """What the messages about `subject` share: at most one a second (or every
    `seconds`); `trailing` is the task that sends the end-of-second message (calling
    trailing_began first). Unless `leading`, a change is never sent at once: the
    end-of-second message carries it."""

    subject: str
    trailing: Signature = field(compare=False, repr=False)
    seconds: float | None = None
    leading: bool = field(default=True, compare=False)

    @property
    def every(self) -> float:
        return self.seconds or THROTTLE_SECONDS

    def carried(self) -> bool:
        """An end-of-second message this process knows of will carry the change."""
        return time.monotonic() < _carried_until.get(self.subject, 0.0)

    def cache_keys(self) -> list[str]:
        """What admit() reads: to be read in the delivery's one round trip."""
        return [_sent_key(self.subject), _trailing_key(self.subject)]

    def admit(self, found: dict) -> bool:
        """Whether the change goes out now, given what the delivery read (`found`:
        the keys found). If not, the end-of-second message carries it: queued now
        if nobody queued it yet."""
        sent, trailing = self.cache_keys()
        if self.leading and sent not in found and cache.add(sent, True, timeout=self.every):
            return True
        due = found.get(trailing)
        if due is None:
            due = time.time() + self.every
            if cache.add(trailing, due, timeout=self.every * 5):
                self.trailing.apply_async(countdown=self.every)
            else:  # another process queued it since the read
                due = cache.get(trailing)
        if due is not None:
            _carried_until[self.subject] = time.monotonic() + (due - time.time()) - CARRY_MARGIN_SECONDS
        return False

    def trailing_began(self) -> None:
        """The end-of-second message is being sent: a change from now on is not carried
        by it, and the next second begins now."""
        _carried_until.pop(self.subject, None)
        cache.delete(_trailing_key(self.subject))
        cache.set(_sent_key(self.subject), True, timeout=self.every)


def _sent_key(subject: str) -> str:
    return f"live:sent:{subject}"


def _trailing_key(subject: str) -> str:
    return f"live:trailing:{subject}"
