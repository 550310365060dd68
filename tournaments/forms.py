"""The idempotency keys the pages and the API take: a client's key for one request."""

import re

# A client's key for one request (a purchase made once however often it is sent):
# the API's Idempotency-Key header, the key the pages' buttons carry.
IDEMPOTENCY_KEY = re.compile(r"[\x21-\x7e]{1,64}")
# The largest id the database's integers hold.
LARGEST_ID = 2**63 - 1
