"""Live updates (ARCHITECTURE, "Live updates"): what the services record as they
change things reaches the pages once it is committed."""
