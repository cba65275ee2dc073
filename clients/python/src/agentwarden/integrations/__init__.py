"""Framework adapters: a few lines plug a framework's own hooks into Agent Warden.

- :mod:`agentwarden.integrations.openai_agents` — OpenAI Agents SDK (``pip install 'agentwarden[openai-agents]'``):
  a tracing processor (traces and agents → runs, generations / responses → LLM calls, function
  spans → tool calls) and a guard for ``FunctionTool``.
- :mod:`agentwarden.integrations.langchain` — LangChain / LangGraph (``pip install 'agentwarden[langchain]'``):
  a callback handler (chains → runs, chat models → LLM calls, tools → tool calls) and a guard for
  ``BaseTool``.

Each module imports its framework on import; the ``agentwarden`` package itself needs nothing
beyond the standard library (docs/decisions.md#framework-adapters-inside-the-python-client).
"""
