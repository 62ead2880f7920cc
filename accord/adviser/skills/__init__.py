"""The adviser's skills (adviser-api.md, Skills): each reads a bounded view of the state and answers
with a SKILL_RESPONSE that the orchestrator validates like any other."""
