"""The HTTP adapter: FastAPI, one router per protocol, strict JSON, one error body."""
