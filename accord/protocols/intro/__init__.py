"""Intro negotiations: two agents talk, in free text, whether an introduction is worth both
people's time; what each side sees of the other opens layer by layer (docs/intro.md)."""
