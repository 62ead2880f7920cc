"""Telegram: a person's door (interfaces.md, Telegram), over the application layer."""
