"""The receipt signing keys as a service: one keyring per process, opened on first use, read
again when `accord keys rotate` changes the file; every table signs through it."""

from collections.abc import Callable
from datetime import datetime
from typing import Any

from accord.app.settings import Settings
from accord.core.protocol import Mode
from accord.trust.keys import Keyring, Keys, SigningKey, keyring_path


class KeyService:
    def __init__(
        self, settings: Settings, *, clock: Callable[[], datetime], keys: Keys | None = None
    ) -> None:
        self._path = keyring_path(settings.key_file, settings.data_dir)
        self._clock = clock
        self._keys = keys

    def current(self) -> Keyring:
        if self._keys is None:
            self._keys = Keys(self._path, now=self._clock())
        return self._keys.current()

    def signing_key(self, mode: Mode) -> SigningKey:
        return self.current().active(mode)

    def jwks(self) -> dict[str, Any]:
        return dict(self.current().jwks())
