"""Helpers for the tests of projects that use llm_eval (the pytest plugin: ``pytest_plugin``)."""
