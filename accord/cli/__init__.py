"""The command line: `accord serve`, `sweep`, `check`, and commands for people at a terminal."""
