"""Live updates (ARCHITECTURE, "Live updates"): what the services record as they
change things reaches the pages once it is committed.

How an event reaches a socket: a service records it in the transaction's outbox
(outbox.record); on commit, delivery hands the events to the publishers (lobby.live,
deals.live), which turn them into parts for groups (groups: names, who may join,
which are listened to); the parts somebody listens to are rendered once and sent,
throttled where a group would hear too often (throttle), by the sending loop's
thread (sending) to the channel layer; each socket (consumers.LiveConsumer, joined
to its page's groups at the handshake) forwards them to the browser as they are.
"""
