"""The person's door (interfaces.md, Web pages): server-rendered pages that work without
JavaScript, holding a person's credential in a cookie of its own and calling the application
layer with it. Nothing here decides; a refusal keeps its code and message."""
