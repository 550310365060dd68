"""Logging filters for the settings' LOGGING."""

import logging

from django.core.exceptions import PermissionDenied


class RefusalWithoutTraceback(logging.Filter):
    """A PermissionDenied is a refusal, not an error: Django logs it with the
    exception's traceback; one line (the status and the path) says all there is."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], PermissionDenied):
            record.exc_info = None
            record.exc_text = None
        return True
