"""Talking to remote services: one HTTP layer with deadlines and retries, URL checks and redaction, the marketplace
refresh client. Imports only mintprep.base."""
