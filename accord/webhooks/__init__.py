"""Webhooks as Standard Webhooks 1.0 defines them: what a registration takes, which events an
endpoint asked for, when a failed delivery is tried again, and the signatures the server makes.
Pure. A receiver's check of a signature is `accord.trust.webhook_signatures`, so the SDK's
verifier needs nothing of this package."""
