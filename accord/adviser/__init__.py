"""The adviser: a principal's private negotiation file and the skills that propose changes to it."""
