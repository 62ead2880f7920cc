"""Alembic environment: runs on the connection `accord.store.migrate` hands over."""

from alembic import context

from accord.store.tables import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
