"""The store: SQLAlchemy Core over SQLite (WAL) or PostgreSQL, migrated by Alembic on start."""
