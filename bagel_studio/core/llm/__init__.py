"""LLM assistance through any OpenAI-compatible endpoint: profiles, the paper's prompts, reply
parsing, closed-book evaluation, reference levels, a second-opinion judge and regeneration.

Qt-free. ``openai`` is imported only when a client is made (``client.LLMClient``).
"""
