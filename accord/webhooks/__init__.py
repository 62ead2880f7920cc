"""Webhooks as Standard Webhooks 1.0 defines them: what a registration takes, which events an
endpoint asked for, when a failed delivery is tried again, and the signatures a receiver checks.
Pure: the server, the SDK and a receiver's verifier share it."""
