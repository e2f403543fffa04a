"""Recorded transcripts that tests and the demo replay offline: data shipped with the package."""
