"""Model-provider adapters: one module per provider (OpenAI, Anthropic, LiteLLM) plus replay.

Each adapter turns one request into one response and only classifies errors; the core owns
retries, concurrency and timeouts. Filled in by issue 5.
"""
