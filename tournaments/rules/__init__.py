"""The room's rules as pure Python: no Django, no database, no clock of its own."""
