"""Reads, by subject: what the pages, the API and the services read, never writing.

schedules (an event's clock: stops, deadlines, windows), entries (whether an event
takes an entry, a rebuy, an add-on now, and how to pay), payouts (the prize pool),
lobby (its rows and a player's own marks), players (a player's events, an event's
players), standings (the field: still in, the clock line, tables, chip leaders,
finishers), bounties, transfers (which event a transfer was for), tables (a table
in play, its seats and a player's own part) and hands (hand histories).
"""
