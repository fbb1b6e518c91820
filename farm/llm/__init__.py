"""Model access: the ModelClient seam, litellm behind it, family conventions, output parsers.

Only `farm.llm.litellm_client` imports litellm, and only when a client is built, so
`farm --help` and `farm devices` never pay for it.
"""
